import type { EntityManager } from '@mikro-orm/postgresql';
import { hotQuery } from '../db/native.js';
import type { ContactDetails, ExpectedDetails, Session, StoredReason } from '../../entities/session.entity.js';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { NodeStatus, NodeType, SessionStatus, Warning } from '../domain/types.js';

/**
 * A session as the API presents it: plain data read with one SQL statement. The hot read and
 * create paths use it instead of ORM entities, whose hydration costs more than the query itself.
 */
export interface SessionRecord {
  id: string;
  tenantId: string;
  environment: ApiKeyEnvironment;
  workflowId: string;
  vendorData: string;
  status: SessionStatus;
  callback: string | null;
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
}

/** One node's stored result as the API presents it. */
export interface NodeResultRecord {
  sessionId: string;
  nodeType: NodeType;
  status: NodeStatus;
  required: boolean;
  provider: string;
  warnings: Warning[];
  details: Record<string, unknown>;
  updatedAt: Date;
}

/** A `session` row as the driver returns it. */
export interface SessionRow {
  id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  workflow_id: string;
  vendor_data: string;
  status: SessionStatus;
  callback: string | null;
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
}

/**
 * A timestamp column as a Date: the ORM's pool leaves `timestamptz` as PostgreSQL's ISO text
 * (it converts dates itself), and JSON aggregates carry them as text too.
 */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

/** The `session` columns a {@link SessionRecord} is built from, for `select` and `returning`. */
export const SESSION_COLUMNS = `id, tenant_id, environment, workflow_id, vendor_data, status, callback, metadata, contact_details,
  expected_details, warnings, reasons, compliance_level, created_at, updated_at, expires_at, decided_at`;

/** Builds a record from a raw `session` row. */
export function sessionRecordFromRow(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    workflowId: row.workflow_id,
    vendorData: row.vendor_data,
    status: row.status,
    callback: row.callback,
    metadata: row.metadata,
    contactDetails: row.contact_details,
    expectedDetails: row.expected_details,
    warnings: row.warnings,
    reasons: row.reasons,
    complianceLevel: row.compliance_level,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    expiresAt: toDate(row.expires_at),
    decidedAt: row.decided_at === null ? null : toDate(row.decided_at),
  };
}

/** Builds a record from a loaded entity (the mutation paths, which work on entities). */
export function sessionRecordOf(session: Session): SessionRecord {
  return {
    id: session.id,
    tenantId: session.tenant.id,
    environment: session.environment,
    workflowId: session.workflow.id,
    vendorData: session.vendorData,
    status: session.status,
    callback: session.callback ?? null,
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
  };
}

/** A `session_node_result` row as the driver returns it (timestamps as text when read through JSON). */
interface NodeResultRow {
  session_id: string;
  node_type: NodeType;
  status: NodeStatus;
  required: boolean;
  provider: string;
  warnings: Warning[];
  details: Record<string, unknown>;
  updated_at: Date | string;
}

/** Builds a node result record from a raw row. */
function nodeResultFromRow(row: NodeResultRow): NodeResultRecord {
  return {
    sessionId: row.session_id,
    nodeType: row.node_type,
    status: row.status,
    required: row.required,
    provider: row.provider,
    warnings: row.warnings,
    details: row.details,
    updatedAt: toDate(row.updated_at),
  };
}

/** Order of node results everywhere: creation time, then node type. */
const NODE_RESULT_ORDER = 'created_at, node_type';

/** Node results of several sessions in one statement, grouped per session id in the order asked. */
export async function readNodeResults(em: EntityManager, sessionIds: readonly string[]): Promise<NodeResultRecord[][]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.execute<NodeResultRow[]>(
    `select session_id, node_type, status, required, provider, warnings, details, updated_at
       from session_node_result where session_id in (?) order by ${NODE_RESULT_ORDER}`,
    [[...sessionIds]],
  );
  const groups = new Map<string, NodeResultRecord[]>(sessionIds.map((id) => [id, []]));
  for (const row of rows) groups.get(row.session_id)?.push(nodeResultFromRow(row));
  return sessionIds.map((id) => groups.get(id) ?? []);
}

/** A session with its node results, read together. */
export interface SessionWithResults {
  session: SessionRecord;
  nodeResults: NodeResultRecord[];
}

/** Reads one session and its node results in a single statement; null when no such row. */
export async function readSessionWithResults(em: EntityManager, sessionId: string): Promise<SessionWithResults | null> {
  const [row] = await hotQuery<SessionRow & { node_results: NodeResultRow[] }>(
    em,
    'session_read',
    `select ${SESSION_COLUMNS},
            coalesce((select json_agg(json_build_object(
                        'session_id', r.session_id, 'node_type', r.node_type, 'status', r.status, 'required', r.required,
                        'provider', r.provider, 'warnings', r.warnings, 'details', r.details, 'updated_at', r.updated_at)
                        order by r.${NODE_RESULT_ORDER.split(', ').join(', r.')})
                        from session_node_result r where r.session_id = session.id), '[]'::json) as node_results
       from session where id = $1`,
    [sessionId],
  );
  if (!row) return null;
  return { session: sessionRecordFromRow(row), nodeResults: row.node_results.map(nodeResultFromRow) };
}
