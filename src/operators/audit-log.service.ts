/**
 * The audit log an auditor reads (issue 25, "Proof"): one newest-first listing over what is
 * already recorded where it happens — operators' changes (`operator_audit`: claims, people, keys,
 * second factors, list changes, notes, exports), evidence views (`evidence_view`) and reviewers'
 * status changes (`session_status_change` with actor `reviewer`: decisions and retakes, by an
 * operator or an API key). Nothing is copied: each source keeps its own rows and the log is a
 * UNION ALL of the three, filtered and keyset-paged in SQL.
 *
 * Raw SQL: (b) the log is a `union all` of the operator audit and evidence views (no entity: a
 * derived relation), paged by a keyset over `date_trunc`.
 */
import { REFUSALS, requireAdmin } from '../auth/authorization.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { OperatorPrincipal, TenantPrincipal } from '../auth/context.js';
import { validationError } from '../shared/errors.js';
import { assertPageSize, decodeKeysetCursor } from '../shared/pagination.js';

/** Largest page of the audit log. */
export const AUDIT_LOG_PAGE_MAX = 100;
/** Page size when a client gives none. */
export const AUDIT_LOG_PAGE_DEFAULT = 50;
/** Rows read per statement when the whole filtered log is streamed (CSV export). */
export const AUDIT_LOG_EXPORT_BATCH = 500;
/** Longest actor filter, in characters. */
const ACTOR_FILTER_MAX_LENGTH = 200;
/** What an action filter may look like: `session.approved`, `evidence.viewed`, `list_entry.added`. */
const ACTION_PATTERN = /^[a-z_]{1,40}\.[a-z_]{1,40}$/;

/** What the audit log can be narrowed to; every field optional. */
export interface AuditLogFilter {
  /** Part of the actor's name (case-insensitive), or an operator's id. */
  actor?: string | null;
  /** One action, exactly (`session.declined`). */
  action?: string | null;
  /** Inclusive lower bound of the time. */
  from?: Date | null;
  /** Exclusive upper bound of the time. */
  to?: Date | null;
}

/** One line of the audit log: who did what to which object, when, from where. */
export interface AuditLogEntry {
  id: string;
  /** When, to the millisecond (the keyset cursor's precision). */
  at: Date;
  actorOperatorId: string | null;
  /** The operator's name at the time, or `API key <prefix>` for a key. */
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  /** The environment of the object; null for tenant-wide objects (people). */
  environment: ApiKeyEnvironment | null;
  /** The client address of the console sign-in it was done through (or of the evidence request); null when unknown. */
  clientAddress: string | null;
  details: Record<string, unknown>;
}

interface AuditLogRow {
  id: string;
  at: Date | string;
  actor_operator_id: string | null;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  environment: ApiKeyEnvironment | null;
  client_address: string | null;
  details: Record<string, unknown> | string | null;
}

/**
 * The three sources as one relation. Operator rows of the environment or tenant-wide (people are
 * of the tenant, so they show in both environments); evidence views and status changes through
 * their session's environment. Times are cut to milliseconds so that cursors compare exactly.
 */
const AUDIT_LOG_RELATION = `(
  select a.id, date_trunc('milliseconds', a.created_at) as at, a.actor_operator_id, a.actor_name, a.action,
         a.target_type, a.target_id, a.environment, a.client_address, a.details
    from operator_audit a
   where a.tenant_id = ? and (a.environment = ? or a.environment is null)
  union all
  select v.id, date_trunc('milliseconds', v.viewed_at), v.operator_id, v.operator_name, 'evidence.viewed',
         'session', v.session_id::text, s.environment, v.client_address,
         jsonb_build_object('evidence_id', v.evidence_id, 'kind', e.kind)
    from evidence_view v join session s on s.id = v.session_id left join evidence e on e.id = v.evidence_id
   where v.tenant_id = ? and s.environment = ?
  union all
  select c.id, date_trunc('milliseconds', c.created_at), c.actor_operator_id,
         coalesce(c.actor_name, 'API key ' || k.prefix, 'API key'),
         case when c.to_status = 'in_progress' then 'session.retake_requested' else 'session.' || c.to_status end,
         'session', c.session_id::text, s.environment, c.client_address,
         jsonb_strip_nulls(jsonb_build_object('reason', c.reason, 'from_status', c.from_status, 'api_key_id', c.actor_key_id))
    from session_status_change c join session s on s.id = c.session_id left join api_key k on k.id = c.actor_key_id
   where c.tenant_id = ? and s.environment = ? and c.actor = 'reviewer'
) log`;

