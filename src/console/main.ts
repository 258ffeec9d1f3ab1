/**
 * The operator console: sign-in, the live review queue and the case page, in plain DOM on the
 * public GraphQL API. Screens are addressed by the fragment (`#/`, `#/case/<id>`), so the server
 * serves one page and a reload stays where it was.
 */
import type { Client } from 'graphql-ws';
import { ApiError, currentSignIn, graphql, openSocket, signIn, signOut, switchEnvironment, type SignIn } from './api.js';

const app = document.getElementById('app')!;
const announcer = document.getElementById('announcer')!;

let me: SignIn | null = null;
let socket: Client | null = null;
/** The in-review sessions the queue shows, by id, newest first when rendered. */
const queue = new Map<string, QueueItem>();

/** The queue's filters, applied by the server to the list and here to live arrivals. */
interface QueueFilter {
  vendorData?: string;
  workflowId?: string;
  /** Unix seconds, inclusive. */
  createdAfter?: number;
  /** Unix seconds, exclusive. */
  createdBefore?: number;
}
let filter: QueueFilter = {};

/** Whether a live arrival belongs in the filtered queue (the same rules the server's filter applies). */
function inFilter(item: QueueItem): boolean {
  if (filter.vendorData && item.vendorData !== filter.vendorData) return false;
  if (filter.workflowId && item.workflowId !== filter.workflowId) return false;
  if (filter.createdAfter !== undefined && item.createdAt < filter.createdAfter) return false;
  if (filter.createdBefore !== undefined && item.createdAt >= filter.createdBefore) return false;
  return true;
}

/** One row of the review queue. */
interface QueueItem {
  id: string;
  vendorData: string;
  workflowId: string;
  createdAt: number;
  updatedAt: number;
  decision: { reasons: { code: string; message: string }[] };
}

/** A node's result as the case page shows it. */
interface NodeResult {
  nodeType: string;
  status: string;
  warnings: { code: string; message: string }[];
  details: Record<string, any>;
}

/** The case page's session. */
interface Case extends QueueItem {
  status: string;
  environment: string;
  expectedDetails: Record<string, string> | null;
  nodeResults: NodeResult[];
  reviewHistory: {
    actor: string;
    actorName: string | null;
    fromStatus: string | null;
    toStatus: string;
    reason: string | null;
    at: number;
  }[];
  warnings: { code: string; message: string }[];
  evidence: { id: string; kind: string; contentType: string; url: string }[];
  notes: { id: string; authorName: string; body: string; createdAt: number }[];
}

const QUEUE_FIELDS = 'id vendorData workflowId createdAt updatedAt decision { reasons { code message } }';
const QUEUE = `query ($filter: SessionFilterInput!) { sessions(first: 100, filter: $filter) { edges { node { ${QUEUE_FIELDS} } } } }`;
const QUEUE_ITEM = `query ($id: String!) { session(id: $id) { status ${QUEUE_FIELDS} } }`;
const CASE = `query ($id: String!) { session(id: $id) { ${QUEUE_FIELDS} status environment expectedDetails evidence { id kind contentType url } notes { id authorName body createdAt }
  warnings { code message } nodeResults { nodeType status warnings { code message } details }
  reviewHistory { actor actorName fromStatus toStatus reason at } } }`;
const OVERVIEW = `query { decisionsPerDay(days: 14) { day approved declined } reviewBacklog { underAnHour underADay underAWeek older } }`;
const ADD_NOTE = `mutation ($sessionId: String!, $body: String!) { addSessionNote(sessionId: $sessionId, body: $body) { id } }`;
const REVIEW = `mutation ($id: String!, $decision: ReviewDecision!, $reason: String!) {
  reviewSession(id: $id, decision: $decision, reason: $reason) { id status } }`;
const REVIEW_QUEUE = 'subscription { reviewQueue { sessionId status previousStatus } }';

/** Creates an element with attributes (`on*` functions become listeners) and children. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | ((event: Event) => void) | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** Says something to screen readers (the visible change is on the page already). */
function announce(message: string): void {
  announcer.textContent = message;
}

