/**
 * The decision read model, built in one place: the GraphQL `decision` field, the REST decision
 * endpoint, the event snapshots that become v3 webhook bodies, and the imports of shared sessions
 * all go through {@link decisionOf}, which holds the spec's rule 2 ("compliance level and service
 * token only when approved", {@link approvedOnly}) once, and {@link decisionJson} writes it as the
 * REST decision endpoint answers it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StoredReason } from '../../entities/session.entity.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { DecisionSnapshotter } from '../events/outbox.js';
import type { NodeResult, SessionStatus } from '../domain/types.js';
import { definedFields } from '../shared/input-rules.js';
import { explainReason, type ReasonExplanation } from '../domain/reasons.js';
import { nodeCause } from '../domain/verdict.js';
import { currentTokens } from './service-tokens.js';
import { readNodeResults, readSessions, type SessionRecord } from './session-record.js';

/** What the decision shows of one node result: the domain's {@link NodeResult} and its node (the GraphQL field adds its own columns). */
export interface DecisionNodeResult extends Omit<NodeResult, 'warnings'> {
  nodeType: string;
  /** As stored, or as GraphQL returns them (an absent field as null). */
  warnings: readonly { code: string; message: string; field?: string | null }[];
}

/** A reason as the decision lists it (GraphQL writes absent ids as null). */
export interface DecisionReason {
  code: string;
  message: string;
  nodeType?: string | null;
  listId?: string | null;
  entryId?: string | null;
  /** The catalogue code of what happened (src/domain/reasons.ts). */
  cause?: string | null;
  category?: string | null;
  severity?: string | null;
  retryable?: boolean | null;
}

/** A stored reason with the catalogue's explanation: what integrators and reviewers read. */
export type ExplainedReason = StoredReason & ReasonExplanation;

/** A session's decision: the verdict, or the current status and the results so far before one. */
export interface Decision<Result extends DecisionNodeResult = DecisionNodeResult> {
  sessionId: string;
  status: SessionStatus;
  workflowId: string;
  /** The workflow revision that decided the session; null for sessions older than revisions. */
  workflowRevision: number | null;
  vendorData: string;
  /** Only when approved. */
  complianceLevel: string | null;
  /** The session's current service token; only when approved. */
  serviceToken: string | null;
  nodeResults: Result[];
  reasons: ExplainedReason[];
  metadata: Record<string, unknown> | null;
}

/** A decision as the REST decision endpoint and the webhook bodies write it (snake_case, absent fields left out). */
export type DecisionJson = Record<string, unknown>;

/** The session fields a decision is made of. */
export type DecisionSession = Pick<
  SessionRecord,
  'id' | 'status' | 'workflowId' | 'vendorData' | 'complianceLevel' | 'reasons' | 'metadata'
> &
  Partial<Pick<SessionRecord, 'workflowRevision'>>;

/** Spec rule 2: the compliance level and the service token are shown only while the session is approved. */
export function approvedOnly<T>(status: SessionStatus, value: T | null | undefined): T | null {
  return status === 'approved' ? (value ?? null) : null;
}

/** The decision of a session from its row, its node results (in node result order) and its current service token. */
export function decisionOf<Result extends DecisionNodeResult>(
  session: DecisionSession,
  nodeResults: Result[],
  token: string | null,
): Decision<Result> {
  return {
    sessionId: session.id,
    status: session.status,
    workflowId: session.workflowId,
    workflowRevision: session.workflowRevision ?? null,
    vendorData: session.vendorData,
    complianceLevel: approvedOnly(session.status, session.complianceLevel),
    serviceToken: approvedOnly(session.status, token),
    nodeResults,
    reasons: explainReasons(session.reasons, nodeResults),
    metadata: session.metadata ?? null,
  };
}

/** Verdict rule codes whose cause is the outcome of their node (for reasons stored before causes existed). */
const NODE_RULES: Record<string, string> = {
  required_node_failed: 'step_failed',
  optional_node_failed: 'step_failed',
  node_review: 'step_review',
  warning: 'step_review',
};

/** The stored reasons with the catalogue's cause, category, severity and retryable (older rows get their cause from their node's result). */
export function explainReasons(reasons: readonly StoredReason[], nodeResults: readonly DecisionNodeResult[]): ExplainedReason[] {
  return reasons.map((reason) => ({
    ...reason,
    ...explainReason(reason, () => {
      const fallback = NODE_RULES[reason.code];
      if (fallback === undefined) return reason.code;
      const result = nodeResults.find((row) => row.nodeType === reason.nodeType);
      return nodeCause(
        result && { details: result.details, warnings: [...result.warnings].map((w) => ({ ...w, field: w.field ?? undefined })) },
        fallback,
      );
    }),
  }));
}

