/**
 * Raw SQL: (b) notes are paged by a row-value keyset (`(created_at, id) > (?, ?)`).
 */
import { REFUSALS, requireAdmin } from '../auth/authorization.js';
import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey } from '../../entities/api-key.entity.js';
import { ListEntrySchema, type ListEntry } from '../../entities/list.entity.js';
import { OperatorSchema, type Operator } from '../../entities/operator.entity.js';
import { SessionSchema, SessionStatusChangeSchema, type Session, type SessionStatusChange } from '../../entities/session.entity.js';
import { WebhookDestinationSchema, type WebhookDestination } from '../../entities/webhook.entity.js';
import type { TenantPrincipal, TenantScope } from '../auth/context.js';
import { findList } from '../lists/list.service.js';
import { NOTE_COLUMNS, noteOfRow, type SessionNote, type SessionNoteRow } from '../sessions/note.service.js';
import { afterPosition, assertPageSize, decodeKeysetCursor } from '../shared/pagination.js';
import type { Services } from '../services.js';
import { loadSession } from '../sessions/read.js';
import { sessionsInStatus } from './stats.service.js';

/**
 * The paginated listings dashboards read (docs/console.md, "Queries for dashboards"): each is
 * one keyset page, plus one count where the set is small enough to count, so a page costs the
 * same statements whatever its size. Every listing is scoped to the caller's tenant and
 * environment (operators, who are people of the tenant, to its tenant).
 */

/** Largest page of the dashboard listings. */
export const DASHBOARD_PAGE_MAX = 100;
/** Page size when a client gives none. */
export const DASHBOARD_PAGE_DEFAULT = 20;

/** What a client asks of a page. */
export interface PageRequest {
  first?: number | null;
  after?: string | null;
  /** False when the client does not read the whole set's size: a counted listing then skips its `count(*)`. */
  count?: boolean;
}

/** A keyset page and, for sets worth counting, the size of the whole set. */
export interface KeysetPage<R> {
  rows: R[];
  hasNextPage: boolean;
  totalCount?: number;
}

/** How a listing is ordered and counted. */
interface KeysetOrder {
  order: 'asc' | 'desc';
  /** The timestamp column the listing is ordered by, with the id as tie-break. */
  dateField?: string;
  /** Counts the whole set too: `true` with one `count(*)` statement, or with the given reader of a kept count. */
  count?: boolean | (() => Promise<number>);
  /** Largest page; {@link DASHBOARD_PAGE_MAX} by default. */
  max?: number;
}

/** Reads one page of `entity` rows matching `where`, ordered by (date, id), after the request's cursor. */
export async function readKeysetPage<R extends object>(
  em: EntityManager,
  entity: EntityName<R>,
  where: Record<string, unknown>,
  page: PageRequest,
  order: KeysetOrder,
): Promise<KeysetPage<R>> {
  const first = page.first ?? DASHBOARD_PAGE_DEFAULT;
  assertPageSize(first, order.max ?? DASHBOARD_PAGE_MAX, 'first');
  const dateField = order.dateField ?? 'createdAt';
  const conditions = [where];
  if (page.after) conditions.push(afterPosition(decodeKeysetCursor(page.after, 'after'), order.order, dateField));
  const [rows, totalCount] = await Promise.all([
    em.find(entity, { $and: conditions } as never, {
      orderBy: { [dateField]: order.order, id: order.order } as never,
      limit: first + 1,
    }),
    !order.count || page.count === false
      ? Promise.resolve(undefined)
      : typeof order.count === 'function'
        ? order.count()
        : em.count(entity, where as never),
  ]);
  return { rows: rows.slice(0, first), hasNextPage: rows.length > first, ...(totalCount !== undefined ? { totalCount } : {}) };
}

/**
 * The in-review sessions of the caller's scope, longest waiting (oldest created) first; the total
 * is the kept count of sessions in review (`sessionsInStatus`), which stays flat as the queue grows.
 */
export async function reviewQueuePage(em: EntityManager, scope: TenantScope, page: PageRequest): Promise<KeysetPage<Session>> {
  return readKeysetPage(em, SessionSchema, { tenant: scope.tenantId, environment: scope.environment, status: 'in_review' }, page, {
    order: 'asc',
    count: () => sessionsInStatus(em, scope, 'in_review'),
  });
}

/** A session's audit trail (status changes), oldest first; another scope's session is a 404. */
export async function timelinePage(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  page: PageRequest,
): Promise<KeysetPage<SessionStatusChange>> {
  const session = await loadSession(em, services, principal, sessionId);
  return readKeysetPage(em, SessionStatusChangeSchema, { sessionId: session.id }, page, { order: 'asc', count: true });
}

/** A session's notes, oldest first; another scope's session is a 404. */
export async function notesPage(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  page: PageRequest,
): Promise<KeysetPage<SessionNote>> {
  const first = page.first ?? DASHBOARD_PAGE_DEFAULT;
  assertPageSize(first, DASHBOARD_PAGE_MAX, 'first');
  const session = await loadSession(em, services, principal, sessionId);
  const position = page.after ? decodeKeysetCursor(page.after, 'after') : null;
  const [rows, [count]] = await Promise.all([
    em.execute<SessionNoteRow[]>(
      `select ${NOTE_COLUMNS} from session_note
        where session_id = ? and (?::timestamptz is null or (created_at, id) > (?::timestamptz, ?::uuid))
        order by created_at, id limit ?`,
      [session.id, position?.createdAt ?? null, position?.createdAt ?? null, position?.id ?? null, first + 1],
    ),
    em.execute<{ n: number }[]>('select count(*)::int as n from session_note where session_id = ?', [session.id]),
  ]);
  const notes = rows.map(noteOfRow);
  return { rows: notes.slice(0, first), hasNextPage: notes.length > first, totalCount: count?.n ?? 0 };
}

/** The entries of a list of the caller's scope, oldest first; another scope's list is a 404. */
export async function listEntriesPage(
  em: EntityManager,
  scope: TenantScope,
  listId: string,
  page: PageRequest,
): Promise<KeysetPage<ListEntry>> {
  const list = await findList(em, scope, listId);
  return readKeysetPage(em, ListEntrySchema, { list: list.id }, page, { order: 'asc', dateField: 'addedAt', count: true });
}

/** The webhook destinations of the caller's scope, oldest first. */
export async function destinationsPage(em: EntityManager, scope: TenantScope, page: PageRequest): Promise<KeysetPage<WebhookDestination>> {
  return readKeysetPage(em, WebhookDestinationSchema, { tenant: scope.tenantId, environment: scope.environment }, page, {
    order: 'asc',
    count: true,
  });
}

/** The operators of the admin's tenant (people see both environments), oldest first. */
export async function operatorsPage(em: EntityManager, principal: TenantPrincipal, page: PageRequest): Promise<KeysetPage<Operator>> {
  const admin = requireAdmin(principal, REFUSALS.operatorList);
  return readKeysetPage(em, OperatorSchema, { tenant: admin.tenantId }, page, { order: 'asc', count: true });
}

/** The API keys of the admin's tenant in the environment of the sign-in, oldest first (revoked ones too). */
export async function apiKeysPage(em: EntityManager, principal: TenantPrincipal, page: PageRequest): Promise<KeysetPage<ApiKey>> {
  const admin = requireAdmin(principal, REFUSALS.apiKeyList);
  return readKeysetPage(em, ApiKeySchema, { tenant: admin.tenantId, environment: admin.environment }, page, {
    order: 'asc',
    count: true,
  });
}
