/**
 * Raw SQL: (a) `npm run bench:sessions`: the session read is one join, group-committed, without
 * hydration (get decision 97 % of the bare baseline on PostgreSQL 15; 67 % before).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { openPersonalData } from '../auth/personal-data.js';
import { batcherFor } from '../db/batcher.js';
import { hotQuery } from '../db/native.js';
import type { ContactDetails, ExpectedDetails, Session, StoredReason } from '../../entities/session.entity.js';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { NodeResult, NodeStatus, NodeType, SessionStatus, Warning } from '../domain/types.js';

/**
 * A session as the API presents it: plain data read with one SQL statement. The hot read and
 * create paths use it instead of ORM entities, whose hydration costs more than the query itself.
 */
export interface SessionRecord {
  id: string;
  tenantId: string;
  environment: ApiKeyEnvironment;
  workflowId: string;
  /** The workflow revision the session runs (null for sessions older than revisions). */
  workflowRevision: number | null;
  vendorData: string;
  status: SessionStatus;
  callback: string | null;
  /** Where the hosted flow sends the browser at the end, when set at creation. */
  redirectUrl: string | null;
  /** Language of the hosted flow chosen at creation, when chosen. */
  language: string | null;
  metadata: Record<string, unknown> | null;
  contactDetails: ContactDetails | null;
  expectedDetails: ExpectedDetails | null;
  warnings: Warning[];
  reasons: StoredReason[];
  complianceLevel: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  /** When it last entered review (the review SLA counts from it); null when it never did. */
  reviewEnteredAt: Date | null;
}

/** One node's stored result as the API presents it: the domain's {@link NodeResult} with where it belongs and its progress. */
export interface NodeResultRecord extends NodeResult {
  sessionId: string;
  nodeType: NodeType;
  /** Submissions of the node so far. */
  attempts: number;
  /** Why the node waits for a retake, while `resubmission_requested`. */
  resubmissionReason?: string | null;
  updatedAt: Date;
}

/** A `session` row as the driver returns it. */
export interface SessionRow {
  id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  workflow_id: string;
  workflow_revision: number | null;
  vendor_data: string;
  status: SessionStatus;
  callback: string | null;
  redirect_url: string | null;
  language: string | null;
  metadata: Record<string, unknown> | null;
  contact_details: ContactDetails | null;
  expected_details: ExpectedDetails | null;
  warnings: Warning[];
  reasons: StoredReason[];
  compliance_level: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  expires_at: Date | string;
  decided_at: Date | string | null;
  review_entered_at: Date | string | null;
}

/**
 * A timestamp column as a Date: the ORM's pool leaves `timestamptz` as PostgreSQL's ISO text
 * (it converts dates itself), and JSON aggregates carry them as text too.
 */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

/** The `session` columns a {@link SessionRecord} is built from, for `select` and `returning`. */
export const SESSION_COLUMNS = `id, tenant_id, environment, workflow_id, workflow_revision, vendor_data, status, callback, redirect_url, language,
  metadata, contact_details, expected_details, warnings, reasons, compliance_level, created_at, updated_at, expires_at, decided_at, review_entered_at`;

/** Builds a record from a raw `session` row read through `em` (whose ORM opens the sealed typed details). */
export function sessionRecordFromRow(row: SessionRow, em: EntityManager): SessionRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    workflowId: row.workflow_id,
    workflowRevision: row.workflow_revision ?? null,
    vendorData: row.vendor_data,
    status: row.status,
    callback: row.callback,
    redirectUrl: row.redirect_url,
    language: row.language,
    metadata: row.metadata,
    contactDetails: openPersonalData<ContactDetails | null>(em, row.contact_details),
    expectedDetails: openPersonalData<ExpectedDetails | null>(em, row.expected_details),
    warnings: row.warnings,
    reasons: row.reasons,
    complianceLevel: row.compliance_level,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    expiresAt: toDate(row.expires_at),
    decidedAt: row.decided_at === null ? null : toDate(row.decided_at),
    reviewEnteredAt: row.review_entered_at == null ? null : toDate(row.review_entered_at),
  };
}

/** Builds a record from a loaded entity (the mutation paths, which work on entities). */
export function sessionRecordOf(session: Session): SessionRecord {
  return {
    id: session.id,
    tenantId: session.tenant.id,
    environment: session.environment,
    workflowId: session.workflow.id,
    workflowRevision: session.workflowRevision ?? null,
    vendorData: session.vendorData,
    status: session.status,
    callback: session.callback ?? null,
    redirectUrl: session.redirectUrl ?? null,
    language: session.language ?? null,
    metadata: session.metadata ?? null,
    contactDetails: session.contactDetails ?? null,
    expectedDetails: session.expectedDetails ?? null,
    warnings: session.warnings,
    reasons: session.reasons,
    complianceLevel: session.complianceLevel ?? null,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    expiresAt: session.expiresAt,
    decidedAt: session.decidedAt ?? null,
    reviewEnteredAt: session.reviewEnteredAt ?? null,
  };
}

/** A `session_node_result` row as the driver returns it (timestamps as ISO text). */
interface NodeResultRow {
  session_id: string;
  node_type: NodeType;
  status: NodeStatus;
  required: boolean;
  provider: string;
  warnings: Warning[];
  details: Record<string, unknown>;
  attempts: number;
  resubmission_reason: string | null;
  updated_at: Date | string;
}