/**
 * The decision as of a status change whose new status is `status`: unchanged when the session is
 * still there, else that status without level and token (a session that moved on within the same
 * transaction does not lend its later verdict to the earlier event).
 */
export function decisionAt<Result extends DecisionNodeResult>(decision: Decision<Result>, status: SessionStatus): Decision<Result> {
  if (status === decision.status) return decision;
  return { ...decision, status, complianceLevel: null, serviceToken: null };
}

/** The decision of a session just created: pending, every node pending, as {@link readDecisions} would read it. */
export function pendingDecision(
  session: Pick<DecisionSession, 'id' | 'workflowId' | 'vendorData' | 'metadata' | 'workflowRevision'>,
  nodes: readonly { type: string; required: boolean; provider: string }[],
): Decision {
  // Created together, the results are in node type order (node result order is creation time, then type).
  const nodeResults = [...nodes]
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .map((node) => ({
      nodeType: node.type,
      status: 'pending' as const,
      required: node.required,
      provider: node.provider,
      warnings: [],
      details: {},
    }));
  return decisionOf({ ...session, status: 'pending', complianceLevel: null, reasons: [] }, nodeResults, null);
}

/** The shape {@link decisionJson} reads: a {@link Decision}, or the GraphQL decision fragment REST receives. */
export interface DecisionFields {
  sessionId: string;
  status: SessionStatus;
  workflowId: string;
  workflowRevision?: number | null;
  vendorData: string;
  complianceLevel?: string | null;
  serviceToken?: string | null;
  nodeResults: readonly DecisionNodeResult[];
  reasons: readonly DecisionReason[];
  metadata?: Record<string, unknown> | null;
}

/** A decision as the spec's Decision JSON: node results keyed by node type, snake_case, absent fields left out. */
export function decisionJson(decision: DecisionFields): DecisionJson {
  return definedFields({
    session_id: decision.sessionId,
    status: decision.status,
    workflow_id: decision.workflowId,
    // Additive (issue 27): the revision that decided; left out for sessions older than revisions.
    workflow_revision: decision.workflowRevision ?? undefined,
    vendor_data: decision.vendorData,
    compliance_level: decision.complianceLevel,
    service_token: decision.serviceToken,
    node_results: Object.fromEntries(
      decision.nodeResults.map((row) => [
        row.nodeType,
        {
          status: row.status,
          required: row.required,
          provider: row.provider,
          warnings: row.warnings.map((warning) => definedFields({ ...warning })),
          details: row.details,
        },
      ]),
    ),
    reasons: decision.reasons.map((reason) =>
      definedFields({
        code: reason.code,
        message: reason.message,
        node_type: reason.nodeType,
        list_id: reason.listId,
        entry_id: reason.entryId,
        cause: reason.cause,
        category: reason.category,
        severity: reason.severity,
        retryable: reason.retryable,
      }),
    ),
    metadata: decision.metadata,
  });
}

/**
 * The current decisions of sessions, read through `em` (a transaction sees its own writes): the
 * same row, node result and token reads the API's loaders make, three statements for the batch.
 */
export async function readDecisions(
  em: EntityManager,
  secrets: ServiceSecrets,
  sessionIds: readonly string[],
): Promise<Map<string, Decision>> {
  const decisions = new Map<string, Decision>();
  if (sessionIds.length === 0) return decisions;
  // One after another: inside a transaction the three share its one connection.
  const sessions = await readSessions(em, sessionIds);
  const nodeResults = await readNodeResults(em, sessionIds);
  const tokens = await currentTokens(em, secrets, sessionIds);
  for (const session of sessions) {
    const results = nodeResults.filter((row) => row.sessionId === session.id);
    decisions.set(session.id, decisionOf(session, results, tokens.get(session.id) ?? null));
  }
  return decisions;
}

/** A decision's JSON sealed for storage beside its event (it may hold a service token). */
export function sealDecision(secrets: ServiceSecrets, decision: Decision): string {
  return secrets.encrypt(JSON.stringify(decisionJson(decision)));
}

/** The snapshot writer of the event bus: reads decisions with {@link readDecisions}, each as of its change's status, and seals them. */
export function decisionSnapshotter(secrets: ServiceSecrets): DecisionSnapshotter {
  return {
    async snapshots(tx, requests) {
      const decisions = await readDecisions(tx, secrets, [...new Set(requests.map((request) => request.sessionId))]);
      return requests.map(({ sessionId, status }) => {
        const decision = decisions.get(sessionId);
        return decision ? sealDecision(secrets, decisionAt(decision, status)) : null;
      });
    },
  };
}
