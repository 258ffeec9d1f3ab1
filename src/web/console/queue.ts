/**
 * The live review queue: in-review sessions of the sign-in's environment, filtered, following
 * graphql-ws. The status filter turns it into a search of the sessions in another status (kept
 * current by the same subscription).
 */
import { graphql, openSocket } from './api.js';
import { caseScreen } from './case.js';
import { announce, h, root, show, when } from './dom.js';
import { header } from './layout.js';
import { downloadButton } from './exports.js';
import { bulkBar, nextCaseButton, selectCell, SLA_FIELDS, slaCell, type QueueSla } from './workload.js';
import { me, state } from './state.js';

/** The in-review sessions the queue shows, by id, newest first when rendered. */
const queue = new Map<string, QueueItem>();

/** The queue's filters, applied by the server to the list and here to live arrivals. */
interface QueueFilter {
  /** The status listed; in_review (the queue) when not set. */
  status?: string;
  vendorData?: string;
  workflowId?: string;
  /** Unix seconds, inclusive. */
  createdAfter?: number;
  /** Unix seconds, exclusive. */
  createdBefore?: number;
}
let filter: QueueFilter = {};

/** Statuses the filter offers, the queue's first. */
const STATUSES = ['in_review', 'in_progress', 'pending', 'approved', 'declined', 'expired'];

/** The status the list shows. */
function listedStatus(): string {
  return filter.status ?? 'in_review';
}

/** The count above the table, in the queue's words or a search's. */
function countText(): string {
  // An empty search or filtered queue found nothing; only the unfiltered queue is empty of work.
  if (queue.size === 0 && (listedStatus() !== 'in_review' || filtered())) return 'No sessions match these filters.';
  if (listedStatus() !== 'in_review') return queue.size === 1 ? '1 session matches.' : `${queue.size} sessions match.`;
  return queue.size === 0
    ? 'No case waits for review.'
    : queue.size === 1
      ? '1 case waits for review.'
      : `${queue.size} cases wait for review.`;
}
state.resets.push(() => queue.clear());

/** Whether a filter beyond the status narrows the list (an empty list then means no match, not an empty queue). */
function filtered(): boolean {
  return Boolean(filter.vendorData || filter.workflowId || filter.createdAfter !== undefined || filter.createdBefore !== undefined);
}

/** Whether a live arrival belongs in the filtered queue (the same rules the server's filter applies). */
function inFilter(item: QueueItem): boolean {
  if (filter.vendorData && item.vendorData !== filter.vendorData) return false;
  if (filter.workflowId && item.workflowId !== filter.workflowId) return false;
  if (filter.createdAfter !== undefined && item.createdAt < filter.createdAfter) return false;
  if (filter.createdBefore !== undefined && item.createdAt >= filter.createdBefore) return false;
  return true;
}

/** One row of the review queue. */
export interface QueueItem extends QueueSla {
  id: string;
  vendorData: string;
  workflowId: string;
  createdAt: number;
  updatedAt: number;
  /** The workflow's name, so custom workflows read as what they are, not as a UUID. */
  workflow?: { name: string } | null;
  decision: { reasons: { code: string; message: string; cause: string; reviewerText: string }[] };
  claim?: { operatorName: string } | null;
}

const QUEUE_FIELDS = `id vendorData workflowId workflow { name } createdAt updatedAt decision { reasons { code message cause reviewerText } } claim { operatorName } ${SLA_FIELDS}`;

/** Why a case is in the queue, in the reason catalogue's words for reviewers (each sentence once). */
export function whyText(item: Pick<QueueItem, 'decision'>): string {
  return [...new Set(item.decision.reasons.map((reason) => reason.reviewerText))].join(' ') || '—';
}
const QUEUE = `query ($filter: SessionFilterInput!) { sessions(first: 100, filter: $filter) { edges { node { ${QUEUE_FIELDS} } } } }`;
const QUEUE_ITEM = `query ($id: String!) { session(id: $id) { status ${QUEUE_FIELDS} } }`;
const REVIEW_QUEUE = 'subscription { reviewQueue { sessionId status previousStatus actor } }';

/** Rows of the queue table, newest first. */
function queueRows(): HTMLElement[] {
  return [...queue.values()]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .map((item) =>
      h(
        'tr',
        { 'data-session-id': item.id },
        selectCell(item.id, item.vendorData),
        h('td', {}, h('a', { href: `#/case/${item.id}` }, item.vendorData)),
        h('td', {}, item.workflow?.name ?? item.workflowId),
        h('td', {}, whyText(item)),
        h('td', { class: 'holder' }, item.claim?.operatorName ?? 'nobody'),
        slaCell(item),
        h('td', {}, when(item.updatedAt)),
      ),
    );
}

/** Re-renders the queue's table body and count in place (the screen stays, focus stays). */
function refreshQueueTable(): void {
  const body = root.querySelector('#queue-rows');
  if (!body) return;
  const rows = queueRows();
  body.replaceChildren(
    ...(rows.length
      ? rows
      : [
          h(
            'tr',
            {},
            h(
              'td',
              { colspan: '7' },
              listedStatus() === 'in_review' && !filtered()
                ? 'Nothing to review: a case appears here as soon as it needs a person.'
                : 'No sessions match these filters.',
            ),
          ),
        ]),
  );
  root.querySelector('#queue-count')!.textContent = countText();
}

