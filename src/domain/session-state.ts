/**
 * The session state machine (docs/design.md "Sessions"): which status may follow which, and who may
 * cause it. Pure data and functions; persistence, auditing and events are the caller's business.
 */
import { SESSION_STATUSES, type SessionStatus } from './types.js';

/** Who causes a status change; each allowed transition belongs to exactly one actor. */
export const TRANSITION_ACTORS = ['end_user', 'decision_engine', 'reviewer', 'expiry', 'monitoring'] as const;
/** One of the actors that may change a session's status. */
export type TransitionActor = (typeof TRANSITION_ACTORS)[number];

/** One row of the transition table, kept as data so the API docs can render it. */
export interface AllowedTransition {
  /** Status the session is in before the change. */
  from: SessionStatus;
  /** Status the session is in after the change. */
  to: SessionStatus;
  /** The only actor allowed to make this change. */
  actor: TransitionActor;
  /** True when the change must carry a non-empty reason, because it is audited as a human decision. */
  reasonRequired: boolean;
  /** What causes the change, for documentation. */
  trigger: string;
}

/** Every allowed transition; anything not listed here is refused. */
export const ALLOWED_TRANSITIONS: readonly AllowedTransition[] = [
  {
    from: 'pending',
    to: 'in_progress',
    actor: 'end_user',
    reasonRequired: false,
    trigger: 'The end user submits the first node input.',
  },
  {
    from: 'in_progress',
    to: 'approved',
    actor: 'decision_engine',
    reasonRequired: false,
    trigger: 'Every required node passed and nothing sends the session to review.',
  },
  {
    from: 'in_progress',
    to: 'declined',
    actor: 'decision_engine',
    reasonRequired: false,
    trigger: 'A required node failed, an auto_decline list matched, or the AML score reached the threshold.',
  },
  {
    from: 'in_progress',
    to: 'in_review',
    actor: 'decision_engine',
    reasonRequired: false,
    trigger: 'A review list matched, a node asked for review, or a warning was raised.',
  },
  {
    from: 'in_review',
    to: 'approved',
    actor: 'reviewer',
    reasonRequired: true,
    trigger: 'A reviewer approves the session.',
  },
  {
    from: 'in_review',
    to: 'declined',
    actor: 'reviewer',
    reasonRequired: true,
    trigger: 'A reviewer declines the session.',
  },
  {
    from: 'in_review',
    to: 'in_progress',
    actor: 'reviewer',
    reasonRequired: true,
    trigger: 'A reviewer asks the end user to retake one step (its result becomes resubmission_requested).',
  },
  {
    from: 'pending',
    to: 'expired',
    actor: 'expiry',
    reasonRequired: false,
    trigger: 'expires_at passed before the end user started.',
  },
  {
    from: 'in_progress',
    to: 'expired',
    actor: 'expiry',
    reasonRequired: false,
    trigger: 'expires_at passed before every required node had a result.',
  },
  {
    from: 'approved',
    to: 'in_review',
    actor: 'monitoring',
    reasonRequired: true,
    trigger: 'Ongoing AML monitoring found a hit, after a list import, that the approval did not know of.',
  },
];

/**
 * Statuses with no way out. `in_review` is not one of them: a reviewer still decides it, even
 * though the spec calls it "terminal" for sharing (see `SHAREABLE_STATUSES` for that meaning).
 */
export const TERMINAL_STATUSES: readonly SessionStatus[] = SESSION_STATUSES.filter(
  (status) => !ALLOWED_TRANSITIONS.some((transition) => transition.from === status),
);

/**
 * Statuses of an active session: it holds its (tenant, environment, workflow, vendor_data) slot,
 * so a create with the same values returns it, and it cannot be erased yet.
 */
export const ACTIVE_STATUSES = ['pending', 'in_progress', 'in_review'] as const satisfies readonly SessionStatus[];

/** Statuses in which a session accepts end-user input, and in which `expires_at` ends it. */
export const INPUT_STATUSES = ['pending', 'in_progress'] as const satisfies readonly SessionStatus[];

/** Whether a session in this status holds its slot (see {@link ACTIVE_STATUSES}). */
export function isActive(status: SessionStatus): boolean {
  return (ACTIVE_STATUSES as readonly SessionStatus[]).includes(status);
}

/** Whether a session in this status accepts end-user input. */
export function acceptsInput(status: SessionStatus): boolean {
  return (INPUT_STATUSES as readonly SessionStatus[]).includes(status);
}

/** True when a session still taking input is past its `expires_at`: it must be expired, never used. */
export function isPastExpiry(session: { status: SessionStatus; expiresAt: Date }, now: Date = new Date()): boolean {
  return acceptsInput(session.status) && session.expiresAt.getTime() <= now.getTime();
}

