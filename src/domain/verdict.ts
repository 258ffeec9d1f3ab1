/**
 * The verdict engine (docs/design.md "Decisions") as one pure function: given a workflow, the node
 * results so far, list hits and the AML score, say whether the session is decided and why.
 */
import { DEFAULT_AML_SCORE_THRESHOLD } from './workflow.js';
import type { ListHit, NodeResult, NodeType, Warning } from './types.js';

/**
 * The catalogue code a node's outcome stands for: its `result_code` unless that says nothing
 * (`clear`, absent), else its first warning's code, else `fallback`. Also reads reasons stored
 * before causes existed, so old decisions say why too.
 */
export function nodeCause(result: Pick<NodeResult, 'details' | 'warnings'> | undefined, fallback: string): string {
  const code = result?.details?.result_code;
  if (typeof code === 'string' && code !== 'clear' && code !== '') return code;
  return result?.warnings?.[0]?.code ?? fallback;
}

export { DEFAULT_AML_SCORE_THRESHOLD };

/** The part of a workflow node the verdict needs. */
export interface VerdictWorkflowNode {
  /** Node type; at most one node of each type per workflow. */
  type: NodeType;
  /** Whether this node must pass for the session to be approved. */
  required: boolean;
  /** `<provider_name>:<job>`; carried for symmetry with the workflow, not used by the rules. */
  provider: string;
}

/** The part of a workflow the verdict needs. */
export interface VerdictWorkflow {
  /** The workflow's nodes in their declared order, which also orders the reasons. */
  nodes: readonly VerdictWorkflowNode[];
  /** Compliance level granted on approval (`basic`, `standard`, ...). */
  complianceLevel: string;
  /** AML score (0–100) at or above which the session declines; `DEFAULT_AML_SCORE_THRESHOLD` when omitted. */
  amlScoreThreshold?: number;
}

/** Everything the verdict depends on; nothing else is read. */
export interface VerdictInput {
  /** The workflow the session runs; its `required` flags win over those copied into node results. */
  workflow: VerdictWorkflow;
  /** Results per node type; a node of the workflow that is missing here counts as pending. */
  nodeResults: Partial<Record<NodeType, NodeResult>>;
  /** List entries that matched the session's data. */
  listHits: readonly ListHit[];
  /** AML score (0–100), or null when no screening has produced one yet. */
  amlScore: number | null;
  /** Warnings found at session level (e.g. `expected_details` mismatches), not tied to one node. */
  sessionWarnings: readonly Warning[];
}

/** Stable reason codes; clients and dashboards key on them, so they never change meaning. */
export const VERDICT_REASON_CODES = [
  'required_node_failed',
  'list_auto_decline',
  'aml_score_at_or_above_threshold',
  'list_review',
  'node_review',
  'required_node_skipped',
  'warning',
  'optional_node_failed',
  'required_node_pending',
  'rule_decline',
  'rule_review',
  'rule_approve',
] as const;
/** One of the stable reason codes. */
export type VerdictReasonCode = (typeof VERDICT_REASON_CODES)[number];

/** Reason codes that decline a session on their own. */
export const DECLINE_REASON_CODES: readonly VerdictReasonCode[] = [
  'required_node_failed',
  'list_auto_decline',
  'aml_score_at_or_above_threshold',
  'rule_decline',
];
/** Reason codes that send a session to review once no decline applies. */
export const REVIEW_REASON_CODES: readonly VerdictReasonCode[] = [
  'list_review',
  'node_review',
  'required_node_skipped',
  'warning',
  'rule_review',
];

/** One cause found while deciding, so `node_results` and dashboards can show what gated. */
export interface VerdictReason {
  /** Stable machine-readable code. */
  code: VerdictReasonCode;
  /** Human-readable explanation. */
  message: string;
  /** The node the cause belongs to, when it belongs to one. */
  nodeType?: NodeType;
  /** The list that matched, for list reasons. */
  listId?: string;
  /** The list entry that matched, for list reasons. */
  entryId?: string;
  /**
   * The catalogue code of what happened (src/domain/reasons.ts): the node's result code or warning
   * code when there is one (`document_expired`, `name_mismatch`), else the rule's own code.
   */
  cause: string;
}

/** A decided status, or null while the session cannot be decided yet. */
export type VerdictStatus = 'approved' | 'declined' | 'in_review' | null;

/** The verdict engine's answer. */
export interface Verdict {
  /** null means "not decided yet": some required node is still pending and nothing declines. */
  status: VerdictStatus;
  /** The workflow's compliance level; present only when approved (spec rule 2). */
  complianceLevel?: string;
  /** Every cause found, decline causes first, then review causes, then informational ones. */
  reasons: VerdictReason[];
  /**
   * The node of the first cause that decided the status (for undecided sessions, the first
   * pending required node); absent when approved or when the deciding cause has no node.
   */
  gatingNode?: NodeType;
}

