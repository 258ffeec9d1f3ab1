/**
 * The console's condition builder (issue 27, point 4), without the DOM so it is unit-tested: the
 * facts a rule can read and after which step each is known, a condition as a list of clauses
 * (fact, operator, value) joined by "all of" or "any of", its JSON Logic both ways, where in the
 * workflow's graph a rule acts (after the last step whose facts it reads) and the condition in words.
 * A condition the builder cannot show (nesting, arithmetic) stays JSON Logic, edited as text.
 */

/** How a fact's value is typed and compared. */
export type FactKind = 'text' | 'number' | 'list';

/** One fact the builder offers (src/domain/workflow-rules.ts `RuleFacts`). */
export interface FactChoice {
  /** The `var` path (`metadata` stands for `metadata.<field>`). */
  path: string;
  /** In words, as the picker shows it. */
  label: string;
  kind: FactKind;
  /** Values to suggest (a datalist), when the set is known. */
  values?: readonly string[];
  /** The step after which the fact is known: null for the start (environment, metadata). */
  knownAfter: string | null;
}

/** Statuses a step can have, for `nodes.<type>` facts. */
const STEP_STATUSES = ['pending', 'passed', 'failed', 'review', 'skipped', 'resubmission_requested'];

/** Facts that do not depend on one step of the workflow. */
const FACTS: readonly FactChoice[] = [
  { path: 'environment', label: 'Environment', kind: 'text', values: ['sandbox', 'live'], knownAfter: null },
  { path: 'metadata', label: 'Metadata field…', kind: 'text', knownAfter: null },
  { path: 'document.country', label: 'Document issuing country', kind: 'text', knownAfter: 'document_verification' },
  { path: 'document.nationality', label: 'Nationality on the document', kind: 'text', knownAfter: 'document_verification' },
  {
    path: 'document.type',
    label: 'Document type',
    kind: 'text',
    values: ['PASSPORT', 'NATIONAL_ID', 'DRIVERS_LICENSE', 'RESIDENCE_PERMIT'],
    knownAfter: 'document_verification',
  },
  { path: 'age', label: 'Age (from the date of birth)', kind: 'number', knownAfter: 'document_verification' },
  { path: 'lists.hits', label: 'List hits', kind: 'number', knownAfter: 'document_verification' },
  { path: 'lists.auto_decline', label: 'List hits that decline', kind: 'number', knownAfter: 'document_verification' },
  { path: 'lists.review', label: 'List hits that send to review', kind: 'number', knownAfter: 'document_verification' },
  { path: 'aml.score', label: 'AML score (0–100)', kind: 'number', knownAfter: 'aml_screening' },
  { path: 'aml.risk_band', label: 'AML risk band', kind: 'text', values: ['none', 'low', 'medium', 'high'], knownAfter: 'aml_screening' },
  { path: 'aml.hits', label: 'AML hit count', kind: 'number', knownAfter: 'aml_screening' },
];

/** Names of the steps as the console shows them. */
export const STEP_NAMES: Record<string, string> = {
  document_verification: 'ID document',
  biometric_kyc: 'Selfie',
  aml_screening: 'AML screening',
  phone_verification: 'Phone number',
  proof_of_address: 'Proof of address',
  business_registry: 'Company registration',
};

/** A step's name in words. */
export function stepName(type: string): string {
  return STEP_NAMES[type] ?? type.replace(/_/g, ' ');
}

/**
 * Every fact a condition of this workflow can read, each with the step after which it is known:
 * document facts and list hits after the document (the AML step where there is no document),
 * warnings after the first step, each step's status after that step.
 */
export function factChoices(steps: readonly string[]): FactChoice[] {
  const documentStep = steps.includes('document_verification')
    ? 'document_verification'
    : steps.includes('aml_screening')
      ? 'aml_screening'
      : null;
  const choices = FACTS.flatMap((fact): FactChoice[] => {
    if (fact.knownAfter === null) return [fact];
    // List hits come from the document's data, or from the screened name where there is no document.
    const after = fact.path.startsWith('lists.') ? documentStep : fact.knownAfter;
    return after !== null && steps.includes(after) ? [{ ...fact, knownAfter: after }] : [];
  });
  if (steps.length > 0) choices.push({ path: 'warnings', label: 'Warning codes (any step so far)', kind: 'list', knownAfter: steps[0]! });
  for (const step of steps)
    choices.push({ path: `nodes.${step}`, label: `Status of ${stepName(step)}`, kind: 'text', values: STEP_STATUSES, knownAfter: step });
  return choices;
}

/** Position of the point after `knownAfter` in the flow: -1 is the start, i is after step i. */
function pointOf(knownAfter: string | null, steps: readonly string[]): number {
  return knownAfter === null ? -1 : steps.indexOf(knownAfter);
}

/** The facts known at a point of the flow (-1 the start, i after step i). */
export function factsKnownAt(point: number, steps: readonly string[]): FactChoice[] {
  return factChoices(steps).filter((fact) => pointOf(fact.knownAfter, steps) <= point);
}

