/**
 * The decision as JSON, the one read model of it that the webhook bodies and the event snapshots
 * share: shaped like the REST decision endpoint's answer, with the compliance level and the service
 * token only when approved (spec rule 2).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceSecrets } from '../auth/secrets.js';

/** A decision as the REST decision endpoint and the webhook bodies write it. */
export type DecisionJson = Record<string, unknown>;

/** Node result rows as stored. */
interface NodeResultRow {
  session_id: string;
  node_type: string;
  status: string;
  required: boolean;
  provider: string;
  warnings: { code: string; message: string; field?: string | null }[];
  details: Record<string, unknown>;
}

/** Leaves out null and undefined fields (absent means absent). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null && field !== undefined));
}

/**
 * The current decision of each session, shaped like the REST decision endpoint's JSON: compliance
 * level and service token only when approved (spec rule 2). Three queries for the whole batch.
 */
export async function loadDecisions(tx: EntityManager, sessionIds: string[], secrets: ServiceSecrets): Promise<Map<string, DecisionJson>> {
  const decisions = new Map<string, DecisionJson>();
  if (sessionIds.length === 0) return decisions;
  const ids = JSON.stringify(sessionIds);
  const inIds = `in (select value::uuid from jsonb_array_elements_text(?::jsonb))`;
  const sessions = await tx.execute<
    {
      id: string;
      status: string;
      workflow_id: string;
      vendor_data: string;
      compliance_level: string | null;
      reasons: { code: string; message: string; nodeType?: string; listId?: string; entryId?: string }[];
      metadata: Record<string, unknown> | null;
    }[]
  >(`select id, status, workflow_id, vendor_data, compliance_level, reasons, metadata from session where id ${inIds}`, [ids], 'all');
  const nodeRows = await tx.execute<NodeResultRow[]>(
    `select session_id, node_type, status, required, provider, warnings, details from session_node_result
     where session_id ${inIds} order by created_at, node_type`,
    [ids],
    'all',
  );
  const tokens = await tx.execute<{ session_id: string; token_encrypted: string }[]>(
    `select distinct on (session_id) session_id, token_encrypted from service_token
     where revoked_at is null and session_id ${inIds} order by session_id, issued_at desc`,
    [ids],
    'all',
  );
  const tokenBySession = new Map(tokens.map((row) => [row.session_id, row.token_encrypted]));
  for (const session of sessions) {
    const approved = session.status === 'approved';
    const sealedToken = approved ? tokenBySession.get(session.id) : undefined;
    const nodeResults = Object.fromEntries(
      nodeRows
        .filter((row) => row.session_id === session.id)
        .map((row) => [
          row.node_type,
          {
            status: row.status,
            required: row.required,
            provider: row.provider,
            warnings: row.warnings.map((warning) => withoutNulls({ ...warning })),
            details: row.details,
          },
        ]),
    );
    decisions.set(
      session.id,
      withoutNulls({
        session_id: session.id,
        status: session.status,
        workflow_id: session.workflow_id,
        vendor_data: session.vendor_data,
        compliance_level: approved ? session.compliance_level : null,
        service_token: sealedToken ? secrets.decrypt(sealedToken) : null,
        node_results: nodeResults,
        reasons: session.reasons.map((reason) =>
          withoutNulls({
            code: reason.code,
            message: reason.message,
            node_type: reason.nodeType,
            list_id: reason.listId,
            entry_id: reason.entryId,
          }),
        ),
        metadata: session.metadata,
      }),
    );
  }
  return decisions;
}

/**
 * The decision as of a status change whose new status is `status`: the same read model with that
 * status, and the level and token only if it is an approval (a session that moved on within the
 * same transaction does not lend its later verdict to the earlier event).
 */
export function decisionAt(decision: DecisionJson, status: string): DecisionJson {
  if (status === 'approved' && decision.status === 'approved') return decision;
  const { compliance_level: _level, service_token: _token, ...rest } = decision;
  return { ...rest, status };
}

/** The decision of a session just created: pending, every node pending, as {@link loadDecisions} would read it. */
export function pendingDecision(session: {
  id: string;
  workflowId: string;
  vendorData: string;
  nodes: readonly { type: string; required: boolean; provider: string }[];
  metadata: Record<string, unknown> | null;
}): DecisionJson {
  const nodeResults = Object.fromEntries(
    [...session.nodes]
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
      .map((node) => [node.type, { status: 'pending', required: node.required, provider: node.provider, warnings: [], details: {} }]),
  );
  return withoutNulls({
    session_id: session.id,
    status: 'pending',
    workflow_id: session.workflowId,
    vendor_data: session.vendorData,
    node_results: nodeResults,
    reasons: [],
    metadata: session.metadata,
  });
}
