/**
 * Session creates, written together (src/db/batcher.ts): creates that arrive while earlier ones
 * are being written are inserted by one statement, so that the database parses, plans, locks the
 * tenant row and commits once per batch rather than once per session. Measured on PostgreSQL 15:
 * ~315 µs of database CPU per session one at a time, ~125 µs in batches of eight.
 *
 * A create that finds fewer than CREATE_BATCH_CONCURRENCY statements in flight is written at once
 * (a batch of one); only creates that would have waited anyway are grouped. Each session's rows
 * (session, pending node results, audit, outbox event, fan-out marker) are written atomically
 * with it, and each batch is one transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpectedDetails } from '../../entities/session.entity.js';
import { batcherFor } from '../db/batcher.js';
import type { StatusChangedPayload } from '../domain/events.js';
import { ACTIVE_STATUSES_SQL } from '../domain/session-state.js';
import { hotQuery } from '../db/native.js';
import { SESSION_COLUMNS, type SessionRow } from './session-record.js';

/** Statements writing creates at the same time, per process: enough to keep both the server and the database busy. */
export const CREATE_BATCH_CONCURRENCY = 2;
/** Most sessions one statement writes (~1 KB of input each). */
export const CREATE_BATCH_MAX = 64;

/** One session to create: the values of its rows (JSON-ready). */
export interface CreateRow {
  id: string;
  tenant_id: string;
  environment: string;
  workflow_id: string;
  /** The workflow revision the session runs to its end (null when omitted). */
  workflow_revision?: number;
  vendor_data: string;
  callback: string | null;
  redirect_url: string | null;
  language: string | null;
  metadata: Record<string, unknown> | null;
  contact_details: Record<string, unknown> | null;
  expected_details: ExpectedDetails | null;
  /** The API key that asked, when a key did. */
  key_id: string | null;
  /** The operator who asked in the console, by id and name, when one did. */
  operator_id: string | null;
  actor_name: string | null;
  /** Lifetime, in seconds. */
  ttl_seconds: number;
  /** The workflow's nodes, each with its pending result to write. */
  nodes: { type: string; required: boolean; provider: string }[];
  audit_id: string;
  /** ISO time of the status change (audit row and event). */
  changed_at: string;
  event_id: string;
  payload: StatusChangedPayload;
  /** The sealed decision at creation, kept with the event (webhook bodies are snapshots of it). */
  snapshot: string | null;
  /** The creating request's W3C trace context, kept with the event (its webhook POSTs continue the trace). */
  trace_context?: Record<string, string> | null;
}

/** A created session's row, with its event's sequence number and whether its webhook fan-out was recorded done. */
export type CreatedRow = SessionRow & { event_seq: string; webhooks_done: boolean };

/**
 * Inserts the sessions of `$1` (a JSON array of CreateRow with `ord`) with their pending node
 * results, audit rows and `session.status_changed` outbox events, and for each event without a
 * webhook target (no callback, no active destination subscribed to it) its fan-out marker
 * (`webhook_fanout`, as the emitter would write it). A session whose (tenant, environment,
 * workflow, vendor_data) slot an active session holds is skipped (the partial unique index), and
 * no row comes back for it. Rows are inserted in `ord` order.
 */