/** Replaces the page with a screen; its first heading takes the focus so keyboard users start there. */
function show(screen: string, ...content: Node[]): void {
  app.dataset.screen = screen;
  app.replaceChildren(...content);
  app.querySelector<HTMLElement>('h1')?.focus();
}

/** A Unix time as the operator's local date and time. */
function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A status as a badge whose colour is never the only carrier of meaning (the word is there). */
function badge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status}` }, status.replace(/_/g, ' '));
}

/** The bar on every signed-in screen: where one is, who one is, the environment switch and sign-out. */
function header(): HTMLElement {
  const operator = me!.operator;
  const environment = h(
    'select',
    {
      id: 'environment',
      onchange: async (event) => {
        const value = (event.target as HTMLSelectElement).value;
        await switchEnvironment(value);
        me = { ...me!, environment: value as SignIn['environment'] };
        queue.clear();
        // A subscription keeps the scope it started with: follow the new environment on a new socket.
        socket?.dispose();
        socket = null;
        delete app.dataset.live;
        await route();
      },
    },
    ...(['live', 'sandbox'] as const).map((env) => h('option', { value: env, selected: me!.environment === env }, env)),
  );
  return h(
    'header',
    { class: 'bar' },
    h('a', { href: '#/', class: 'brand' }, 'openkyc console'),
    h('nav', { 'aria-label': 'Console' }, h('a', { href: '#/' }, 'Review queue'), ' ', h('a', { href: '#/overview' }, 'Overview')),
    h('div', { class: 'who' }, h('label', { for: 'environment' }, 'Environment'), environment),
    h('p', { class: 'who', id: 'operator' }, `${operator.name} · ${operator.role}`),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          await signOut();
          me = null;
          socket?.dispose();
          socket = null;
          queue.clear();
          location.hash = '#/';
          await route();
        },
      },
      'Sign out',
    ),
  );
}

/** The sign-in form. */
function signInScreen(problem?: string): void {
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem ?? '');
  const form = h(
    'form',
    {
      class: 'card narrow',
      'aria-describedby': 'sign-in-error',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        try {
          me = await signIn(String(data.get('email')), String(data.get('password')), String(data.get('environment')));
          await route();
        } catch (failure) {
          error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
        }
      },
    },
    h('h1', { tabindex: '-1' }, 'Sign in to the console'),
    h('label', { for: 'email' }, 'Email address'),
    h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true }),
    h('label', { for: 'password' }, 'Password'),
    h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h('label', { for: 'sign-in-environment' }, 'Environment'),
    h(
      'select',
      { id: 'sign-in-environment', name: 'environment' },
      h('option', { value: 'live' }, 'live'),
      h('option', { value: 'sandbox' }, 'sandbox'),
    ),
    error,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  show('sign-in', h('main', {}, form));
}

/** Rows of the queue table, newest first. */
function queueRows(): HTMLElement[] {
  return [...queue.values()]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .map((item) =>
      h(
        'tr',
        { 'data-session-id': item.id },
        h('td', {}, h('a', { href: `#/case/${item.id}` }, item.vendorData)),
        h('td', {}, item.workflowId),
        h('td', {}, item.decision.reasons.map((reason) => reason.message).join(' ') || '—'),
        h('td', {}, when(item.updatedAt)),
      ),
    );
}

/** Re-renders the queue's table body and count in place (the screen stays, focus stays). */
function refreshQueueTable(): void {
  const body = app.querySelector('#queue-rows');
  if (!body) return;
  const rows = queueRows();
  body.replaceChildren(
    ...(rows.length
      ? rows
      : [h('tr', {}, h('td', { colspan: '4' }, 'Nothing to review: a case appears here as soon as it needs a person.'))]),
  );
  app.querySelector('#queue-count')!.textContent =
    queue.size === 0 ? 'No case waits for review.' : queue.size === 1 ? '1 case waits for review.' : `${queue.size} cases wait for review.`;
}