/** The fact choice a `var` path reads (`metadata.plan` is the metadata choice), or null. */
export function choiceOf(path: string, steps: readonly string[]): FactChoice | null {
  const choices = factChoices(steps);
  return choices.find((fact) => fact.path === path) ?? (path.startsWith('metadata.') ? choices.find((f) => f.path === 'metadata')! : null);
}

/** Operators a clause offers, in words; `contains` and `lacks` are for lists (warnings). */
export const OPERATORS = {
  '==': 'is',
  '!=': 'is not',
  in: 'is one of',
  not_in: 'is none of',
  '>=': 'is at least',
  '>': 'is more than',
  '<=': 'is at most',
  '<': 'is less than',
  contains: 'contains',
  lacks: 'does not contain',
} as const;
/** One operator of a clause. */
export type Operator = keyof typeof OPERATORS;

/** The operators that make sense for a kind of fact. */
export function operatorsFor(kind: FactKind): Operator[] {
  if (kind === 'list') return ['contains', 'lacks'];
  if (kind === 'number') return ['>=', '>', '<=', '<', '==', '!='];
  return ['==', '!=', 'in', 'not_in'];
}

/** One comparison: a fact, an operator, a value as typed (lists comma-separated). */
export interface Clause {
  fact: string;
  operator: Operator;
  value: string;
}

/** A condition the builder shows: clauses joined by all (`and`) or any (`or`); no clause is "always". */
export interface BuiltCondition {
  join: 'and' | 'or';
  clauses: Clause[];
}

function literal(value: string, kind: FactKind | undefined): unknown {
  const trimmed = value.trim();
  if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  return trimmed;
}

function listOf(value: string, kind: FactKind | undefined): unknown[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => literal(item, kind));
}

/** The kind of a fact path, for typing values (numbers stay numbers in JSON Logic). */
function kindOf(path: string): FactKind | undefined {
  if (path === 'warnings') return 'list';
  return FACTS.find((fact) => fact.path === path)?.kind;
}

/** The JSON Logic of one clause. */
export function clauseLogic(clause: Clause): unknown {
  const fact = { var: clause.fact };
  const kind = kindOf(clause.fact);
  switch (clause.operator) {
    case 'in':
      return { in: [fact, listOf(clause.value, kind)] };
    case 'not_in':
      return { '!': { in: [fact, listOf(clause.value, kind)] } };
    case 'contains':
      return { in: [literal(clause.value, 'text'), fact] };
    case 'lacks':
      return { '!': { in: [literal(clause.value, 'text'), fact] } };
    default:
      return { [clause.operator]: [fact, literal(clause.value, kind)] };
  }
}

/** The JSON Logic of a built condition: `true` without clauses, the clause alone, else `and`/`or` of them. */
export function conditionLogic(built: BuiltCondition): unknown {
  if (built.clauses.length === 0) return true;
  if (built.clauses.length === 1) return clauseLogic(built.clauses[0]!);
  return { [built.join]: built.clauses.map(clauseLogic) };
}

function varOf(value: unknown): string | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'var' in value && typeof value.var === 'string'
    ? value.var
    : null;
}

function shown(value: unknown): string | null {
  if (Array.isArray(value)) return value.every((item) => ['string', 'number', 'boolean'].includes(typeof item)) ? value.join(', ') : null;
  return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : null;
}

function entry(logic: unknown): [string, unknown] | null {
  if (logic === null || typeof logic !== 'object' || Array.isArray(logic)) return null;
  const entries = Object.entries(logic);
  return entries.length === 1 ? entries[0]! : null;
}

/** The clause a piece of JSON Logic is, or null when it is something else. */
export function clauseOf(logic: unknown): Clause | null {
  const [operator, argument] = entry(logic) ?? [];
  if (operator === '!') {
    const inner = clauseOf(argument);
    if (inner?.operator === 'in') return { ...inner, operator: 'not_in' };
    if (inner?.operator === 'contains') return { ...inner, operator: 'lacks' };
    return null;
  }
  if (!operator || !Array.isArray(argument) || argument.length !== 2) return null;
  const [left, right] = argument as [unknown, unknown];
  if (operator === 'in' && varOf(right) && !varOf(left) && !Array.isArray(left)) {
    const value = shown(left);
    return value === null ? null : { fact: varOf(right)!, operator: 'contains', value };
  }
  const fact = varOf(left);
  if (!fact || varOf(right) !== null || !(operator in OPERATORS) || operator === 'contains' || operator === 'lacks') return null;
  if (operator === 'in' && !Array.isArray(right)) return null;
  if (operator !== 'in' && Array.isArray(right)) return null;
  const value = shown(right);
  return value === null ? null : { fact, operator: operator as Operator, value };
}

