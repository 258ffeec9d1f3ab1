/**
 * A workflow's rules, revisions and replay (issue 27, docs/workflows.md): the draft (else the
 * published revision) as a graph of its steps and branches, each with its form (workflow-graph.ts);
 * saving makes a draft revision. Then the revisions with who
 * saved them and a diff between any two, a replay of a revision over past sessions with its
 * report, and publishing (an earlier revision is the rollback). Admins change; everyone reads.
 */
import { diffLines } from 'diff';
import { graphql } from './api.js';
import { changesInWords } from './condition-builder.js';
import { announce, h, show, when } from './dom.js';
import { field, may, problemText, table } from './forms.js';
import { header } from './layout.js';
import { workflowGraph, type FieldProblem, type GraphNode, type Rule } from './workflow-graph.js';

interface Revision {
  revision: number;
  createdAt: number;
  createdBy: string | null;
  published: boolean;
  draft: boolean;
  definition: { rules: Rule[]; nodes: GraphNode[] } & Record<string, unknown>;
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
  reasonCodes { code builtIn }
}`;
const SAVE = `mutation ($id: String!, $input: UpdateWorkflowInput!) { saveWorkflowDraft(id: $id, input: $input) { draftRevision } }`;
const PUBLISH = `mutation ($id: String!, $revision: Int!) { publishWorkflowRevision(id: $id, revision: $revision) { publishedRevision } }`;
const REPLAY_FIELDS = 'id status total done changed byReason { reason count } changes { sessionId before after reason matchedRules } error';
const REPLAY = `mutation ($id: String!, $input: WorkflowReplayInput!) { startWorkflowReplay(id: $id, input: $input) { ${REPLAY_FIELDS} } }`;
const REPLAY_READ = `query ($id: String!) { workflowReplay(id: $id) { ${REPLAY_FIELDS} } }`;

function select(id: string, label: string, options: [string, string][], value: string): HTMLElement {
  return field(
    id,
    label,
    h('select', {}, ...options.map(([option, text]) => h('option', { value: option, selected: option === value }, text))),
  );
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
    h('p', {}, changed ? `Revision ${from.revision} → ${to.revision}, in words:` : 'The two revisions are the same.'),
    changed
      ? h('ul', { id: 'revision-changes' }, ...changesInWords(from.definition, to.definition).map((line) => h('li', {}, line)))
      : null,
    changed ? h('p', {}, 'Line by line: + added, − removed.') : null,
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
    reasonCodes: { code: string; builtIn: boolean }[];
  }>(DATA, { id });
  const { workflow, workflowRevisions: revisions, workflowPublications: publications } = data;
  const editable = !workflow.builtIn && may('admin');
  const base = revisions.find((revision) => revision.draft) ?? revisions.find((revision) => revision.published) ?? revisions[0]!;
  const reasonCodes = data.reasonCodes.filter((reason) => reason.builtIn).map((reason) => reason.code);
  const baseNodes = base.definition.nodes.map(({ type, required, provider }) => ({ type, required, provider }));
  const graph = workflowGraph({ nodes: baseNodes, rules: base.definition.rules }, editable, reasonCodes);
  const general = h('p', { class: 'error', role: 'alert', id: 'rules-error' });
  const form = h(
    'form',
    {
      id: 'rules-form',
      onsubmit: async (event) => {
        event.preventDefault();
        general.textContent = '';
        const edited = graph.read();
        const nodesChanged = JSON.stringify(edited.nodes) !== JSON.stringify(baseNodes);
        try {
          const input = { rules: edited.rules, ...(nodesChanged ? { nodes: edited.nodes } : {}) };
          const saved = await graphql<{ saveWorkflowDraft: { draftRevision: number } }>(SAVE, { id, input });
          announce(`Draft revision ${saved.saveWorkflowDraft.draftRevision} saved.`);
          await workflowRulesScreen(id);
        } catch (failure) {
          const errors = (failure as { fieldErrors?: FieldProblem[] }).fieldErrors ?? [];
          general.textContent = errors.length
            ? `The draft was not saved: ${errors.length} problem${errors.length === 1 ? '' : 's'}, listed above the graph.`
            : problemText(failure);
          graph.showProblems(errors);
        }
      },
    },
    graph.element,
    general,
    editable ? h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'save-draft' }, 'Save as draft')) : null,
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
  // Or a date range: sessions created from the first day to the end of the last (UTC).
  const today = new Date().toISOString().slice(0, 10);
  const replayFrom = field('replay-from', 'Created from (day)', h('input', { type: 'date', value: today }));
  const replayTo = field('replay-to', 'Created until (day, included)', h('input', { type: 'date', value: today }));
  const showSelection = (by: string) => {
    replayLast.hidden = by !== 'last';
    replayFrom.hidden = replayTo.hidden = by !== 'range';
  };
  const replayBy = field(
    'replay-by',
    'Sessions to replay',
    h(
      'select',
      { onchange: (event) => showSelection((event.target as HTMLSelectElement).value) },
      h('option', { value: 'last' }, 'the last N decided'),
      h('option', { value: 'range' }, 'those created in a date range'),
    ),
  );
  showSelection('last');
  /** The selection as the API takes it. */
  const replaySelection = (): { last: number } | { from: number; to: number } => {
    if (replayBy.querySelector('select')!.value === 'last') return { last: Number(replayLast.querySelector('input')!.value) };
    const day = (box: HTMLElement) => Date.parse(`${box.querySelector('input')!.value}T00:00:00Z`) / 1000;
    return { from: day(replayFrom), to: day(replayTo) + 86_400 };
  };
  const replayForm = h(
    'form',
    {
      id: 'replay-form',
      onsubmit: async (event) => {
        event.preventDefault();
        replayError.textContent = '';
        replayOut.replaceChildren();
        try {
          const input = { revision: Number(replayRevision.querySelector('select')!.value), ...replaySelection() };
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
    h('div', { class: 'rule-condition' }, replayRevision, replayBy, replayLast, replayFrom, replayTo),
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
      h(
        'section',
        { 'aria-labelledby': 'graph-title' },
        h('h2', { id: 'graph-title', tabindex: '-1' }, 'The workflow as a graph'),
        h(
          'p',
          { class: 'hint' },
          'Steps run from top to bottom; each branch (a rule) is drawn at the point where what it reads is known, with what it does. Branches are checked in order: a decline wins, then a review, then an approval.',
        ),
        form,
      ),
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
