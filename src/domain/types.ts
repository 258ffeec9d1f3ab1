/**
 * Vocabulary shared by every layer: session statuses, node types, node results.
 * Plain types and constants only; no I/O.
 */

/** Every status a session can be in; `expired` is our extension (the spec leaves expiry open). */
export const SESSION_STATUSES = ['pending', 'in_progress', 'in_review', 'approved', 'declined', 'expired'] as const;
/** A session's status. */
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Statuses a session can be shared from (spec rule 1). */
export const SHAREABLE_STATUSES: readonly SessionStatus[] = ['approved', 'declined', 'in_review'];

/** Node types a workflow can be composed of. */
export const NODE_TYPES = [
  'document_verification',
  'biometric_kyc',
  'aml_screening',
  'phone_verification',
  'proof_of_address',
  'business_registry',
] as const;
/** One step of a workflow. */
export type NodeType = (typeof NODE_TYPES)[number];

/** Outcome of one node: `pending` until the end user submits its input. */
export const NODE_STATUSES = ['pending', 'passed', 'failed', 'review', 'skipped', 'resubmission_requested'] as const;
/** A node result's status. */
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** A non-blocking finding (name or details mismatch) listed beside a result; sends a session to review. */
export interface Warning {
  /** Machine-readable code, e.g. `name_mismatch`. */
  code: string;
  /** Human-readable explanation. */
  message: string;
  /** The field the warning is about, when there is one. */
  field?: string;
}

/** The stored result of one workflow node. */
export interface NodeResult {
  status: NodeStatus;
  required: boolean;
  /** `<provider_name>:<job>` that produced the result. */
  provider: string;
  warnings: Warning[];
  /** Check-specific details (extracted fields, scores, reason codes); JSON-serialisable. */
  details: Record<string, unknown>;
}

/** A list entry that matched while a session was decided. */
export interface ListHit {
  listId: string;
  listName: string;
  entryId: string;
  policy: 'auto_decline' | 'review';
  /** The node whose data matched the entry. */
  nodeType: NodeType;
}