/** The builder's form of a condition, or null when it is richer than clauses joined one way. */
export function builtOf(logic: unknown): BuiltCondition | null {
  if (logic === true) return { join: 'and', clauses: [] };
  const [operator, argument] = entry(logic) ?? [];
  if ((operator === 'and' || operator === 'or') && Array.isArray(argument) && argument.length > 0) {
    const clauses = argument.map(clauseOf);
    return clauses.every((clause): clause is Clause => clause !== null) ? { join: operator, clauses } : null;
  }
  const clause = clauseOf(logic);
  return clause ? { join: 'and', clauses: [clause] } : null;
}

/** Every `var` path a condition reads. */
export function factsRead(logic: unknown): string[] {
  if (Array.isArray(logic)) return logic.flatMap(factsRead);
  if (logic === null || typeof logic !== 'object') return [];
  return Object.entries(logic).flatMap(([operator, argument]) => {
    if (operator !== 'var') return factsRead(argument);
    const name = Array.isArray(argument) ? argument[0] : argument;
    return typeof name === 'string' ? [name] : [];
  });
}

/**
 * Where a rule acts in the flow: after the last step whose facts its condition reads (-1, the
 * start, for environment and metadata only). A fact of a step the workflow lacks puts it at the end.
 */
export function branchPoint(logic: unknown, steps: readonly string[]): number {
  let point = -1;
  for (const path of factsRead(logic)) {
    const choice = choiceOf(path, steps) ?? choiceOf(path.split('.').slice(0, 2).join('.'), steps);
    point = Math.max(point, choice ? pointOf(choice.knownAfter, steps) : steps.length - 1);
  }
  return point;
}

/** A fact path in words. */
export function factWords(path: string, steps: readonly string[]): string {
  if (path.startsWith('metadata.')) return `metadata ${path.slice('metadata.'.length)}`;
  return (choiceOf(path, steps)?.label ?? path).replace(/…$/, '');
}

/** A condition in words for the graph's branch labels (`Document issuing country is one of FR, DE`). */
export function conditionWords(logic: unknown, steps: readonly string[]): string {
  const built = builtOf(logic);
  if (!built) return 'a JSON Logic condition';
  if (built.clauses.length === 0) return 'always';
  return built.clauses
    .map((clause) => `${factWords(clause.fact, steps)} ${OPERATORS[clause.operator]} ${clause.value || '(empty)'}`)
    .join(built.join === 'and' ? ' and ' : ' or ');
}

/** What a revision defines, as far as the changes in words read it. */
export interface DefinitionForWords {
  nodes: readonly { type: string; required: boolean }[];
  rules: readonly { id: string; when: unknown; then: string; node?: string; reason?: string }[];
  [setting: string]: unknown;
}

function branchWords(rule: DefinitionForWords['rules'][number], steps: readonly string[]): string {
  const outcome =
    rule.then === 'run_node'
      ? `require ${stepName(rule.node ?? '?')}`
      : rule.then === 'skip_node'
        ? `skip ${stepName(rule.node ?? '?')}`
        : rule.then === 'decline'
          ? `decline (${rule.reason ?? 'no reason'})`
          : rule.then === 'review'
            ? 'send to review'
            : 'approve';
  return `if ${conditionWords(rule.when, steps)} → ${outcome}`;
}

/**
 * The changes from one revision to another in words, for a compliance reader: steps added,
 * removed or made required/optional, branches (by name) added, removed or changed, settings changed.
 */
export function changesInWords(from: DefinitionForWords, to: DefinitionForWords): string[] {
  const lines: string[] = [];
  const steps = to.nodes.map((node) => node.type);
  for (const node of to.nodes) {
    const before = from.nodes.find((candidate) => candidate.type === node.type);
    if (!before) lines.push(`Step added: ${stepName(node.type)} (${node.required ? 'required' : 'optional'}).`);
    else if (before.required !== node.required)
      lines.push(
        `${stepName(node.type)} is now ${node.required ? 'required' : 'optional'} (was ${before.required ? 'required' : 'optional'}).`,
      );
  }
  for (const node of from.nodes)
    if (!to.nodes.some((candidate) => candidate.type === node.type)) lines.push(`Step removed: ${stepName(node.type)}.`);
  for (const rule of to.rules) {
    const before = from.rules.find((candidate) => candidate.id === rule.id);
    if (!before) lines.push(`Branch added: ${rule.id}, ${branchWords(rule, steps)}.`);
    else if (JSON.stringify(before) !== JSON.stringify(rule))
      lines.push(`Branch changed: ${rule.id}, now ${branchWords(rule, steps)} (was ${branchWords(before, steps)}).`);
  }
  for (const rule of from.rules)
    if (!to.rules.some((candidate) => candidate.id === rule.id)) lines.push(`Branch removed: ${rule.id}, ${branchWords(rule, steps)}.`);
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (key === 'nodes' || key === 'rules' || JSON.stringify(from[key]) === JSON.stringify(to[key])) continue;
    lines.push(`${key}: ${JSON.stringify(from[key]) ?? 'unset'} → ${JSON.stringify(to[key]) ?? 'unset'}.`);
  }
  return lines;
}
