/**
 * A workflow as a readable graph (issue 27, point 4): the steps in order from the start to the
 * verdict, and at each point the branches (rules) that act there, each drawn as an edge from its
 * condition to its outcome. Selecting a step opens its form (required or optional); selecting a
 * branch opens its form: a condition builder offering the facts known at that point (field,
 * operator, value, joined by all or any) that writes JSON Logic, with the JSON itself as an
 * advanced option, and the outcome. Plain HTML buttons and form controls: keyboard operable,
 * nothing drawn carries meaning by colour alone.
 */
import {
  branchPoint,
  builtOf,
  choiceOf,
  conditionLogic,
  conditionWords,
  factsKnownAt,
  operatorsFor,
  OPERATORS,
  stepName,
  type BuiltCondition,
  type Clause,
  type Operator,
} from './condition-builder.js';
import { h } from './dom.js';
import { field } from './forms.js';

/** A rule as the API stores it. */
export interface Rule {
  id: string;
  when: unknown;
  then: string;
  node?: string;
  reason?: string;
}

/** A step as the API stores it. */
export interface GraphNode {
  type: string;
  required: boolean;
  provider: string;
}

/** What the graph edits: the steps' flags and the rules. */
export interface GraphModel {
  nodes: GraphNode[];
  rules: Rule[];
}

/** A refusal of the server at a place (`rules[1].reason`). */
export interface FieldProblem {
  field: string;
  message: string;
}

const OUTCOMES: [string, string][] = [
  ['review', 'send to review'],
  ['decline', 'decline with a reason'],
  ['approve', 'approve (a review becomes an approval)'],
  ['run_node', 'require a step'],
  ['skip_node', 'skip a step'],
];

/** What a branch does, in words. */
function outcomeWords(rule: Rule): string {
  if (rule.then === 'run_node') return `require ${stepName(rule.node ?? '?')}`;
  if (rule.then === 'skip_node') return `skip ${stepName(rule.node ?? '?')}`;
  if (rule.then === 'decline') return `decline (${rule.reason ?? 'no reason'})`;
  if (rule.then === 'review') return 'send to review';
  return 'approve';
}

function options(choices: [string, string][], value: string): HTMLOptionElement[] {
  return choices.map(([option, text]) => h('option', { value: option, selected: option === value }, text));
}

/** The graph and its editing panel. */
export interface GraphEditor {
  element: HTMLElement;
  /** The steps and rules as edited. */
  read(): GraphModel;
  /** Shows the server's refusals: a list linking to each branch at fault, and the branch's own form. */
  showProblems(problems: FieldProblem[]): void;
}