/** Checks the filter's shape; a 400 naming the field otherwise (never a database cast error). */
export function checkAuditLogFilter(filter: AuditLogFilter): void {
  const errors: { field: string; code: string; message: string }[] = [];
  if (filter.actor != null && filter.actor.length > ACTOR_FILTER_MAX_LENGTH)
    errors.push({ field: 'actor', code: 'too_long', message: `actor is at most ${ACTOR_FILTER_MAX_LENGTH} characters` });
  if (filter.action != null && filter.action !== '' && !ACTION_PATTERN.test(filter.action))
    errors.push({ field: 'action', code: 'invalid', message: 'action looks like session.approved or evidence.viewed' });
  if (filter.from && filter.to && filter.from.getTime() >= filter.to.getTime())
    errors.push({ field: 'to', code: 'invalid', message: 'to must be after from' });
  if (errors.length > 0) throw validationError(errors);
}

/** The WHERE clause of a filter over the relation, with its parameters. */
function filterClause(filter: AuditLogFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const actor = filter.actor?.trim();
  if (actor) {
    parts.push(`(log.actor_name ilike ? escape '\\' or log.actor_operator_id::text = ?)`);
    params.push(`%${actor.replace(/[\\%_]/g, (char) => `\\${char}`)}%`, actor.toLowerCase());
  }
  if (filter.action) {
    parts.push('log.action = ?');
    params.push(filter.action);
  }
  if (filter.from) {
    parts.push('log.at >= ?');
    params.push(filter.from);
  }
  if (filter.to) {
    parts.push('log.at < ?');
    params.push(filter.to);
  }
  return { sql: parts.length ? parts.join(' and ') : 'true', params };
}

function entryOf(row: AuditLogRow): AuditLogEntry {
  return {
    id: row.id,
    at: new Date(row.at),
    actorOperatorId: row.actor_operator_id,
    actorName: row.actor_name,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    environment: row.environment,
    clientAddress: row.client_address,
    details: typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : (row.details ?? {}),
  };
}

/** Reads up to `limit` rows of the filtered log strictly older than `before`, newest first. */
async function readAuditRows(
  em: EntityManager,
  scope: OperatorPrincipal,
  filter: AuditLogFilter,
  before: { at: Date; id: string } | null,
  limit: number,
): Promise<AuditLogEntry[]> {
  const where = filterClause(filter);
  const cursor = before ? ' and (log.at < ? or (log.at = ? and log.id < ?::uuid))' : '';
  const rows = await em.execute<AuditLogRow[]>(
    `select log.* from ${AUDIT_LOG_RELATION} where ${where.sql}${cursor} order by log.at desc, log.id desc limit ?`,
    [
      scope.tenantId,
      scope.environment,
      scope.tenantId,
      scope.environment,
      scope.tenantId,
      scope.environment,
      ...where.params,
      ...(before ? [before.at, before.at, before.id] : []),
      limit,
    ],
  );
  return rows.map(entryOf);
}

/** One page of the audit log of the admin's tenant and environment, newest first. */
export async function auditLogPage(
  em: EntityManager,
  principal: TenantPrincipal,
  filter: AuditLogFilter,
  page: { first?: number | null; after?: string | null },
): Promise<{ rows: AuditLogEntry[]; hasNextPage: boolean }> {
  const reader = requireAdmin(principal, REFUSALS.auditLog);
  const first = page.first ?? AUDIT_LOG_PAGE_DEFAULT;
  assertPageSize(first, AUDIT_LOG_PAGE_MAX, 'first');
  checkAuditLogFilter(filter);
  const after = page.after ? decodeKeysetCursor(page.after, 'after') : null;
  const rows = await readAuditRows(em, reader, filter, after ? { at: after.createdAt, id: after.id } : null, first + 1);
  return { rows: rows.slice(0, first), hasNextPage: rows.length > first };
}

/** The whole filtered log, newest first, read a batch at a time so an export never holds it all. */
export async function* auditLogRows(em: EntityManager, reader: OperatorPrincipal, filter: AuditLogFilter): AsyncGenerator<AuditLogEntry> {
  checkAuditLogFilter(filter);
  let before: { at: Date; id: string } | null = null;
  for (;;) {
    const rows = await readAuditRows(em, reader, filter, before, AUDIT_LOG_EXPORT_BATCH);
    yield* rows;
    if (rows.length < AUDIT_LOG_EXPORT_BATCH) return;
    const last = rows.at(-1)!;
    before = { at: last.at, id: last.id };
  }
}