/** Builds a node result record from a raw row read through `em` (whose ORM opens the sealed details). */
function nodeResultFromRow(row: NodeResultRow, em: EntityManager): NodeResultRecord {
  return {
    sessionId: row.session_id,
    nodeType: row.node_type,
    status: row.status,
    required: row.required,
    provider: row.provider,
    warnings: row.warnings,
    details: openPersonalData(em, row.details),
    attempts: row.attempts,
    resubmissionReason: row.resubmission_reason,
    updatedAt: toDate(row.updated_at),
  };
}

/** Order of node results everywhere: creation time, then node type. */
const NODE_RESULT_ORDER = 'created_at, node_type';

/** Node results of several sessions in one statement, in node result order. */
export async function readNodeResults(em: EntityManager, sessionIds: readonly string[]): Promise<NodeResultRecord[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.execute<NodeResultRow[]>(
    `select session_id, node_type, status, required, provider, warnings, details, attempts, resubmission_reason, updated_at
       from session_node_result where session_id in (?) order by ${NODE_RESULT_ORDER}`,
    [[...sessionIds]],
  );
  return rows.map((row) => nodeResultFromRow(row, em));
}

/** Sessions by id in one statement, through `em` (a transaction's reads see its own writes); ids without a row are left out. */
export async function readSessions(em: EntityManager, sessionIds: readonly string[]): Promise<SessionRecord[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.execute<SessionRow[]>(`select ${SESSION_COLUMNS} from session where id in (?)`, [[...sessionIds]]);
  return rows.map((row) => sessionRecordFromRow(row, em));
}

/** A session with its node results, read together. */
export interface SessionWithResults {
  session: SessionRecord;
  nodeResults: NodeResultRecord[];
}

/** The session columns, qualified with `s.`, for the join below. */
const QUALIFIED_SESSION_COLUMNS = SESSION_COLUMNS.split(',')
  .map((column) => `s.${column.trim()}`)
  .join(', ');

/**
 * Sessions (`$1`, an array of ids) with their node results, one row per result (or one row with
 * null result columns when there is none). A plain join, cheaper to run and to read than
 * aggregating JSON; written as index lookups per wanted id (unnest, then a lateral join), so the
 * prepared statement's generic plan never scans the tables.
 */
export const READ_SESSIONS_SQL = `
  select ${QUALIFIED_SESSION_COLUMNS}, r.session_id as r_session_id, r.node_type as r_node_type, r.status as r_status,
         r.required as r_required, r.provider as r_provider, r.warnings as r_warnings, r.details as r_details,
         r.attempts as r_attempts, r.resubmission_reason as r_resubmission_reason, r.updated_at as r_updated_at
    from unnest($1::uuid[]) as wanted (id)
    join session s on s.id = wanted.id
    left join lateral (select * from session_node_result where session_id = s.id) r on true
   order by s.id, r.created_at, r.node_type`;

/** Reads running at once per process and database, and most sessions one statement reads. */
const READ_BATCH = { concurrency: 2, max: 64 };

/** A row of {@link READ_SESSION_SQL}: the session, and one node result or nulls. */
type SessionResultRow = SessionRow & {
  r_session_id: string | null;
  r_node_type: NodeType;
  r_status: NodeStatus;
  r_required: boolean;
  r_provider: string;
  r_warnings: Warning[];
  r_details: Record<string, unknown>;
  r_attempts: number;
  r_resubmission_reason: string | null;
  r_updated_at: Date | string;
};

/** Reads sessions (ids in uuid form) with their node results in one statement; null for each id without a row. */
async function readSessionsWithResults(em: EntityManager, sessionIds: string[]): Promise<(SessionWithResults | null)[]> {
  const rows = await hotQuery<SessionResultRow>(em, 'session_read', READ_SESSIONS_SQL, [
    [...new Set(sessionIds.map((id) => id.toLowerCase()))],
  ]);
  const found = new Map<string, SessionWithResults>();
  for (const row of rows) {
    let entry = found.get(row.id);
    if (!entry) {
      entry = { session: sessionRecordFromRow(row, em), nodeResults: [] };
      found.set(row.id, entry);
    }
    if (row.r_session_id === null) continue;
    entry.nodeResults.push(
      nodeResultFromRow(
        {
          session_id: row.r_session_id,
          node_type: row.r_node_type,
          status: row.r_status,
          required: row.r_required,
          provider: row.r_provider,
          warnings: row.r_warnings,
          details: row.r_details,
          attempts: row.r_attempts,
          resubmission_reason: row.r_resubmission_reason,
          updated_at: row.r_updated_at,
        },
        em,
      ),
    );
  }
  return sessionIds.map((id) => found.get(id.toLowerCase()) ?? null);
}

/**
 * Reads one session and its node results; null when no such row. Reads that arrive while others
 * run share one statement (src/db/batcher.ts), which still starts after this call, so it sees
 * every commit made before it. `sessionId` must be a UUID.
 */
export function readSessionWithResults(em: EntityManager, sessionId: string): Promise<SessionWithResults | null> {
  return batcherFor(em, 'session_read', { ...READ_BATCH, run: readSessionsWithResults }).submit(sessionId);
}
