/**
 * Workflow rules and branches (issue 27): a workflow is its nodes plus an ordered list of rules,
 * each a condition written in JSON Logic (https://jsonlogic.com, evaluated by json-logic-js) on
 * what is known of the session at that point, and an outcome: run a node, skip it, send the
 * session to review, decline it with a catalogue reason code, or approve it. JSON Logic has no
 * loops of its own, no functions and no I/O; on top of that, only the operators listed here are
 * accepted and every `var` must name a known fact, so a rule is data that always terminates.
 * Pure functions only: validation on save, facts from node results, and the verdict with rules.
 */
import jsonLogic from 'json-logic-js';
import { builtInReason } from './reasons.js';
import { NODE_TYPES, type ListHit, type NodeResult, type NodeStatus, type NodeType, type Warning } from './types.js';
import { decideVerdict, type Verdict, type VerdictInput, type VerdictReason, type VerdictWorkflowNode } from './verdict.js';

/** What a rule does when its condition holds. */
export const RULE_OUTCOMES = ['run_node', 'skip_node', 'review', 'decline', 'approve'] as const;
/** One rule outcome. */
export type RuleOutcome = (typeof RULE_OUTCOMES)[number];

/** A JSON Logic condition: a plain JSON value (an object whose one key is the operator, or a literal). */
export type RuleCondition = unknown;

/** One rule of a workflow, stored as data. */
export interface WorkflowRule {
  /** Short unique name (`poa_outside_eea`), quoted by reasons, diffs and replay reports. */
  id: string;
  /** JSON Logic condition on the {@link RuleFacts}; `true` always holds. */
  when: RuleCondition;
  /** What happens when the condition holds. */
  then: RuleOutcome;
  /** The node run or skipped (`run_node`, `skip_node` only). */
  node?: NodeType;
  /** Catalogue code (src/domain/reasons.ts) a `decline` or `review` names; required for `decline`. */
  reason?: string;
}

/** JSON Logic operators a rule may use: comparison, logic, membership, arithmetic, bounded array tests. */
export const RULE_OPERATORS: ReadonlySet<string> = new Set([
  'var',
  'missing',
  'missing_some',
  '==',
  '===',
  '!=',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  '!',
  '!!',
  'and',
  'or',
  'if',
  '?:',
  'in',
  'cat',
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  'some',
  'all',
  'none',
]);

/** Top-level facts a condition may read (`var` paths start with one of these). */
export const RULE_FACT_ROOTS = ['environment', 'metadata', 'document', 'age', 'aml', 'lists', 'warnings', 'nodes'] as const;

/** Most rules a workflow may hold. */
export const MAX_RULES = 50;
/** Deepest nesting of a condition, and most operators in one: bounds evaluation time. */
export const MAX_CONDITION_DEPTH = 12;
const MAX_CONDITION_OPERATORS = 200;

/** AML risk bands a condition compares on (`aml.risk_band`), from the 0–100 score. */
export const AML_RISK_BANDS = ['none', 'low', 'medium', 'high'] as const;
/** One AML risk band. */
export type AmlRiskBand = (typeof AML_RISK_BANDS)[number];

/** The band of an AML score: none without a screening, low under 30, medium under 70, high from 70. */
export function amlRiskBand(score: number | null): AmlRiskBand {
  if (score === null) return 'none';
  if (score < 30) return 'low';
  if (score < 70) return 'medium';
  return 'high';
}

/** What a condition can read: everything known of the session when the verdict runs. */
export interface RuleFacts {
  /** `sandbox` or `live`. */
  environment: string;
  /** The integrator's `metadata` of the session (empty object when none). */
  metadata: Record<string, unknown>;
  /** What the document step read, or nulls before it. */
  document: { country: string | null; type: string | null; nationality: string | null; date_of_birth: string | null };
  /** Whole years from the document's date of birth to the decision day, or null before the document. */
  age: number | null;
  /** AML screening: score, band and hit count (null score before the screening). */
  aml: { score: number | null; risk_band: AmlRiskBand; hits: number };
  /** List matches: how many, and how many of each policy. */
  lists: { hits: number; auto_decline: number; review: number };
  /** Codes of every warning of every node and of the session. */
  warnings: string[];
  /** Status of each node of the workflow (`pending` before its result). */
  nodes: Record<string, string>;
}

