/**
 * A workflow's rules, revisions and replay (issue 27, docs/workflows.md): the rules of the draft
 * (else the published revision) as a form, one fieldset per rule with its condition (fact,
 * comparison, value) and its outcome; saving makes a draft revision. Then the revisions with who
 * saved them and a diff between any two, a replay of a revision over past sessions with its
 * report, and publishing (an earlier revision is the rollback). Admins change; everyone reads.
 */
import { diffLines } from 'diff';
import { graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { field, may, problemText, table } from './forms.js';
import { header } from './layout.js';

/** A rule as the API stores it. */
interface Rule {
  id: string;
  when: unknown;
  then: string;
  node?: string;
  reason?: string;
}

interface Revision {
  revision: number;
  createdAt: number;
  createdBy: string | null;
  published: boolean;
  draft: boolean;
  definition: { rules: Rule[]; nodes: { type: string }[] } & Record<string, unknown>;
}

interface Publication {
  revision: number;
  previousRevision: number | null;
  actorName: string | null;
  actorKeyId: string | null;
  publishedAt: number;
}

interface Replay {
  id: string;
  status: string;
  total: number;
  done: number;
  changed: number;
  byReason: { reason: string; count: number }[];
  changes: { sessionId: string; before: string; after: string; reason: string; matchedRules: string[] }[];
  error: string | null;
}

const DATA = `query ($id: String!) {
  workflow(id: $id) { id name builtIn publishedRevision draftRevision }
  workflowRevisions(id: $id) { revision createdAt createdBy published draft definition }
  workflowPublications(id: $id) { revision previousRevision actorName actorKeyId publishedAt }
}`;
const SAVE = `mutation ($id: String!, $input: UpdateWorkflowInput!) { saveWorkflowDraft(id: $id, input: $input) { draftRevision } }`;
const PUBLISH = `mutation ($id: String!, $revision: Int!) { publishWorkflowRevision(id: $id, revision: $revision) { publishedRevision } }`;
const REPLAY_FIELDS = 'id status total done changed byReason { reason count } changes { sessionId before after reason matchedRules } error';
const REPLAY = `mutation ($id: String!, $input: WorkflowReplayInput!) { startWorkflowReplay(id: $id, input: $input) { ${REPLAY_FIELDS} } }`;
const REPLAY_READ = `query ($id: String!) { workflowReplay(id: $id) { ${REPLAY_FIELDS} } }`;

/** Facts a condition compares, in words (src/domain/workflow-rules.ts `RuleFacts`). */
const FACTS: [string, string][] = [
  ['document.country', 'Document issuing country'],
  ['document.nationality', 'Nationality on the document'],
  ['document.type', 'Document type'],
  ['age', 'Age from the date of birth'],
  ['aml.score', 'AML score (0–100)'],
  ['aml.risk_band', 'AML risk band (none, low, medium, high)'],
  ['aml.hits', 'AML hit count'],
  ['lists.hits', 'List hits'],
  ['warnings', 'Warning codes'],
  ['environment', 'Environment (sandbox, live)'],
  ['metadata', 'Metadata field…'],
];
/** Comparisons the form writes; anything else is kept as JSON Logic. */
const COMPARISONS: [string, string][] = [
  ['==', 'is'],
  ['!=', 'is not'],
  ['in', 'is one of (comma-separated)'],
  ['not_in', 'is none of (comma-separated)'],
  ['contains', 'contains'],
  ['>=', 'is at least'],
  ['>', 'is more than'],
  ['<=', 'is at most'],
  ['<', 'is less than'],
  ['always', 'always'],
];
const OUTCOMES: [string, string][] = [
  ['review', 'send to review'],
  ['decline', 'decline with a reason'],
  ['approve', 'approve (a review becomes an approval)'],
  ['run_node', 'run a step (make it required)'],
  ['skip_node', 'skip a step'],
];

/** A simple condition the form can show, or null when the rule's JSON Logic is richer. */
interface Simple {
  fact: string;
  comparison: string;
  value: string;
}

function literal(value: string): unknown {
  const trimmed = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  return trimmed;
}

function list(value: string): unknown[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map(literal);
}

/** The JSON Logic of a simple condition. */
export function conditionOf(simple: Simple): unknown {
  const fact = { var: simple.fact };
  switch (simple.comparison) {
    case 'always':
      return true;
    case 'in':
      return { in: [fact, list(simple.value)] };
    case 'not_in':
      return { '!': { in: [fact, list(simple.value)] } };
    case 'contains':
      return { in: [literal(simple.value), fact] };
    default:
      return { [simple.comparison]: [fact, literal(simple.value)] };
  }
}

function shown(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

/** The simple form of a condition, when it has one. */
function simpleOf(condition: unknown): Simple | null {
  if (condition === true) return { fact: 'document.country', comparison: 'always', value: '' };
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return null;
  const [operator, argument] = Object.entries(condition)[0] ?? [];
  const varOf = (value: unknown) =>
    value !== null && typeof value === 'object' && 'var' in value && typeof value.var === 'string' ? value.var : null;
  if (operator === '!' && argument && typeof argument === 'object' && 'in' in argument && Array.isArray(argument.in)) {
    const fact = varOf(argument.in[0]);
    return fact ? { fact, comparison: 'not_in', value: shown(argument.in[1]) } : null;
  }
  if (!operator || !Array.isArray(argument) || argument.length !== 2) return null;
  const fact = varOf(argument[0]);
  if (operator === 'in' && !fact && varOf(argument[1]))
    return { fact: varOf(argument[1])!, comparison: 'contains', value: shown(argument[0]) };
  if (!fact || !COMPARISONS.some(([value]) => value === operator)) return null;
  return { fact, comparison: operator, value: shown(argument[1]) };
}

function select(id: string, label: string, options: [string, string][], value: string): HTMLElement {
  return field(
    id,
    label,
    h('select', {}, ...options.map(([option, text]) => h('option', { value: option, selected: option === value }, text))),
  );
}

/** One rule as a fieldset: its name, its condition and its outcome. */
function ruleFieldset(rule: Rule, index: number, nodes: string[], editable: boolean, remove: () => void): HTMLFieldSetElement {
  const prefix = `rule-${index}`;
  const simple = simpleOf(rule.when);
  const metadataKey = simple?.fact.startsWith('metadata.') ? simple.fact.slice('metadata.'.length) : '';
  const factValue = metadataKey ? 'metadata' : (simple?.fact ?? 'document.country');
  const condition = simple
    ? h(
        'div',
        { class: 'rule-condition' },
        select(`${prefix}-fact`, 'When', FACTS, factValue),
        field(`${prefix}-metadata`, 'Metadata field (when the fact is metadata)', h('input', { value: metadataKey })),
        select(`${prefix}-comparison`, 'Comparison', COMPARISONS, simple.comparison),
        field(`${prefix}-value`, 'Value', h('input', { value: simple.value })),
      )
    : field(`${prefix}-json`, 'Condition (JSON Logic)', h('textarea', { rows: '4' }, JSON.stringify(rule.when, null, 2)));
  const set = h(
    'fieldset',
    { class: 'rule card', 'data-rule': rule.id, disabled: !editable },
    h('legend', {}, `Rule ${index + 1}: ${rule.id}`),
    field(`${prefix}-id`, 'Name (a-z, 0-9, _)', h('input', { value: rule.id })),
    condition,
    select(`${prefix}-then`, 'Then', OUTCOMES, rule.then),
    select(
      `${prefix}-node`,
      'Step (for run and skip)',
      [['', '—'], ...nodes.map((node): [string, string] => [node, node.replace(/_/g, ' ')])],
      rule.node ?? '',
    ),
    field(`${prefix}-reason`, 'Reason code (decline, optional for review)', h('input', { value: rule.reason ?? '' })),
    h('p', { class: 'error', role: 'alert', id: `${prefix}-error` }),
    editable ? h('button', { type: 'button', class: 'danger', id: `${prefix}-remove`, onclick: remove }, `Remove rule ${index + 1}`) : null,
  );
  return set;
}

/** Reads a rule back from its fieldset. */
function ruleFrom(set: HTMLElement, index: number): Rule {
  const prefix = `rule-${index}`;
  const value = (name: string) =>
    set.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(`#${prefix}-${name}`)?.value.trim() ?? '';
  const json = set.querySelector<HTMLTextAreaElement>(`#${prefix}-json`);
  let condition: unknown;
  if (json) {
    try {
      condition = JSON.parse(json.value);
    } catch {
      condition = json.value;
    }
  } else {
    const fact = value('fact') === 'metadata' ? `metadata.${value('metadata')}` : value('fact');
    condition = conditionOf({ fact, comparison: value('comparison'), value: value('value') });
  }
  const rule: Rule = { id: value('id'), when: condition, then: value('then') };
  if (value('node') && (rule.then === 'run_node' || rule.then === 'skip_node')) rule.node = value('node');
  if (value('reason') && (rule.then === 'decline' || rule.then === 'review')) rule.reason = value('reason');
  return rule;
}

/** The diff of two revisions' definitions, line by line, additions and removals marked in words too. */
function revisionDiff(from: Revision, to: Revision): HTMLElement {
  const parts = diffLines(JSON.stringify(from.definition, null, 2) + '\n', JSON.stringify(to.definition, null, 2) + '\n');
  const lines = parts.flatMap((part) =>
    part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((line) =>
        part.added
          ? h('ins', { class: 'diff-added' }, `+ ${line}`)
          : part.removed
            ? h('del', { class: 'diff-removed' }, `- ${line}`)
            : h('span', { class: 'diff-same' }, `  ${line}`),
      ),
  );
  const changed = parts.some((part) => part.added || part.removed);
  return h(
    'div',
    { id: 'revision-diff', tabindex: '0', role: 'region', 'aria-label': `Changes from revision ${from.revision} to ${to.revision}` },
    h('p', {}, changed ? `Revision ${from.revision} → ${to.revision}: + added, − removed.` : 'The two revisions are the same.'),
    h('pre', { class: 'diff' }, ...lines.flatMap((line) => [line, '\n'])),
  );
}

/** A replay's report: progress, counts by reason and the changed sessions. */
function replayReport(replay: Replay): HTMLElement {
  return h(
    'div',
    { id: 'replay-report', 'data-status': replay.status, role: 'status' },
    h(
      'p',
      {},
      replay.status === 'done'
        ? `${replay.done} past sessions replayed: ${replay.changed} verdict${replay.changed === 1 ? '' : 's'} would change.`
        : replay.status === 'failed'
          ? `The replay failed: ${replay.error ?? 'unknown error'}`
          : `Replaying: ${replay.done} of ${replay.total} sessions.`,
    ),
    table(
      'replay-by-reason',
      'Changed verdicts by deciding reason',
      ['Reason', 'Sessions'],
      replay.byReason.map((row) => h('tr', {}, h('td', {}, row.reason), h('td', {}, String(row.count)))),
      'No verdict would change.',
    ),
    table(
      'replay-changes',
      'Sessions whose verdict would change',
      ['Session', 'Now', 'With this revision', 'Reason', 'Rules that held'],
      replay.changes.map((change) =>
        h(
          'tr',
          {},
          h('td', {}, h('a', { href: `#/case/${change.sessionId}` }, change.sessionId.slice(0, 8))),
          h('td', {}, change.before.replace(/_/g, ' ')),
          h('td', {}, change.after.replace(/_/g, ' ')),
          h('td', {}, change.reason),
          h('td', {}, change.matchedRules.join(', ') || '—'),
        ),
      ),
      'None.',
    ),
  );
}

/** The rules, revisions and replay screen of one workflow. */
export async function workflowRulesScreen(id: string): Promise<void> {
  const data = await graphql<{
    workflow: { id: string; name: string; builtIn: boolean; publishedRevision: number; draftRevision: number | null };
    workflowRevisions: Revision[];
    workflowPublications: Publication[];
  }>(DATA, { id });
  const { workflow, workflowRevisions: revisions, workflowPublications: publications } = data;
  const editable = !workflow.builtIn && may('admin');
  const base = revisions.find((revision) => revision.draft) ?? revisions.find((revision) => revision.published) ?? revisions[0]!;
  const nodes = base.definition.nodes.map((node) => node.type);
  let rules: Rule[] = [...base.definition.rules];
  const list = h('div', { id: 'rules' });
  const general = h('p', { class: 'error', role: 'alert', id: 'rules-error' });
  const render = () => {
    list.replaceChildren(
      ...(rules.length ? [] : [h('p', {}, 'No rule: the steps’ required flags and the AML threshold decide.')]),
      ...rules.map((rule, index) =>
        ruleFieldset(rule, index, nodes, editable, () => {
          rules = readRules().filter((_, at) => at !== index);
          render();
          list.querySelector<HTMLElement>('button, input')?.focus();
        }),
      ),
    );
  };
  const readRules = () => [...list.querySelectorAll<HTMLElement>('fieldset.rule')].map((set, index) => ruleFrom(set, index));
  render();
  const form = h(
    'form',
    {
      id: 'rules-form',
      onsubmit: async (event) => {
        event.preventDefault();
        general.textContent = '';
        for (const line of list.querySelectorAll<HTMLElement>('.error')) line.textContent = '';
        try {
          const saved = await graphql<{ saveWorkflowDraft: { draftRevision: number } }>(SAVE, { id, input: { rules: readRules() } });
          announce(`Draft revision ${saved.saveWorkflowDraft.draftRevision} saved.`);
          await workflowRulesScreen(id);
        } catch (failure) {
          const errors = (failure as { fieldErrors?: { field: string; message: string }[] }).fieldErrors ?? [];
          const unplaced: string[] = [];
          for (const error of errors) {
            const at = /^rules\[(\d+)\]/.exec(error.field);
            const line = at ? list.querySelector<HTMLElement>(`#rule-${at[1]}-error`) : null;
            if (line) line.textContent = [line.textContent, `${error.field}: ${error.message}`].filter(Boolean).join(' ');
            else unplaced.push(`${error.field}: ${error.message}`);
          }
          general.textContent = errors.length ? unplaced.join(' ') : problemText(failure);
          (list.querySelector<HTMLElement>('.error:not(:empty)') ?? general).scrollIntoView({ block: 'center' });
        }
      },
    },
    list,
    general,
    editable
      ? h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              id: 'add-rule',
              onclick: () => {
                rules = [
                  ...readRules(),
                  { id: `rule_${rules.length + 1}`, when: { '==': [{ var: 'document.country' }, ''] }, then: 'review' },
                ];
                render();
                list.querySelector<HTMLInputElement>(`#rule-${rules.length - 1}-id`)?.focus();
              },
            },
            'Add a rule',
          ),
          h('button', { type: 'submit', id: 'save-draft' }, 'Save as draft'),
        )
      : null,
  );

  const options = revisions.map((revision): [string, string] => [
    String(revision.revision),
    `${revision.revision}${revision.published ? ' (published)' : revision.draft ? ' (draft)' : ''}`,
  ]);
  const diffOut = h('div', { id: 'diff-out' });
  const fromSelect = select('diff-from', 'From revision', options, String(workflow.publishedRevision));
  const toSelect = select('diff-to', 'To revision', options, String(workflow.draftRevision ?? revisions[0]!.revision));
  const showDiff = () => {
    const pick = (box: HTMLElement) => revisions.find((revision) => String(revision.revision) === box.querySelector('select')!.value)!;
    diffOut.replaceChildren(revisionDiff(pick(fromSelect), pick(toSelect)));
  };
  const replayOut = h('div', { id: 'replay-out' });
  const replayError = h('p', { class: 'error', role: 'alert', id: 'replay-error' });
  const replayRevision = select(
    'replay-revision',
    'Revision to replay',
    options,
    String(workflow.draftRevision ?? workflow.publishedRevision),
  );
  const replayLast = field(
    'replay-last',
    'Last decided sessions (1–100000)',
    h('input', { type: 'number', min: '1', max: '100000', value: '200' }),
  );
  const replayForm = h(
    'form',
    {
      id: 'replay-form',
      onsubmit: async (event) => {
        event.preventDefault();
        replayError.textContent = '';
        try {
          const input = {
            revision: Number(replayRevision.querySelector('select')!.value),
            last: Number(replayLast.querySelector('input')!.value),
          };
          let { startWorkflowReplay: replay } = await graphql<{ startWorkflowReplay: Replay }>(REPLAY, { id, input });
          replayOut.replaceChildren(replayReport(replay));
          // A queued replay reports progress: read it again until it ends.
          while (replay.status === 'queued' || replay.status === 'running') {
            await new Promise((resolve) => setTimeout(resolve, 1000));
            replay = (await graphql<{ workflowReplay: Replay }>(REPLAY_READ, { id: replay.id })).workflowReplay;
            replayOut.replaceChildren(replayReport(replay));
          }
          announce(`Replay done: ${replay.changed} verdicts would change.`);
        } catch (failure) {
          replayError.textContent = problemText(failure);
        }
      },
    },
    h('div', { class: 'rule-condition' }, replayRevision, replayLast),
    replayError,
    h('button', { type: 'submit', id: 'run-replay' }, 'Replay over past sessions'),
  );

  show(
    'workflow-rules',
    header(),
    h(
      'main',
      { 'data-workflow-id': workflow.id },
      h('p', {}, h('a', { href: `#/workflows/${workflow.id}` }, `← ${workflow.name}`)),
      h('h1', { tabindex: '-1' }, `Rules and revisions: ${workflow.name}`),
      h(
        'p',
        { id: 'revision-state' },
        `New sessions run revision ${workflow.publishedRevision}.`,
        workflow.draftRevision ? ` Draft: revision ${workflow.draftRevision}.` : ' No draft.',
        ` The form shows revision ${base.revision}.`,
      ),
      h('section', { 'aria-labelledby': 'rules-title' }, h('h2', { id: 'rules-title' }, 'Rules, in order'), form),
      h(
        'section',
        { 'aria-labelledby': 'revisions-title' },
        h('h2', { id: 'revisions-title' }, 'Revisions'),
        table(
          'revisions',
          'Every save is a revision; publishing an earlier one rolls back',
          ['Revision', 'Saved', 'By', 'State', ''],
          revisions.map((revision) =>
            h(
              'tr',
              { 'data-revision': String(revision.revision) },
              h('td', {}, String(revision.revision)),
              h('td', {}, when(revision.createdAt)),
              h('td', {}, revision.createdBy ?? '—'),
              h('td', {}, revision.published ? 'published' : revision.draft ? 'draft' : '—'),
              h(
                'td',
                {},
                editable && !revision.published
                  ? h(
                      'button',
                      {
                        type: 'button',
                        id: `publish-${revision.revision}`,
                        onclick: async () => {
                          try {
                            await graphql(PUBLISH, { id, revision: revision.revision });
                            announce(`Revision ${revision.revision} published.`);
                            await workflowRulesScreen(id);
                          } catch (failure) {
                            general.textContent = problemText(failure);
                          }
                        },
                      },
                      revision.revision < workflow.publishedRevision ? `Roll back to ${revision.revision}` : `Publish ${revision.revision}`,
                    )
                  : '',
              ),
            ),
          ),
          'No revision.',
        ),
        h(
          'div',
          { class: 'rule-condition' },
          fromSelect,
          toSelect,
          h('button', { type: 'button', id: 'show-diff', onclick: showDiff }, 'Show the changes'),
        ),
        diffOut,
        table(
          'publications',
          'Publications',
          ['Revision', 'Replaced', 'Published by', 'When'],
          publications.map((publication) =>
            h(
              'tr',
              {},
              h('td', {}, String(publication.revision)),
              h('td', {}, publication.previousRevision === null ? '—' : String(publication.previousRevision)),
              h('td', {}, publication.actorName ?? (publication.actorKeyId ? `API key ${publication.actorKeyId.slice(0, 8)}` : '—')),
              h('td', {}, when(publication.publishedAt)),
            ),
          ),
          'No publication recorded (the workflow predates revisions).',
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'replay-title' },
        h('h2', { id: 'replay-title' }, 'Replay before publishing'),
        h('p', {}, 'Runs a revision over past decided sessions from their stored results: no check runs again and nothing changes.'),
        replayForm,
        replayOut,
      ),
    ),
  );
}