/** The live review queue. */
async function queueScreen(): Promise<void> {
  const answer = await graphql<{ sessions: { edges: { node: QueueItem }[] } }>(QUEUE, { filter: { statuses: ['in_review'], ...filter } });
  queue.clear();
  for (const { node } of answer.sessions.edges) queue.set(node.id, node);
  show(
    'queue',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Review queue'),
      filterForm(),
      h('p', { id: 'queue-count' }),
      h('p', { class: 'live', id: 'live' }, socket ? 'Connecting for live updates…' : ''),
      h(
        'table',
        { tabindex: '0' },
        h('caption', {}, `Sessions in review, ${me!.environment}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Vendor data'),
            h('th', { scope: 'col' }, 'Workflow'),
            h('th', { scope: 'col' }, 'Why'),
            h('th', { scope: 'col' }, 'Last change'),
          ),
        ),
        h('tbody', { id: 'queue-rows' }),
      ),
    ),
  );
  refreshQueueTable();
  markLive();
}

/** A day picked in a date input as Unix seconds at its start (UTC), or undefined when empty. */
function dayStart(value: FormDataEntryValue | null): number | undefined {
  return typeof value === 'string' && value ? Date.parse(`${value}T00:00:00Z`) / 1000 : undefined;
}

/** The queue's filters: vendor data, workflow and creation dates. */
function filterForm(): HTMLElement {
  const day = (seconds: number | undefined) => (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString().slice(0, 10));
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter the queue',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const until = dayStart(data.get('created_to'));
        filter = {
          vendorData: String(data.get('vendor_data') ?? '').trim() || undefined,
          workflowId: String(data.get('workflow_id') ?? '').trim() || undefined,
          createdAfter: dayStart(data.get('created_from')),
          createdBefore: until === undefined ? undefined : until + 24 * 3600,
        };
        await queueScreen();
        announce(`${queue.size} cases match.`);
      },
    },
    h(
      'div',
      {},
      h('label', { for: 'filter-vendor' }, 'Vendor data'),
      h('input', { id: 'filter-vendor', name: 'vendor_data', value: filter.vendorData }),
    ),
    h(
      'div',
      {},
      h('label', { for: 'filter-workflow' }, 'Workflow'),
      h('input', { id: 'filter-workflow', name: 'workflow_id', value: filter.workflowId }),
    ),
    h(
      'div',
      {},
      h('label', { for: 'filter-from' }, 'Created from'),
      h('input', { id: 'filter-from', name: 'created_from', type: 'date', value: day(filter.createdAfter) }),
    ),
    h(
      'div',
      {},
      h('label', { for: 'filter-to' }, 'Created until'),
      h('input', {
        id: 'filter-to',
        name: 'created_to',
        type: 'date',
        value: day(filter.createdBefore === undefined ? undefined : filter.createdBefore - 24 * 3600),
      }),
    ),
    h('button', { type: 'submit' }, 'Filter'),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          filter = {};
          await queueScreen();
        },
      },
      'Clear',
    ),
  );
  return form;
}

/** Shows that the queue follows the server live once the socket is up. */
function markLive(): void {
  const live = app.querySelector('#live');
  if (live && app.dataset.live === 'on') live.textContent = 'Live: new cases appear here without reloading.';
}

/** Personal details as given beside the document's fields as read (MRZ or OCR), a difference marked in words. */
function identitySection(session: Case): HTMLElement {
  const document = session.nodeResults.find((node) => node.nodeType === 'document_verification');
  const extracted = (document?.details.extracted ?? {}) as Record<string, unknown>;
  const expected = session.expectedDetails ?? {};
  const fields: [string, string][] = [
    ['First name', 'first_name'],
    ['Last name', 'last_name'],
    ['Date of birth', 'date_of_birth'],
    ['Nationality', 'nationality'],
    ['Document number', 'document_number'],
    ['Expiry date', 'expiry_date'],
    ['MRZ format', 'mrz_format'],
  ];
  const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));
  return h(
    'section',
    { 'aria-labelledby': 'identity-heading' },
    h('h2', { id: 'identity-heading' }, 'Identity'),
    h(
      'p',
      {},
      document
        ? `Document: ${document.details.document_type ?? '?'} issued by ${document.details.issuing_country ?? '?'}.`
        : 'No document step.',
    ),
    h(
      'table',
      { tabindex: '0', id: 'identity' },
      h('caption', {}, 'Personal details given beside the document as read'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Given'), h('th', { scope: 'col' }, 'Document')),
      ),
      h(
        'tbody',
        {},
        ...fields
          .filter(([, key]) => expected[key] !== undefined || (extracted[key] !== null && extracted[key] !== undefined))
          .map(([label, key]) => {
            const given = expected[key];
            const read = extracted[key];
            const differs =
              given !== undefined && read !== undefined && read !== null && String(given).toLowerCase() !== String(read).toLowerCase();
            return h(
              'tr',
              { class: differs ? 'differs' : undefined },
              h('th', { scope: 'row' }, label),
              h('td', {}, text(given)),
              h('td', {}, text(read), differs ? h('strong', {}, ' (differs)') : null),
            );
          }),
      ),
    ),
  );
}

/** Names of the evidence kinds as shown. */
const EVIDENCE_LABELS: Record<string, string> = {
  document_front: 'Document, front',
  document_back: 'Document, back',
  selfie: 'Selfie',
  proof_of_address: 'Proof of address',
};

/**
 * The document front and back beside the selfie, with the similarity the face step measured.
 * Each file comes through its short-lived signed URL, and the server audits every opening; the
 * latest submission of each kind is shown (earlier ones were retakes).
 */
function evidenceSection(session: Case): HTMLElement {
  const latest = new Map(session.evidence.map((item) => [item.kind, item]));
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  const similarity = typeof face?.details.similarity === 'number' ? `${Math.round(face.details.similarity * 100)} %` : null;
  return h(
    'section',
    { 'aria-labelledby': 'evidence-heading' },
    h('h2', { id: 'evidence-heading' }, 'Evidence'),
    latest.size === 0
      ? h('p', {}, 'Nothing kept: the files were not images, or the retention period is 0 or over.')
      : h(
          'div',
          { class: 'evidence', id: 'evidence' },
          ...[...latest.values()].map((item) => {
            const label = EVIDENCE_LABELS[item.kind] ?? item.kind;
            return h(
              'figure',
              { 'data-kind': item.kind },
              item.contentType.startsWith('image/')
                ? h('img', { src: item.url, alt: `${label} as submitted` })
                : h('a', { href: item.url, target: '_blank', rel: 'noopener' }, `Open the ${label.toLowerCase()} (PDF)`),
              h('figcaption', {}, item.kind === 'selfie' && similarity ? `${label} · similarity ${similarity}` : label),
            );
          }),
        ),
  );
}

/** Every node's result, warnings and the checks it ran. */
function checksSection(session: Case): HTMLElement {
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  return h(
    'section',
    { 'aria-labelledby': 'checks-heading' },
    h('h2', { id: 'checks-heading' }, 'Checks'),
    face?.details.similarity !== undefined
      ? h('p', { id: 'similarity' }, `Face similarity between document and selfie: ${Math.round(face.details.similarity * 100)} %`)
      : null,
    h(
      'table',
      { tabindex: '0' },
      h('caption', {}, 'Result of each step'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Step'),
          h('th', { scope: 'col' }, 'Result'),
          h('th', { scope: 'col' }, 'Checks'),
          h('th', { scope: 'col' }, 'Warnings'),
        ),
      ),
      h(
        'tbody',
        {},
        ...session.nodeResults.map((node) =>
          h(
            'tr',
            { 'data-node': node.nodeType },
            h('th', { scope: 'row' }, node.nodeType.replace(/_/g, ' ')),
            h('td', {}, badge(node.status)),
            h(
              'td',
              {},
              Object.entries((node.details.checks ?? {}) as Record<string, string>)
                .map(([check, result]) => `${check.replace(/_/g, ' ')}: ${result}`)
                .join(', ') ||
                (node.details.result_code ?? '—'),
            ),
            h('td', {}, node.warnings.map((warning) => warning.message).join(' ') || '—'),
          ),
        ),
      ),
    ),
  );
}

/** AML hits with the listed entity and its list. */
function amlSection(session: Case): HTMLElement | null {
  const aml = session.nodeResults.find((node) => node.nodeType === 'aml_screening');
  if (!aml) return null;
  const hits = (aml.details.hits ?? []) as { list: string; category?: string; matched_name: string; score: number; entry_id: string }[];
  return h(
    'section',
    { 'aria-labelledby': 'aml-heading' },
    h('h2', { id: 'aml-heading' }, 'AML screening'),
    h(
      'p',
      {},
      `Screened ${aml.details.subject?.full_name ?? 'the subject'} against ${((aml.details.checked_lists ?? []) as string[]).join(', ') || 'no list'}; score ${aml.details.score ?? 0}.`,
    ),
    hits.length === 0
      ? h('p', {}, 'No hit.')
      : h(
          'table',
          { tabindex: '0', id: 'aml-hits' },
          h('caption', {}, 'Hits'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Listed name'),
              h('th', { scope: 'col' }, 'List'),
              h('th', { scope: 'col' }, 'Category'),
              h('th', { scope: 'col' }, 'Score'),
              h('th', { scope: 'col' }, 'Entry'),
            ),
          ),
          h(
            'tbody',
            {},
            ...hits.map((hit) =>
              h(
                'tr',
                {},
                h('td', {}, hit.matched_name),
                h('td', {}, hit.list),
                h('td', {}, hit.category ?? '—'),
                h('td', {}, String(hit.score)),
                h('td', {}, hit.entry_id),
              ),
            ),
          ),
        ),
  );
}

/** The audit trail, oldest first: who moved the session where, and why. */
function timelineSection(session: Case): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    h(
      'ol',
      { class: 'timeline', id: 'timeline' },
      ...session.reviewHistory.map((change) =>
        h(
          'li',
          {},
          h('time', {}, when(change.at)),
          ' ',
          badge(change.toStatus),
          ` by ${change.actorName ? `${change.actorName} (${change.actor})` : change.actor}`,
          change.reason ? h('span', { class: 'reason' }, ` — ${change.reason}`) : null,
        ),
      ),
    ),
  );
}

/** Notes on the case, under their authors' names; reviewers and admins add them. */
function notesSection(session: Case): HTMLElement {
  const list = h(
    'ul',
    { class: 'notes', id: 'notes' },
    ...session.notes.map((note) =>
      h('li', {}, h('p', {}, note.body), h('p', { class: 'reason' }, `${note.authorName}, ${when(note.createdAt)}`)),
    ),
  );
  const heading = h('h2', { id: 'notes-heading' }, 'Notes');
  if (me!.operator.role === 'viewer')
    return h('section', { 'aria-labelledby': 'notes-heading' }, heading, session.notes.length ? list : h('p', {}, 'No notes.'));
  const error = h('p', { class: 'error', role: 'alert', id: 'note-error' });
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        const body = (form.querySelector('#note') as HTMLTextAreaElement).value.trim();
        if (!body) {
          error.textContent = 'Write the note first.';
          return;
        }
        try {
          await graphql(ADD_NOTE, { sessionId: session.id, body });
          announce('Note added.');
          await caseScreen(session.id);
        } catch (failure) {
          error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
        }
      },
    },
    h('label', { for: 'note' }, 'New note'),
    h('textarea', { id: 'note', name: 'note', rows: '2' }),
    error,
    h('button', { type: 'submit', class: 'secondary' }, 'Add note'),
  );
  return h('section', { 'aria-labelledby': 'notes-heading' }, heading, session.notes.length ? list : null, form);
}

/** Approve or decline with a reason, for reviewers and admins while the session is in review. */
function decisionSection(session: Case): HTMLElement {
  const heading = h('h2', { id: 'decision-heading' }, 'Decision');
  if (session.status !== 'in_review')
    return h('section', { 'aria-labelledby': 'decision-heading' }, heading, h('p', { id: 'decided' }, 'Decided: ', badge(session.status)));
  if (me!.operator.role === 'viewer')
    return h(
      'section',
      { 'aria-labelledby': 'decision-heading' },
      heading,
      h('p', { id: 'viewer-note' }, 'Your role (viewer) can read cases; it cannot decide them.'),
    );
  const error = h('p', { class: 'error', role: 'alert', id: 'decision-error' });
  const decide = (decision: 'approved' | 'declined') => async () => {
    const reason = (form.querySelector('#reason') as HTMLTextAreaElement).value.trim();
    if (!reason) {
      error.textContent = 'Give a reason: it goes into the audit trail.';
      return;
    }
    try {
      await graphql(REVIEW, { id: session.id, decision, reason });
      announce(`Session ${decision}.`);
      await caseScreen(session.id);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
  const form = h(
    'form',
    { onsubmit: (event) => event.preventDefault() },
    h('label', { for: 'reason' }, 'Reason (kept in the audit trail)'),
    h('textarea', { id: 'reason', name: 'reason', rows: '3', required: true }),
    error,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', id: 'approve', onclick: decide('approved') }, 'Approve'),
      h('button', { type: 'button', id: 'decline', class: 'danger', onclick: decide('declined') }, 'Decline'),
    ),
  );
  return h('section', { 'aria-labelledby': 'decision-heading' }, heading, form);
}

/** One case: what the checks found, the audit trail and the decision. */
async function caseScreen(id: string): Promise<void> {
  let session: Case;
  try {
    session = (await graphql<{ session: Case }>(CASE, { id })).session;
  } catch (failure) {
    show(
      'not-found',
      header(),
      h(
        'main',
        {},
        h('h1', { tabindex: '-1' }, 'Case not found'),
        h('p', {}, failure instanceof ApiError ? failure.message : String(failure)),
        h('p', {}, h('a', { href: '#/' }, 'Back to the queue')),
      ),
    );
    return;
  }
  show(
    'case',
    header(),
    h(
      'main',
      { 'data-session-id': session.id, 'data-status': session.status },
      h('p', {}, h('a', { href: '#/' }, '← Review queue')),
      h('h1', { tabindex: '-1' }, `Case ${session.vendorData}`),
      h(
        'p',
        {},
        'Status: ',
        badge(session.status),
        ` · workflow ${session.workflowId} · ${session.environment} · created ${when(session.createdAt)}`,
      ),
      session.decision.reasons.length
        ? h('ul', { class: 'reasons' }, ...session.decision.reasons.map((reason) => h('li', {}, reason.message)))
        : null,
      h(
        'div',
        { class: 'columns wide' },
        h('div', {}, evidenceSection(session), identitySection(session), checksSection(session), amlSection(session)),
        h('div', {}, decisionSection(session), notesSection(session), timelineSection(session)),
      ),
    ),
  );
}

const SVG = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes. */
function svg(tag: string, attributes: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/**
 * A bar chart: one group per label, one bar per series, drawn to scale with the counts written
 * above the bars; the figure's table says the same for people who would rather read.
 */
function barChart(
  id: string,
  title: string,
  labels: string[],
  series: { name: string; className: string; values: number[] }[],
  /** Writes 0 above empty bars too: for a few bars, where "none" is the news. */
  showZeros = false,
): HTMLElement {
  const width = 640;
  const height = 220;
  const top = 20;
  const bottom = 36;
  const max = Math.max(1, ...series.flatMap((one) => one.values));
  const groupWidth = width / labels.length;
  const barWidth = Math.max(4, (groupWidth - 8) / series.length);
  const bars = labels.flatMap((label, index) =>
    series.map((one, s) => {
      const value = one.values[index]!;
      const barHeight = ((height - top - bottom) * value) / max;
      const x = index * groupWidth + 4 + s * barWidth;
      const y = height - bottom - barHeight;
      return svg(
        'g',
        {},
        svg(
          'rect',
          { x, y, width: barWidth - 2, height: barHeight, class: one.className },
          svg('title', {}, `${label}, ${one.name}: ${value}`),
        ),
        value > 0 || showZeros
          ? svg('text', { x: x + (barWidth - 2) / 2, y: y - 4, 'text-anchor': 'middle', class: 'chart-value' }, String(value))
          : '',
      );
    }),
  );
  const axis = labels.map((label, index) =>
    svg('text', { x: index * groupWidth + groupWidth / 2, y: height - bottom + 16, 'text-anchor': 'middle', class: 'chart-label' }, label),
  );
  return h(
    'figure',
    { class: 'chart', id },
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title }, ...bars, ...axis) as unknown as HTMLElement,
    h('figcaption', {}, title, ' ', ...series.map((one) => h('span', { class: `key ${one.className}` }, one.name))),
    h(
      'table',
      { class: 'visually-hidden' },
      h('caption', {}, title),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...series.map((one) => h('th', { scope: 'col' }, one.name)))),
      h(
        'tbody',
        {},
        ...labels.map((label, index) =>
          h('tr', {}, h('th', { scope: 'row' }, label), ...series.map((one) => h('td', {}, String(one.values[index])))),
        ),
      ),
    ),
  );
}

/** Charts where people would rather look than read: decisions per day by outcome, and the review backlog by age. */
async function overviewScreen(): Promise<void> {
  const data = await graphql<{
    decisionsPerDay: { day: string; approved: number; declined: number }[];
    reviewBacklog: { underAnHour: number; underADay: number; underAWeek: number; older: number };
  }>(OVERVIEW);
  const days = data.decisionsPerDay;
  const backlog = data.reviewBacklog;
  show(
    'overview',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Overview'),
      h('h2', {}, 'Decisions per day'),
      barChart(
        'decisions-chart',
        `Decisions per day over the last 14 days, ${me!.environment} (UTC days)`,
        days.map((day) => day.day.slice(5)),
        [
          { name: 'approved', className: 'series-approved', values: days.map((day) => day.approved) },
          { name: 'declined', className: 'series-declined', values: days.map((day) => day.declined) },
        ],
      ),
      h('h2', {}, 'Review backlog by age'),
      barChart(
        'backlog-chart',
        'Cases waiting for review, by time since their last change',
        ['under 1 h', '1–24 h', '1–7 days', '7 days +'],
        [
          {
            name: 'cases',
            className: 'series-backlog',
            values: [backlog.underAnHour, backlog.underADay, backlog.underAWeek, backlog.older],
          },
        ],
        true,
      ),
    ),
  );
}

/** Follows the review queue of the sign-in's tenant and environment: sessions entering review are added, leaving it removed; an open case stays current. */
function follow(): void {
  if (socket) return;
  socket = openSocket(() => {
    app.dataset.live = 'on';
    markLive();
  });
  socket.subscribe<{ reviewQueue: { sessionId: string; status: string; previousStatus: string | null } }>(
    { query: REVIEW_QUEUE },
    {
      next: async ({ data }) => {
        const change = data?.reviewQueue;
        if (!change) return;
        if (change.status === 'in_review') {
          const { session } = await graphql<{ session: QueueItem & { status: string } }>(QUEUE_ITEM, { id: change.sessionId });
          if (session.status === 'in_review' && inFilter(session)) {
            queue.set(session.id, session);
            announce(`New case in review: ${session.vendorData}.`);
          }
        } else queue.delete(change.sessionId);
        refreshQueueTable();
        const open = app.querySelector<HTMLElement>('main[data-session-id]');
        if (open?.dataset.sessionId === change.sessionId && open.dataset.status !== change.status) await caseScreen(change.sessionId);
      },
      error: () => {
        app.dataset.live = 'off';
      },
      complete: () => undefined,
    },
  );
}

/** Shows the screen the fragment names, or the sign-in when nobody is signed in. */
async function route(): Promise<void> {
  me ??= await currentSignIn();
  if (!me) return signInScreen();
  follow();
  const caseId = /^#\/case\/([\w-]+)$/.exec(location.hash)?.[1];
  if (caseId) return caseScreen(caseId);
  if (location.hash === '#/overview') return overviewScreen();
  return queueScreen();
}

window.addEventListener('hashchange', () => void route());
void route();