/** `status in (…)` over a status set for SQL, so that queries name the sets the code uses. */
export function statusInSql(statuses: readonly SessionStatus[], column = 'status'): string {
  return `${column} in (${statuses.map((status) => `'${status}'`).join(', ')})`;
}

/**
 * The active-session predicate in SQL. The partial unique index `session_active_idempotency_index` (migration
 * Migration20261122000200Sessions) and `session_workflow_index` has exactly this predicate, which `on conflict … where` must
 * repeat for PostgreSQL to infer the index.
 */
export const ACTIVE_STATUSES_SQL = statusInSql(ACTIVE_STATUSES);

/** The input-taking predicate in SQL; the partial index `session_expiry_index` has exactly this one. */
export const INPUT_STATUSES_SQL = statusInSql(INPUT_STATUSES);

/** Whether a session in this status can never change again (so expiry and reviews skip it). */
export function isTerminal(status: SessionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Finds the table row for a change, so callers can read `reasonRequired` without repeating the rules. */
export function findTransition(from: SessionStatus, to: SessionStatus, actor: TransitionActor): AllowedTransition | undefined {
  return ALLOWED_TRANSITIONS.find((transition) => transition.from === from && transition.to === to && transition.actor === actor);
}

/** Whether the table allows the change; the reviewer's reason is checked by `assertTransition`. */
export function canTransition(from: SessionStatus, to: SessionStatus, actor: TransitionActor): boolean {
  return findTransition(from, to, actor) !== undefined;
}

/** The transitions leaving a status, optionally for one actor, to tell a caller what it could do instead. */
export function transitionsFrom(from: SessionStatus, actor?: TransitionActor): readonly AllowedTransition[] {
  return ALLOWED_TRANSITIONS.filter((transition) => transition.from === from && (actor === undefined || transition.actor === actor));
}

/** Why a change was refused: not in the table, or in the table but missing its mandatory reason. */
export type InvalidTransitionRule = 'transition_not_allowed' | 'reason_required';

/** Refusal of a status change; maps to the error catalogue's `invalid_transition` (409). */
export class InvalidTransitionError extends Error {
  /** Error catalogue code, shared by REST and GraphQL. */
  readonly code = 'invalid_transition' as const;
  /** Which rule refused the change, for callers that map a missing reason to a field error. */
  readonly rule: InvalidTransitionRule;
  /** Status the session was in. */
  readonly from: SessionStatus;
  /** Status that was asked for. */
  readonly to: SessionStatus;
  /** Who asked for it. */
  readonly actor: TransitionActor;

  constructor(from: SessionStatus, to: SessionStatus, actor: TransitionActor, rule: InvalidTransitionRule) {
    super(describeRefusal(from, to, actor, rule));
    this.name = 'InvalidTransitionError';
    this.from = from;
    this.to = to;
    this.actor = actor;
    this.rule = rule;
  }
}

function describeRefusal(from: SessionStatus, to: SessionStatus, actor: TransitionActor, rule: InvalidTransitionRule): string {
  if (rule === 'reason_required') {
    return `A ${actor} must give a non-empty reason to move a session from ${from} to ${to}.`;
  }
  const ways = transitionsFrom(from).map((transition) => `${transition.to} (by ${transition.actor})`);
  const options = ways.length === 0 ? `${from} is terminal` : `from ${from} a session can go to: ${ways.join(', ')}`;
  return `A session cannot move from ${from} to ${to} by ${actor}; ${options}.`;
}

/**
 * Throws `InvalidTransitionError` unless the change is in the table and, where the table asks
 * for one, `reason` is non-empty after trimming (a blank reason is no audit trail).
 */
export function assertTransition(
  from: SessionStatus,
  to: SessionStatus,
  actor: TransitionActor,
  reason?: string | null,
): AllowedTransition {
  const transition = findTransition(from, to, actor);
  if (transition === undefined) {
    throw new InvalidTransitionError(from, to, actor, 'transition_not_allowed');
  }
  if (transition.reasonRequired && (reason ?? '').trim() === '') {
    throw new InvalidTransitionError(from, to, actor, 'reason_required');
  }
  return transition;
}

/** Renders the transition table as Markdown, so the README and OpenAPI text come from the same data. */
export function renderTransitionTable(): string {
  const header = ['| From | To | Actor | Reason required | Trigger |', '|---|---|---|---|---|'];
  const rows = ALLOWED_TRANSITIONS.map(
    (transition) =>
      `| \`${transition.from}\` | \`${transition.to}\` | \`${transition.actor}\` | ${transition.reasonRequired ? 'yes' : 'no'} | ${transition.trigger} |`,
  );
  return [...header, ...rows].join('\n') + '\n';
}