/** Whole years between an ISO date of birth and `today`, or null when the date does not parse. */
export function ageOn(dateOfBirth: string | null, today: Date): number | null {
  const match = dateOfBirth === null ? null : /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  let age = today.getUTCFullYear() - year;
  const beforeBirthday = today.getUTCMonth() + 1 < month || (today.getUTCMonth() + 1 === month && today.getUTCDate() < day);
  if (beforeBirthday) age -= 1;
  return age >= 0 && age < 200 ? age : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * What the rule facts read of a stored document step's details. The session layer's stored shape
 * (src/sessions/stored-node-details.ts) is passed in, so the compiler holds the two together.
 */
export interface RuleDocumentDetails {
  issuing_country?: string | null;
  document_type?: string | null;
  extracted?: { date_of_birth?: string | null; nationality?: string | null } | null;
}

/** What the rule facts read of a stored AML step's details: its hits, counted. */
export interface RuleAmlDetails {
  hits?: readonly unknown[];
}

/** What {@link ruleFacts} reads: the session's data, its node results, list hits and the day. */
export interface RuleFactsInput {
  environment: string;
  metadata: Record<string, unknown> | null;
  nodeTypes: readonly NodeType[];
  /** Each node's status and warnings. */
  nodeResults: Partial<Record<NodeType, NodeResult>>;
  /** The document step's stored details (`storedDetailsOf(…, 'document_verification')`); `{}` before it. */
  documentDetails: RuleDocumentDetails;
  /** The AML step's stored details (`storedDetailsOf(…, 'aml_screening')`); `{}` before it. */
  amlDetails: RuleAmlDetails;
  listHits: readonly ListHit[];
  sessionWarnings: readonly Warning[];
  amlScore: number | null;
  today: Date;
}

/** The facts a session's conditions are evaluated on, built from stored results only (replay uses the same). */
export function ruleFacts(input: RuleFactsInput): RuleFacts {
  const { documentDetails } = input;
  const extracted = documentDetails.extracted ?? {};
  const dateOfBirth = text(extracted.date_of_birth);
  const hits = Array.isArray(input.amlDetails.hits) ? input.amlDetails.hits.length : 0;
  return {
    environment: input.environment,
    metadata: input.metadata ?? {},
    document: {
      country: text(documentDetails.issuing_country),
      type: text(documentDetails.document_type),
      nationality: text(extracted.nationality),
      date_of_birth: dateOfBirth,
    },
    age: ageOn(dateOfBirth, input.today),
    aml: { score: input.amlScore, risk_band: amlRiskBand(input.amlScore), hits },
    lists: {
      hits: input.listHits.length,
      auto_decline: input.listHits.filter((hit) => hit.policy === 'auto_decline').length,
      review: input.listHits.filter((hit) => hit.policy === 'review').length,
    },
    warnings: [
      ...Object.values(input.nodeResults).flatMap((result) => (result?.warnings ?? []).map((warning) => warning.code)),
      ...input.sessionWarnings.map((warning) => warning.code),
    ],
    nodes: Object.fromEntries(input.nodeTypes.map((type) => [type, input.nodeResults[type]?.status ?? 'pending'])),
  };
}

/** One problem of a rule set, at a path such as `rules[2].when.and[1]` (REST) / `["rules",2,"when","and",1]`. */
export interface RuleIssue {
  path: (string | number)[];
  message: string;
}

function conditionIssues(value: unknown, path: (string | number)[], depth: number, budget: { left: number }, out: RuleIssue[]): void {
  if (depth > MAX_CONDITION_DEPTH) {
    out.push({ path, message: `condition is nested deeper than ${MAX_CONDITION_DEPTH} levels` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => conditionIssues(item, [...path, index], depth + 1, budget, out));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    out.push({ path, message: 'an operation is an object with exactly one operator key' });
    return;
  }
  const operator = keys[0]!;
  budget.left -= 1;
  if (budget.left < 0) {
    if (budget.left === -1) out.push({ path, message: `condition has more than ${MAX_CONDITION_OPERATORS} operations` });
    return;
  }
  if (!RULE_OPERATORS.has(operator)) {
    out.push({ path: [...path, operator], message: `unknown operator ${operator}; allowed: ${[...RULE_OPERATORS].join(' ')}` });
    return;
  }
  const argument = (value as Record<string, unknown>)[operator];
  if (operator === 'var') {
    const name = Array.isArray(argument) ? argument[0] : argument;
    if (typeof name !== 'string' || name === '') {
      out.push({ path: [...path, 'var'], message: 'var names a fact, e.g. "document.country"' });
      return;
    }
    const root = name.split('.')[0]!;
    if (!(RULE_FACT_ROOTS as readonly string[]).includes(root))
      out.push({ path: [...path, 'var'], message: `unknown fact ${name}; facts start with ${RULE_FACT_ROOTS.join(', ')}` });
    return;
  }
  conditionIssues(argument, [...path, operator], depth + 1, budget, out);
}

/** Everything wrong with a workflow's rules given its node types, each at its path; empty when valid. */
export function ruleIssues(rules: unknown, nodeTypes: readonly NodeType[]): RuleIssue[] {
  const issues: RuleIssue[] = [];
  if (!Array.isArray(rules)) return [{ path: ['rules'], message: 'rules is a list' }];
  if (rules.length > MAX_RULES) issues.push({ path: ['rules'], message: `at most ${MAX_RULES} rules` });
  const ids = new Set<string>();
  rules.forEach((rule: unknown, index) => {
    const at = (...rest: (string | number)[]) => ['rules', index, ...rest];
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
      issues.push({ path: at(), message: 'a rule is an object with id, when, then' });
      return;
    }
    const { id, when, then, node, reason, ...extra } = rule as Record<string, unknown>;
    for (const key of Object.keys(extra)) issues.push({ path: at(key), message: `unknown field ${key}` });
    if (typeof id !== 'string' || !/^[a-z][a-z0-9_]{0,39}$/.test(id))
      issues.push({ path: at('id'), message: 'id is a lower-case word (letters, digits, _)' });
    else if (ids.has(id)) issues.push({ path: at('id'), message: `rule id ${id} appears twice` });
    else ids.add(id);
    if (when === undefined) issues.push({ path: at('when'), message: 'when is required (a JSON Logic condition, or true)' });
    else conditionIssues(when, at('when'), 0, { left: MAX_CONDITION_OPERATORS }, issues);
    if (!(RULE_OUTCOMES as readonly unknown[]).includes(then)) {
      issues.push({ path: at('then'), message: `then must be one of: ${RULE_OUTCOMES.join(', ')}` });
      return;
    }
    const nodeOutcome = then === 'run_node' || then === 'skip_node';
    if (nodeOutcome) {
      if (!(NODE_TYPES as readonly unknown[]).includes(node))
        issues.push({ path: at('node'), message: `${String(then)} names a node type` });
      else if (!nodeTypes.includes(node as NodeType))
        issues.push({ path: at('node'), message: `the workflow has no ${String(node)} node` });
    } else if (node !== undefined) issues.push({ path: at('node'), message: `node is only for run_node and skip_node` });
    if (then === 'decline' && reason === undefined) issues.push({ path: at('reason'), message: 'decline names a reason code' });
    if (reason !== undefined) {
      if (then !== 'decline' && then !== 'review') issues.push({ path: at('reason'), message: 'reason is only for decline and review' });
      else if (typeof reason !== 'string' || !builtInReason(reason))
        issues.push({ path: at('reason'), message: `reason ${String(reason)} is not a code of the reason catalogue` });
    }
  });
  return issues;
}

/**
 * Whether one condition holds on the facts; anything but a JSON `true`-ish answer is false, and so
 * is a condition that cannot be evaluated on these facts (`{"in": ["x", {"var": "age"}]}` with a
 * number for age): a fact's shape never turns a submission into a server error.
 */
export function conditionHolds(condition: RuleCondition, facts: RuleFacts): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(condition as jsonLogic.RulesLogic, facts as unknown as Record<string, unknown>));
  } catch {
    return false;
  }
}