/** Counts queue loads: only the newest may draw, so a slower answer to an earlier filter never replaces a later one. */
let queueLoads = 0;

/** The live review queue. */
export async function queueScreen(): Promise<void> {
  const load = ++queueLoads;
  // The list on screen is stale until this load draws: said to assistive technology, and to the
  // browser tests, which must not type into a form the answer is about to redraw.
  document.querySelector('#queue-table')?.setAttribute('aria-busy', 'true');
  const answer = await graphql<{ sessions: { edges: { node: QueueItem }[] } }>(QUEUE, {
    filter: {
      statuses: [listedStatus()],
      vendorData: filter.vendorData,
      workflowId: filter.workflowId,
      createdAfter: filter.createdAfter,
      createdBefore: filter.createdBefore,
    },
  });
  if (load !== queueLoads) return;
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
      downloadButton('export-sessions', 'Export these sessions (CSV)', exportPath, 'The sessions export is downloading.'),
      nextCaseButton(),
      await bulkBar(queueScreen),
      h('p', { id: 'queue-count' }),
      h('p', { class: 'live', id: 'live' }, state.socket ? 'Connecting for live updates…' : ''),
      h(
        'table',
        { id: 'queue-table', tabindex: '0', 'aria-busy': 'false' },
        h('caption', {}, `Sessions ${listedStatus().replace(/_/g, ' ')}, ${me().environment}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Select')),
            h('th', { scope: 'col' }, 'Vendor data'),
            h('th', { scope: 'col' }, 'Workflow'),
            h('th', { scope: 'col' }, 'Why'),
            h('th', { scope: 'col' }, 'Held by'),
            h('th', { scope: 'col' }, 'Age / SLA'),
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

/** The cases export of the filter on screen (the server applies the same filter to the whole set, not only the page shown). */
function exportPath(): string {
  const query = new URLSearchParams({ status: listedStatus() });
  if (filter.vendorData) query.set('vendor_data', filter.vendorData);
  if (filter.workflowId) query.set('workflow_id', filter.workflowId);
  if (filter.createdAfter !== undefined) query.set('created_after', String(filter.createdAfter));
  if (filter.createdBefore !== undefined) query.set('created_before', String(filter.createdBefore));
  return `/exports/sessions.csv?${query}`;
}

/** The queue's filters: status, vendor data, workflow and creation dates. */
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
        const status = String(data.get('status') ?? 'in_review');
        filter = {
          status: status === 'in_review' ? undefined : status,
          vendorData: String(data.get('vendor_data') ?? '').trim() || undefined,
          workflowId: String(data.get('workflow_id') ?? '').trim() || undefined,
          createdAfter: dayStart(data.get('created_from')),
          createdBefore: until === undefined ? undefined : until + 24 * 3600,
        };
        await queueScreen();
        announce(countText());
      },
    },
    h(
      'div',
      {},
      h('label', { for: 'filter-status' }, 'Status'),
      h(
        'select',
        { id: 'filter-status', name: 'status' },
        ...STATUSES.map((status) => h('option', { value: status, selected: status === listedStatus() }, status.replace(/_/g, ' '))),
      ),
    ),
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
  const live = root.querySelector('#live');
  if (!live || root.dataset.live !== 'on') return;
  live.textContent =
    listedStatus() === 'in_review'
      ? 'Live: new cases appear here without reloading.'
      : 'As of the last search; sessions decided from review meanwhile appear live.';
}

/** Follows the review queue of the sign-in's tenant and environment: sessions entering review are added, leaving it removed; an open case stays current. */
export function follow(): void {
  if (state.socket) return;
  state.socket = openSocket(() => {
    root.dataset.live = 'on';
    markLive();
  });
  state.socket.subscribe<{ reviewQueue: { sessionId: string; status: string; previousStatus: string | null; actor: string } }>(
    { query: REVIEW_QUEUE },
    {
      next: async ({ data }) => {
        const change = data?.reviewQueue;
        if (!change) return;
        // A claim change (actor claim) re-reads the row for its new holder; it is not a new case.
        const claimed = change.actor === 'claim';
        if (change.status === listedStatus()) {
          const loadBefore = queueLoads;
          const { session } = await graphql<{ session: QueueItem & { status: string } }>(QUEUE_ITEM, { id: change.sessionId });
          // A list load begun while this row was read answers with newer data: a late row must not
          // overwrite it (under load the row's answer can land after the list drew).
          if (loadBefore !== queueLoads) return;
          if (session.status === listedStatus() && inFilter(session)) {
            queue.set(session.id, session);
            if (!claimed && session.status === 'in_review') announce(`New case in review: ${session.vendorData}.`);
          }
        } else queue.delete(change.sessionId);
        refreshQueueTable();
        const open = root.querySelector<HTMLElement>('main[data-session-id]');
        if (open?.dataset.sessionId === change.sessionId && (claimed || open.dataset.status !== change.status))
          await caseScreen(change.sessionId);
      },
      error: () => {
        root.dataset.live = 'off';
      },
      complete: () => undefined,
    },
  );
}