/** Builds the graph editor over a copy of `model`; `editable` false shows the same forms disabled. */
export function workflowGraph(initial: GraphModel, editable: boolean, reasonCodes: string[]): GraphEditor {
  const model: GraphModel = structuredClone(initial);
  const steps = model.nodes.map((node) => node.type);
  let selected: { kind: 'node'; type: string } | { kind: 'rule'; index: number } | null = null;
  let problems: FieldProblem[] = [];
  const flow = h('ol', { class: 'flow', id: 'workflow-graph', 'aria-label': 'The workflow from start to verdict, with its branches' });
  const panel = h('div', {
    class: 'graph-panel card',
    id: 'graph-panel',
    role: 'region',
    'aria-labelledby': 'graph-panel-title',
    // Escape closes the form and returns to the step or branch it belongs to.
    onkeydown: (event) => {
      if ((event as KeyboardEvent).key === 'Escape' && selected) close();
    },
  });
  const problemList = h('ul', { class: 'error', id: 'graph-problems' });

  const problemsOf = (index: number) => problems.filter((problem) => problem.field.startsWith(`rules[${index}]`));

  function edge(rule: Rule, index: number): HTMLElement {
    const isSelected = selected?.kind === 'rule' && selected.index === index;
    const refused = problemsOf(index).length > 0;
    return h(
      'li',
      { class: `flow-branch${refused ? ' has-problem' : ''}` },
      h(
        'button',
        {
          type: 'button',
          class: 'flow-edge',
          id: `edge-${index}`,
          'data-rule': rule.id,
          'aria-expanded': isSelected ? 'true' : 'false',
          'aria-controls': 'graph-panel',
          onclick: () => select({ kind: 'rule', index }),
        },
        h('span', { class: 'edge-when' }, `If ${conditionWords(rule.when, steps)}`),
        h('span', { class: `edge-then outcome-${rule.then}` }, h('span', { 'aria-hidden': 'true' }, '→ '), outcomeWords(rule)),
        h('span', { class: 'edge-id' }, `branch ${index + 1}: ${rule.id}${refused ? ' (refused, see its form)' : ''}`),
      ),
    );
  }

  function stepBox(node: GraphNode, index: number): HTMLElement {
    const actedOn = model.rules.filter((rule) => rule.node === node.type && (rule.then === 'run_node' || rule.then === 'skip_node'));
    return h(
      'button',
      {
        type: 'button',
        class: `flow-node${node.required ? ' required' : ''}`,
        id: `node-${node.type}`,
        'aria-expanded': selected?.kind === 'node' && selected.type === node.type ? 'true' : 'false',
        'aria-controls': 'graph-panel',
        onclick: () => select({ kind: 'node', type: node.type }),
      },
      h('span', { class: 'node-name' }, `${index + 1}. ${stepName(node.type)}`),
      h('span', { class: 'node-flag' }, node.required ? 'required' : 'optional'),
      ...actedOn.map((rule) => h('span', { class: 'node-rule' }, `${rule.then === 'run_node' ? 'required' : 'skipped'} by ${rule.id}`)),
    );
  }

  function point(at: number, box: HTMLElement): HTMLElement {
    const branches = model.rules.map((rule, index) => ({ rule, index })).filter(({ rule }) => branchPoint(rule.when, steps) === at);
    const where = at < 0 ? 'at the start' : `after ${stepName(steps[at]!)}`;
    return h(
      'li',
      { class: 'flow-point', 'data-point': String(at) },
      box,
      branches.length
        ? h('ul', { class: 'flow-branches', 'aria-label': `Branches ${where}` }, ...branches.map(({ rule, index }) => edge(rule, index)))
        : null,
      editable
        ? h(
            'button',
            { type: 'button', class: 'add-branch', id: `add-branch-${at < 0 ? 'start' : steps[at]}`, onclick: () => addBranch(at) },
            `+ Branch ${where}`,
          )
        : null,
    );
  }

  function drawFlow(): void {
    flow.replaceChildren(
      point(-1, h('span', { class: 'flow-node flow-terminal' }, 'Session starts: environment and metadata are known')),
      ...model.nodes.map((node, index) => point(index, stepBox(node, index))),
      h(
        'li',
        { class: 'flow-point flow-end' },
        h(
          'span',
          { class: 'flow-node flow-terminal' },
          'Verdict: approved when every required step passes and nothing sends it to review or declines it',
        ),
      ),
    );
    problemList.replaceChildren(
      ...problems.map((problem) => {
        const at = /^rules\[(\d+)\]/.exec(problem.field);
        const text = `${problem.field}: ${problem.message}`;
        return h(
          'li',
          {},
          at ? h('button', { type: 'button', class: 'link', onclick: () => select({ kind: 'rule', index: Number(at[1]) }) }, text) : text,
        );
      }),
    );
  }

  function addBranch(at: number): void {
    const known = factsKnownAt(at, steps);
    // Starts from a fact that becomes known at this very point, so the branch is drawn where it was added.
    const here = at < 0 ? null : steps[at]!;
    const fact = known.find((choice) => choice.knownAfter === here && !choice.path.startsWith('nodes.')) ?? known[known.length - 1]!;
    const path = fact.path === 'metadata' ? 'metadata.plan' : fact.path;
    const clause: Clause = { fact: path, operator: operatorsFor(fact.kind)[0]!, value: '' };
    let n = model.rules.length + 1;
    while (model.rules.some((rule) => rule.id === `branch_${n}`)) n += 1;
    model.rules.push({ id: `branch_${n}`, when: conditionLogic({ join: 'and', clauses: [clause] }), then: 'review' });
    select({ kind: 'rule', index: model.rules.length - 1 });
  }

  function select(next: typeof selected): void {
    selected = next;
    drawFlow();
    drawPanel();
    panel.querySelector<HTMLElement>('h3')?.focus();
  }

  function close(): void {
    const back = selected?.kind === 'node' ? `node-${selected.type}` : selected ? `edge-${selected.index}` : '';
    selected = null;
    drawFlow();
    drawPanel();
    document.getElementById(back)?.focus();
  }

  function nodeForm(node: GraphNode): HTMLElement[] {
    const flag = h(
      'select',
      {
        disabled: !editable,
        onchange: (event) => {
          node.required = (event.target as HTMLSelectElement).value === 'required';
          drawFlow();
        },
      },
      ...options(
        [
          ['required', 'required: its failure declines'],
          ['optional', 'optional: asked, its failure counts for nothing'],
        ],
        node.required ? 'required' : 'optional',
      ),
    );
    const rules = model.rules.filter((rule) => rule.node === node.type);
    return [
      h('h3', { id: 'graph-panel-title', tabindex: '-1' }, `Step ${steps.indexOf(node.type) + 1}: ${stepName(node.type)}`),
      field('node-required', 'This step is', flag),
      h('p', {}, `Run by ${node.provider}.`),
      h(
        'p',
        {},
        rules.length
          ? `Branches acting on it: ${rules.map((rule) => `${rule.id} (${outcomeWords(rule)})`).join('; ')}.`
          : 'No branch acts on it.',
      ),
    ];
  }

  function ruleForm(rule: Rule, index: number): HTMLElement[] {
    let built: BuiltCondition | null = builtOf(rule.when);
    let at = Math.max(-1, branchPoint(rule.when, steps));
    const clauses = h('div', { class: 'clauses', id: 'branch-clauses' });
    const json = h('textarea', { rows: '6', spellcheck: 'false' }, JSON.stringify(rule.when, null, 2));
    const jsonError = h('p', { class: 'error', role: 'alert', id: 'branch-json-problem' });
    const advanced = h(
      'details',
      { class: 'advanced', open: built === null },
      h('summary', {}, 'Advanced: the condition as JSON Logic'),
      field('branch-json', 'Condition (JSON Logic)', json),
      jsonError,
      h(
        'button',
        {
          type: 'button',
          id: 'branch-json-apply',
          onclick: () => {
            try {
              rule.when = JSON.parse(json.value);
            } catch {
              jsonError.textContent = 'This is not JSON: check quotes, commas and brackets.';
              return;
            }
            jsonError.textContent = '';
            built = builtOf(rule.when);
            at = Math.max(at, branchPoint(rule.when, steps));
            drawClauses();
            drawFlow();
          },
        },
        'Use this JSON',
      ),
    );
    const join = h(
      'select',
      {
        onchange: (event) => {
          if (built) built.join = (event.target as HTMLSelectElement).value as 'and' | 'or';
          changed();
        },
      },
      ...options(
        [
          ['and', 'all of these hold'],
          ['or', 'any of these holds'],
        ],
        built?.join ?? 'and',
      ),
    );
    const pointPicker = h(
      'select',
      {
        onchange: (event) => {
          at = Number((event.target as HTMLSelectElement).value);
          drawClauses();
        },
      },
      ...options(
        [['-1', 'the start'] as [string, string], ...steps.map((step, i): [string, string] => [String(i), `after ${stepName(step)}`])],
        String(at),
      ),
    );

    /** Writes the builder's condition into the rule and redraws what shows it. */
    function changed(): void {
      if (!built) return;
      rule.when = conditionLogic(built);
      if (document.activeElement !== json) json.value = JSON.stringify(rule.when, null, 2);
      drawFlow();
    }

    function clauseRow(clause: Clause, k: number): HTMLElement {
      const known = factsKnownAt(at, steps);
      const choice = choiceOf(clause.fact, steps);
      const factKey = clause.fact.startsWith('metadata.') ? 'metadata' : clause.fact;
      const factOptions: [string, string][] = known.map((fact) => [fact.path, fact.label]);
      if (!known.some((fact) => fact.path === factKey)) factOptions.push([factKey, `${choice?.label ?? factKey} (known later)`]);
      const prefix = `clause-${k}`;
      const factSelect = h(
        'select',
        {
          onchange: (event) => {
            const path = (event.target as HTMLSelectElement).value;
            const next = choiceOf(path, steps)!;
            clause.fact = path === 'metadata' ? 'metadata.plan' : path;
            if (!operatorsFor(next.kind).includes(clause.operator)) clause.operator = operatorsFor(next.kind)[0]!;
            changed();
            drawClauses();
            document.getElementById(`${prefix}-fact`)?.focus();
          },
        },
        ...options(factOptions, factKey),
      );
      const metadataKey = h('input', {
        value: clause.fact.startsWith('metadata.') ? clause.fact.slice('metadata.'.length) : '',
        oninput: (event) => {
          clause.fact = `metadata.${(event.target as HTMLInputElement).value.trim()}`;
          changed();
        },
      });
      const operator = h(
        'select',
        {
          onchange: (event) => {
            clause.operator = (event.target as HTMLSelectElement).value as Operator;
            changed();
          },
        },
        ...options(
          operatorsFor(choice?.kind ?? 'text').map((op): [string, string] => [op, OPERATORS[op]]),
          clause.operator,
        ),
      );
      const suggestions = choice?.values
        ? h('datalist', { id: `${prefix}-values` }, ...choice.values.map((v) => h('option', { value: v })))
        : null;
      const value = h('input', {
        value: clause.value,
        list: suggestions ? `${prefix}-values` : undefined,
        inputmode: choice?.kind === 'number' ? 'decimal' : undefined,
        oninput: (event) => {
          clause.value = (event.target as HTMLInputElement).value;
          changed();
        },
      });
      const hint =
        clause.operator === 'in' || clause.operator === 'not_in'
          ? 'Value (comma-separated, e.g. FR, DE)'
          : choice?.kind === 'number'
            ? 'Value (a number)'
            : 'Value';
      return h(
        'fieldset',
        { class: 'clause' },
        h('legend', {}, `Condition ${k + 1}`),
        field(`${prefix}-fact`, 'Fact', factSelect),
        factKey === 'metadata' ? field(`${prefix}-metadata`, 'Metadata field name', metadataKey) : null,
        field(`${prefix}-operator`, 'Operator', operator),
        field(`${prefix}-value`, hint, value),
        suggestions,
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            id: `${prefix}-remove`,
            onclick: () => {
              built!.clauses.splice(k, 1);
              changed();
              drawClauses();
              document.getElementById('branch-add-clause')?.focus();
            },
          },
          `Remove condition ${k + 1}`,
        ),
      );
    }

    function drawClauses(): void {
      if (!built) {
        clauses.replaceChildren(
          h('p', {}, 'This condition is richer than the builder (nested logic or arithmetic): edit it as JSON Logic below.'),
          h(
            'button',
            {
              type: 'button',
              id: 'branch-restart',
              onclick: () => {
                built = { join: 'and', clauses: [] };
                changed();
                drawClauses();
              },
            },
            'Start the condition again in the builder',
          ),
        );
        return;
      }
      const b = built;
      clauses.replaceChildren(
        field('branch-point', 'Offer the facts known', pointPicker),
        field('branch-join', 'The branch applies when', join),
        ...(b.clauses.length ? b.clauses.map(clauseRow) : [h('p', {}, 'No condition: the branch always applies.')]),
        h(
          'button',
          {
            type: 'button',
            id: 'branch-add-clause',
            onclick: () => {
              const fact = factsKnownAt(at, steps)[0]!;
              b.clauses.push({
                fact: fact.path === 'metadata' ? 'metadata.plan' : fact.path,
                operator: operatorsFor(fact.kind)[0]!,
                value: '',
              });
              changed();
              drawClauses();
              document.getElementById(`clause-${b.clauses.length - 1}-fact`)?.focus();
            },
          },
          'Add a condition',
        ),
      );
    }
    drawClauses();

    const stepSelect = h(
      'select',
      {
        onchange: (event) => {
          rule.node = (event.target as HTMLSelectElement).value || undefined;
          drawFlow();
        },
      },
      ...options([['', '—'], ...steps.map((step): [string, string] => [step, stepName(step)])], rule.node ?? ''),
    );
    const reasonSelect = h(
      'select',
      {
        onchange: (event) => {
          rule.reason = (event.target as HTMLSelectElement).value || undefined;
          drawFlow();
        },
      },
      ...options([['', '— (review: rule_review)'], ...reasonCodes.map((code): [string, string] => [code, code])], rule.reason ?? ''),
    );
    const stepField = field('branch-node', 'Step', stepSelect);
    const reasonField = field('branch-reason', 'Reason code', reasonSelect);
    const showTargets = () => {
      stepField.hidden = rule.then !== 'run_node' && rule.then !== 'skip_node';
      reasonField.hidden = rule.then !== 'decline' && rule.then !== 'review';
    };
    const outcome = h(
      'select',
      {
        onchange: (event) => {
          rule.then = (event.target as HTMLSelectElement).value;
          if (rule.then !== 'run_node' && rule.then !== 'skip_node') delete rule.node;
          else if (!rule.node) rule.node = (stepSelect as HTMLSelectElement).value || undefined;
          if (rule.then !== 'decline' && rule.then !== 'review') delete rule.reason;
          else if (!rule.reason) rule.reason = (reasonSelect as HTMLSelectElement).value || undefined;
          showTargets();
          drawFlow();
        },
      },
      ...options(OUTCOMES, rule.then),
    );
    showTargets();
    const title = h('h3', { id: 'graph-panel-title', tabindex: '-1' }, `Branch ${index + 1}: ${rule.id}`);
    const name = h('input', {
      value: rule.id,
      oninput: (event) => {
        rule.id = (event.target as HTMLInputElement).value.trim();
        title.textContent = `Branch ${index + 1}: ${rule.id}`;
        drawFlow();
      },
    });
    const fieldset = h(
      'fieldset',
      { class: 'branch-form', disabled: !editable },
      h('legend', { class: 'visually-hidden' }, `Branch ${index + 1}`),
      field('branch-id', 'Name (a-z, 0-9, _)', name),
      h('h4', {}, 'When'),
      clauses,
      advanced,
      h('h4', {}, 'Then'),
      field('branch-then', 'Outcome', outcome),
      stepField,
      reasonField,
      h(
        'div',
        { class: 'error', id: 'branch-problems', role: 'alert' },
        problemsOf(index).length
          ? h('ul', {}, ...problemsOf(index).map((problem) => h('li', {}, `${problem.field}: ${problem.message}`)))
          : null,
      ),
      editable
        ? h(
            'button',
            {
              type: 'button',
              class: 'danger',
              id: 'branch-remove',
              onclick: () => {
                model.rules.splice(index, 1);
                problems = [];
                selected = null;
                drawFlow();
                drawPanel();
                document.getElementById('graph-title')?.focus();
              },
            },
            'Remove this branch',
          )
        : null,
    );
    return [title, fieldset];
  }

  function drawPanel(): void {
    const closeButton = h('button', { type: 'button', id: 'graph-panel-close', onclick: close }, 'Close the form');
    if (selected?.kind === 'node') {
      const node = model.nodes.find((candidate) => candidate.type === (selected as { type: string }).type)!;
      panel.replaceChildren(...nodeForm(node), closeButton);
    } else if (selected?.kind === 'rule' && model.rules[selected.index]) {
      panel.replaceChildren(...ruleForm(model.rules[selected.index]!, selected.index), closeButton);
    } else {
      panel.replaceChildren(
        h('h3', { id: 'graph-panel-title', tabindex: '-1' }, 'Nothing selected'),
        h(
          'p',
          {},
          editable
            ? 'Select a step or a branch of the graph to edit it, or add a branch at the point where what it reads is known.'
            : 'Select a step or a branch of the graph to read it.',
        ),
      );
    }
  }

  drawFlow();
  drawPanel();
  return {
    element: h('div', { class: 'graph-editor' }, h('div', { class: 'graph-flow' }, problemList, flow), panel),
    read: () => structuredClone(model),
    showProblems(next) {
      problems = next;
      const first = /^rules\[(\d+)\]/.exec(next[0]?.field ?? '');
      if (first) select({ kind: 'rule', index: Number(first[1]) });
      else drawFlow();
    },
  };
}