/** The rules whose conditions hold, in their order. */
export function matchingRules(rules: readonly WorkflowRule[], facts: RuleFacts): WorkflowRule[] {
  return rules.filter((rule) => conditionHolds(rule.when, facts));
}

/**
 * The nodes a session runs once the rules have spoken: `skip_node` drops a node (its result, if
 * any, counts for nothing), `run_node` makes it required. A later rule on the same node wins.
 */
export function effectiveNodes<N extends VerdictWorkflowNode>(nodes: readonly N[], matched: readonly WorkflowRule[]): N[] {
  const decided = new Map<NodeType, 'run_node' | 'skip_node'>();
  for (const rule of matched) if ((rule.then === 'run_node' || rule.then === 'skip_node') && rule.node) decided.set(rule.node, rule.then);
  return nodes
    .filter((node) => decided.get(node.type) !== 'skip_node')
    .map((node) => (decided.get(node.type) === 'run_node' ? { ...node, required: true } : node));
}

/** A stored node result's state as the rules make it: only what must change. */
export interface RuledNodeState {
  type: NodeType;
  required: boolean;
  status: NodeStatus;
}

/**
 * What the stored node results must say once the rules have spoken, so the session's steps, its
 * decision's `node_results` and the hosted flow tell the truth: a `run_node` rule makes the node
 * required, a `skip_node` rule makes it optional and a pending one `skipped` (nothing else stores
 * `skipped`, so a node the rules no longer skip goes back to pending with the workflow's flag).
 * Returns only the nodes whose stored state differs.
 */