/** Decides a session. Throws RangeError on a threshold or score outside 0–100 (a programming error, not input). */
export function decideVerdict(input: VerdictInput): Verdict {
  const { workflow, nodeResults, listHits, amlScore, sessionWarnings } = input;
  const threshold = workflow.amlScoreThreshold ?? DEFAULT_AML_SCORE_THRESHOLD;
  assertScore('amlScoreThreshold', threshold);
  if (amlScore !== null) assertScore('amlScore', amlScore);

  const declines: VerdictReason[] = [];
  const reviews: VerdictReason[] = [];
  const infos: VerdictReason[] = [];
  const pending: VerdictReason[] = [];

  for (const node of workflow.nodes) {
    const result = nodeResults[node.type];
    const status = result?.status ?? 'pending';
    if (status === 'failed' && node.required) {
      declines.push({
        code: 'required_node_failed',
        message: `Required node ${node.type} failed.`,
        nodeType: node.type,
        cause: nodeCause(result, 'step_failed'),
      });
    }
    if (status === 'failed' && !node.required) {
      // An optional node may fail without consequence; it is recorded so reviewers still see it.
      infos.push({
        code: 'optional_node_failed',
        message: `Optional node ${node.type} failed; it does not change the outcome.`,
        nodeType: node.type,
        cause: nodeCause(result, 'step_failed'),
      });
    }
    // Only required nodes hold the verdict back; an optional node the end user never did is ignored.
    if (status === 'pending' && node.required) {
      pending.push({
        code: 'required_node_pending',
        message: `Required node ${node.type} has no result yet.`,
        nodeType: node.type,
        cause: 'required_node_pending',
      });
    }
    // A retake is a result still to come: it holds the verdict back like a pending node.
    if (status === 'resubmission_requested' && node.required) {
      pending.push({
        code: 'required_node_pending',
        message: `Required node ${node.type} waits for a retake.`,
        nodeType: node.type,
        cause: nodeCause(result, 'required_node_pending'),
      });
    }
    if (status === 'review') {
      reviews.push({
        code: 'node_review',
        message: `Node ${node.type} asked for a manual review.`,
        nodeType: node.type,
        cause: nodeCause(result, 'step_review'),
      });
    }
    if (status === 'skipped' && node.required) {
      // A skipped required node is not a pass: nobody verified what the workflow demands, so a
      // human decides. Skipped optional nodes are what "optional" means and count for nothing.
      reviews.push({
        code: 'required_node_skipped',
        message: `Required node ${node.type} was skipped.`,
        nodeType: node.type,
        cause: 'required_node_skipped',
      });
    }
    for (const warning of result?.warnings ?? []) {
      reviews.push({ code: 'warning', message: describeWarning(warning), nodeType: node.type, cause: warning.code });
    }
  }

  for (const hit of listHits) {
    const reason: VerdictReason = {
      code: hit.policy === 'auto_decline' ? 'list_auto_decline' : 'list_review',
      message: `Data of node ${hit.nodeType} matched an entry of list "${hit.listName}" (policy ${hit.policy}).`,
      nodeType: hit.nodeType,
      listId: hit.listId,
      entryId: hit.entryId,
      cause: hit.policy === 'auto_decline' ? 'list_auto_decline' : 'list_review',
    };
    (hit.policy === 'auto_decline' ? declines : reviews).push(reason);
  }

  if (amlScore !== null && amlScore >= threshold) {
    declines.push({
      code: 'aml_score_at_or_above_threshold',
      message: `AML score ${amlScore} is at or above the workflow threshold ${threshold}.`,
      nodeType: 'aml_screening',
      cause: 'aml_score_at_or_above_threshold',
    });
  }

  for (const warning of sessionWarnings) {
    reviews.push({ code: 'warning', message: describeWarning(warning), cause: warning.code });
  }

  if (declines.length > 0) {
    // Decline fires at once, even with required nodes pending: no later result can undo it.
    return withGate('declined', [...declines, ...reviews, ...infos], declines[0]);
  }
  if (pending.length > 0) {
    return withGate(null, [...pending, ...reviews, ...infos], pending[0]);
  }
  if (reviews.length > 0) {
    return withGate('in_review', [...reviews, ...infos], reviews[0]);
  }
  return { status: 'approved', complianceLevel: workflow.complianceLevel, reasons: infos };
}

function withGate(status: VerdictStatus, reasons: VerdictReason[], decisive: VerdictReason | undefined): Verdict {
  const gatingNode = decisive?.nodeType;
  return gatingNode === undefined ? { status, reasons } : { status, reasons, gatingNode };
}

function describeWarning(warning: Warning): string {
  const field = warning.field === undefined ? '' : ` (field ${warning.field})`;
  return `Warning ${warning.code}${field}: ${warning.message}`;
}

function assertScore(name: string, value: number): void {
  if (Number.isFinite(value) && value >= 0 && value <= 100) return;
  throw new RangeError(`${name} must be a number from 0 to 100, got ${value}.`);
}