export const INSERT_SESSIONS_SQL = `
  with input as (
    select * from jsonb_to_recordset($1::jsonb) as x (ord int, id uuid, tenant_id uuid, environment text, workflow_id text, workflow_revision int,
      vendor_data text, callback text, redirect_url text, language text, metadata jsonb, contact_details jsonb, expected_details jsonb, key_id uuid,
      operator_id uuid, actor_name text, ttl_seconds int, nodes jsonb, audit_id uuid, changed_at timestamptz, event_id uuid, payload jsonb, snapshot text, trace_context jsonb)
  ), created as (
    insert into session (id, tenant_id, environment, workflow_id, workflow_revision, vendor_data, status, callback, redirect_url, language, metadata,
                         contact_details, expected_details, created_by_key_id, created_at, updated_at, expires_at)
    select id, tenant_id, environment, workflow_id, workflow_revision, vendor_data, 'pending', callback, redirect_url, language, metadata,
           contact_details, expected_details,
           key_id, date_trunc('milliseconds', now()), now(), now() + make_interval(secs => ttl_seconds)
      from input order by ord
    on conflict (tenant_id, environment, workflow_id, vendor_data) where ${ACTIVE_STATUSES_SQL} do nothing
    returning ${SESSION_COLUMNS}, created_by_key_id
  ), nodes as (
    insert into session_node_result (session_id, node_type, status, required, provider, warnings, details, created_at, updated_at)
    select created.id, node.type, 'pending', node.required, node.provider, '[]', '{}', created.created_at, created.created_at
      from created join input on input.id = created.id
      cross join lateral jsonb_to_recordset(input.nodes) as node (type text, required boolean, provider text)
  ), audit as (
    insert into session_status_change (id, session_id, tenant_id, from_status, to_status, actor, actor_key_id, actor_operator_id,
                                       actor_name, reason, created_at)
    select input.audit_id, created.id, created.tenant_id, null, 'pending', 'api', created.created_by_key_id, input.operator_id,
           input.actor_name, null, input.changed_at
      from created join input on input.id = created.id
  ), event as (
    insert into outbox_event (id, tenant_id, environment, type, session_id, payload, snapshot, trace_context, created_at)
    select input.event_id, created.tenant_id, created.environment, 'session.status_changed', created.id, input.payload, input.snapshot,
           input.trace_context, input.changed_at
      from created join input on input.id = created.id order by input.ord
    returning seq, session_id
  ), webhooks_done as (
    -- No target for the event: its webhook fan-out is done now, in this transaction, and no emitter has to look for it.
    -- The SQL twin of destinationReceives (src/webhooks/delivery-fanout.ts): same tenant and environment, active, subscribed.
    insert into webhook_fanout (event_seq)
    select event.seq from event join created on created.id = event.session_id
     where created.callback is null
       and not exists (select 1 from webhook_destination d
                        where d.tenant_id = created.tenant_id and d.environment = created.environment and d.active
                          and (d.events is null or d.events @> '["session.status_changed"]'))
    returning event_seq
  )
  select created.*, event.seq as event_seq, exists (select 1 from webhooks_done w where w.event_seq = event.seq) as webhooks_done
    from created join event on event.session_id = created.id`;

/** A create's idempotency slot as one string. */
function slotOf(row: CreateRow): string {
  return `${row.tenant_id}\u0000${row.environment}\u0000${row.workflow_id}\u0000${row.vendor_data}`;
}

/**
 * Writes a group of creates with one statement; null for each create whose slot was taken. Rows
 * go in slot order, so that two batches never wait on each other's slots in opposite orders.
 */
async function insertSessions(em: EntityManager, rows: CreateRow[]): Promise<(CreatedRow | null)[]> {
  const ordered = rows
    .map((row) => ({ row, slot: slotOf(row) }))
    .sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0))
    .map(({ row }, ord) => ({ ...row, ord }));
  const created = await hotQuery<CreatedRow>(em, 'session_create', INSERT_SESSIONS_SQL, [JSON.stringify(ordered)]);
  const byId = new Map(created.map((row) => [row.id, row]));
  return rows.map((row) => byId.get(row.id) ?? null);
}

/**
 * Creates a session's rows, grouped with concurrent creates into one statement; resolves with the
 * created row, or null when an active session holds the (tenant, environment, workflow,
 * vendor_data) slot. Outside transactions only (like hotQuery).
 */
export function insertSession(em: EntityManager, row: CreateRow): Promise<CreatedRow | null> {
  return batcherFor(em, 'session_create', { concurrency: CREATE_BATCH_CONCURRENCY, max: CREATE_BATCH_MAX, run: insertSessions }).submit(
    row,
  );
}
