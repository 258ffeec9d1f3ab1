/** Reading sessions: one by id for the principal that may see it (expired first when due), and the keyset-paged listing. */
import { tenantMaySee } from '../auth/authorization.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionSchema, type Session } from '../../entities/session.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { type TenantPrincipal, type Principal } from '../auth/context.js';
import { isPastExpiry } from '../domain/session-state.js';
import { type SessionStatus } from '../domain/types.js';
import { notFound } from '../shared/errors.js';
import { isUuid } from '../shared/input-rules.js';
import { transactionWithEvents } from '../events/outbox.js';
import type { Services } from '../services.js';
import { assertPageSize, decodeKeysetCursor, olderThan } from '../shared/pagination.js';
import { readSessionWithResults, type SessionRecord, type SessionWithResults } from './session-record.js';
import { expireDue } from './expiry.js';

/** Reads a session and its node results for presentation, expiring it first when its time is up; 404 otherwise. */
export async function readSession(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
): Promise<SessionWithResults> {
  if (!isUuid(sessionId)) throw notFound('Session');
  const found = await readSessionWithResults(em, sessionId);
  if (!found || !isVisible(services, principal, found.session)) throw notFound('Session');
  if (isPastExpiry(found.session)) {
    await transactionWithEvents(em, services.bus, (tx, events) => expireDue(tx, events, { sql: 'id = ?', params: [sessionId] }));
    return (await readSessionWithResults(em, sessionId))!;
  }
  return found;
}

/**
 * Whether a principal may see a session: its tenant's key (or operator) of the same environment, or its
 * end-user token until the session's `expires_at`. The token is an HMAC of the id that cannot be
 * revoked, so its session's lifetime is its own: afterwards it is answered as an invalid token.
 */
function isVisible(
  services: Services,
  principal: Principal,
  session: Pick<SessionRecord, 'id' | 'tenantId' | 'environment' | 'expiresAt'>,
): boolean {
  if (principal.kind !== 'end_user') return tenantMaySee(principal, session);
  return session.expiresAt.getTime() > Date.now() && services.secrets.verifySessionLinkToken(session.id, principal.token);
}

/** Loads a session the principal may see, expiring it first when its time is up; 404 otherwise. */
export async function loadSession(em: EntityManager, services: Services, principal: Principal, sessionId: string): Promise<Session> {
  if (!isUuid(sessionId)) throw notFound('Session');
  const session = await em.findOne(SessionSchema, { id: sessionId });
  if (
    !session ||
    !isVisible(services, principal, {
      id: session.id,
      tenantId: session.tenant.id,
      environment: session.environment,
      expiresAt: session.expiresAt,
    })
  )
    throw notFound('Session');
  if (isPastExpiry(session)) {
    await transactionWithEvents(em, services.bus, (tx, events) => expireDue(tx, events, { sql: 'id = ?', params: [session.id] }));
    await em.refresh(session);
  }
  return session;
}

/** Filters of the session listing. */
export interface SessionFilter {
  statuses?: SessionStatus[];
  workflowId?: string;
  vendorData?: string;
  /** Inclusive lower bound of `created_at`. */
  createdAfter?: Date;
  /** Exclusive upper bound of `created_at`. */
  createdBefore?: Date;
}

/** Most sessions one page may hold. */
export const SESSIONS_PAGE_MAX = 100;
/** Page size when none is asked for. */
export const SESSIONS_PAGE_DEFAULT = 20;

/** A page of sessions, newest first, with stable ordering by (created_at, id). */
export async function listSessions(
  em: EntityManager,
  principal: TenantPrincipal,
  filter: SessionFilter,
  page: { first?: number; after?: string },
): Promise<{ sessions: Session[]; hasNextPage: boolean }> {
  const first = page.first ?? SESSIONS_PAGE_DEFAULT;
  assertPageSize(first, SESSIONS_PAGE_MAX, 'first');
  const where: Record<string, unknown>[] = [{ tenant: principal.tenantId, environment: principal.environment }];
  if (filter.statuses?.length) where.push({ status: { $in: filter.statuses } });
  if (filter.workflowId) where.push({ workflow: filter.workflowId });
  if (filter.vendorData) where.push({ vendorData: filter.vendorData });
  if (filter.createdAfter) where.push({ createdAt: { $gte: filter.createdAfter } });
  if (filter.createdBefore) where.push({ createdAt: { $lt: filter.createdBefore } });
  if (page.after) where.push(olderThan(decodeKeysetCursor(page.after, 'after')));
  const rows = await em.find(SessionSchema, { $and: where } as never, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: first + 1 });
  return { sessions: rows.slice(0, first), hasNextPage: rows.length > first };
}

/** Ensures the tenant exists (used by imports and tests). */
export async function tenantExists(em: EntityManager, tenantId: string): Promise<boolean> {
  return (await em.count(TenantSchema, { id: tenantId })) > 0;
}