export function ruledNodeStates(
  nodes: readonly VerdictWorkflowNode[],
  matched: readonly WorkflowRule[],
  stored: Partial<Record<NodeType, Pick<NodeResult, 'status' | 'required'>>>,
): RuledNodeState[] {
  const decided = new Map<NodeType, 'run_node' | 'skip_node'>();
  for (const rule of matched) if ((rule.then === 'run_node' || rule.then === 'skip_node') && rule.node) decided.set(rule.node, rule.then);
  const changes: RuledNodeState[] = [];
  for (const node of nodes) {
    const row = stored[node.type];
    if (!row) continue;
    const decision = decided.get(node.type);
    const required = decision === 'run_node' ? true : decision === 'skip_node' ? false : node.required;
    const status: NodeStatus =
      decision === 'skip_node' && row.status === 'pending'
        ? 'skipped'
        : decision !== 'skip_node' && row.status === 'skipped'
          ? 'pending'
          : row.status;
    if (required !== row.required || status !== row.status) changes.push({ type: node.type, required, status });
  }
  return changes;
}

/** The verdict with rules: {@link decideVerdict} on the effective nodes, then the rules' own outcomes. */
export interface RuledVerdictInput extends VerdictInput {
  /** The workflow's rules, in order. */
  rules: readonly WorkflowRule[];
  /** What the conditions read. */
  facts: RuleFacts;
}

/** The verdict and the rules that held (their ids name the revision's behaviour in replays and audits). */
export interface RuledVerdict extends Verdict {
  /** Ids of the rules whose conditions held. */
  matchedRules: string[];
}

/**
 * Decides a session under its workflow's rules. Without rules this is exactly `decideVerdict`. A
 * `decline` rule declines at once (like any decline); a `review` rule turns an approval into a
 * review; an `approve` rule turns a review (never a decline, never a pending step) into an approval.
 */
export function decideWithRules(input: RuledVerdictInput): RuledVerdict {
  const matched = matchingRules(input.rules, input.facts);
  const nodes = effectiveNodes(input.workflow.nodes, matched);
  const verdict = decideVerdict({ ...input, workflow: { ...input.workflow, nodes } });
  const matchedRules = matched.map((rule) => rule.id);
  const decline = matched.find((rule) => rule.then === 'decline');
  if (decline) {
    const reason: VerdictReason = {
      code: 'rule_decline',
      message: `Rule ${decline.id} declined the session.`,
      cause: decline.reason ?? 'rule_decline',
    };
    const first = verdict.status === 'declined' ? verdict.reasons : [];
    const rest = verdict.status === 'declined' ? [] : verdict.reasons;
    return { status: 'declined', reasons: [reason, ...first, ...rest], matchedRules };
  }
  const review = matched.find((rule) => rule.then === 'review');
  if (review && (verdict.status === 'approved' || verdict.status === 'in_review' || verdict.status === null)) {
    const reason: VerdictReason = {
      code: 'rule_review',
      message: `Rule ${review.id} asks for a manual review.`,
      cause: review.reason ?? 'rule_review',
    };
    if (verdict.status === null) return { ...verdict, reasons: [...verdict.reasons, reason], matchedRules };
    return { status: 'in_review', reasons: [reason, ...verdict.reasons], matchedRules };
  }
  const approve = matched.find((rule) => rule.then === 'approve');
  if (approve && verdict.status === 'in_review') {
    const reason: VerdictReason = {
      code: 'rule_approve',
      message: `Rule ${approve.id} approved what would have gone to review.`,
      cause: 'rule_approve',
    };
    return { status: 'approved', complianceLevel: input.workflow.complianceLevel, reasons: [reason, ...verdict.reasons], matchedRules };
  }
  return { ...verdict, matchedRules };
}
