/**
 * The console's one search box (in the header of every screen) and its results, and the person
 * view: every session of one `vendor_data` with its outcome, linked from the case page. Both read
 * the public GraphQL API (`searchSessions`, `sessions(filter: { vendorData })`).
 */
import { graphql } from './api.js';
import { announce, badge, h, show, when } from './dom.js';
import { header } from './layout.js';
import { me } from './state.js';

/** A session as the result tables show it. */
interface FoundSession {
  id: string;
  vendorData: string;
  status: string;
  workflowId: string;
  workflow?: { name: string } | null;
  createdAt: number;
  decidedAt?: number | null;
  decision: { reasons: { reviewerText: string }[] };
}

/** Statuses whose decision time the lists show (in_review has one too: when the engine sent it to review). */
const FINAL_STATUSES = new Set(['approved', 'declined']);

const FOUND_FIELDS = 'id vendorData status workflowId workflow { name } createdAt decidedAt decision { reasons { reviewerText } }';
const SEARCH = `query ($query: String!) { searchSessions(query: $query, first: 100) { matchedOn session { ${FOUND_FIELDS} } } }`;
const PERSON = `query ($vendorData: String!) { sessions(first: 100, filter: { vendorData: $vendorData }) { edges { node { ${FOUND_FIELDS} } } pageInfo { hasNextPage } } }`;

/** How each matched field reads in the table. */
const FIELD_WORDS: Record<string, string> = {
  name: 'name',
  email: 'e-mail',
  phone: 'phone',
  document_number: 'document number',
  session_id: 'session id',
  vendor_data: 'vendor data',
};

/** The fragment of the search screen for a query. */
export function searchHref(query: string): string {
  return `#/search/${encodeURIComponent(query)}`;
}

/** The fragment of the person view of a vendor_data, which the case page links to. */
export function personHref(vendorData: string): string {
  return `#/person/${encodeURIComponent(vendorData)}`;
}

/** The search box of the header: a search landmark whose submit opens the results screen. */
export function searchBox(query = ''): HTMLElement {
  const input = h('input', {
    id: 'session-search',
    name: 'q',
    type: 'search',
    value: query,
    required: true,
    maxlength: '200',
    autocomplete: 'off',
    placeholder: 'Name, e-mail, phone, document, id',
  });
  return h(
    'form',
    {
      role: 'search',
      class: 'search',
      'aria-label': 'Sessions',
      onsubmit: (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (value) location.hash = searchHref(value);
      },
    },
    h('label', { for: 'session-search', class: 'visually-hidden' }, 'Search sessions'),
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
}

/** What a session came to, in words: its status, and why when it was decided with reasons. */
function outcome(session: FoundSession): HTMLElement {
  const why = [...new Set(session.decision.reasons.map((reason) => reason.reviewerText))].join(' ');
  return h('td', {}, badge(session.status), why ? h('span', { class: 'why' }, ` ${why}`) : null);
}

/** A table of sessions; `matched` adds the column saying what the query matched. */
function sessionTable(caption: string, sessions: FoundSession[], matched?: Map<string, string[]>): HTMLElement {
  return h(
    'table',
    { tabindex: '0', id: 'found' },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Vendor data'),
        h('th', { scope: 'col' }, 'Outcome'),
        matched ? h('th', { scope: 'col' }, 'Matched on') : null,
        h('th', { scope: 'col' }, 'Workflow'),
        h('th', { scope: 'col' }, 'Created'),
        h('th', { scope: 'col' }, 'Decided'),
      ),
    ),
    h(
      'tbody',
      {},
      ...sessions.map((session) =>
        h(
          'tr',
          { 'data-session-id': session.id },
          h('td', {}, h('a', { href: `#/case/${session.id}` }, session.vendorData)),
          outcome(session),
          matched ? h('td', {}, (matched.get(session.id) ?? []).map((field) => FIELD_WORDS[field] ?? field).join(', ')) : null,
          h('td', {}, session.workflow?.name ?? session.workflowId),
          h('td', {}, when(session.createdAt)),
          // Only a final outcome is a decision: a case the engine sent to review is still waiting.
          h('td', {}, session.decidedAt && FINAL_STATUSES.has(session.status) ? when(session.decidedAt) : '—'),
        ),
      ),
    ),
  );
}

/** The search results for a query, best match first. */
export async function searchScreen(query: string): Promise<void> {
  const answer = await graphql<{ searchSessions: { matchedOn: string[]; session: FoundSession }[] }>(SEARCH, { query });
  const hits = answer.searchSessions;
  const count =
    hits.length === 0
      ? `No sessions match “${query}” in ${me().environment}.`
      : hits.length === 1
        ? `1 session matches “${query}”.`
        : `${hits.length} sessions match “${query}”.`;
  show(
    'search',
    header(query),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Search'),
      h('p', { id: 'search-count', role: 'status' }, count),
      hits.length
        ? sessionTable(
            `Sessions matching “${query}”, ${me().environment}`,
            hits.map((hit) => hit.session),
            new Map(hits.map((hit) => [hit.session.id, hit.matchedOn])),
          )
        : h(
            'p',
            { class: 'hint' },
            'Search by a name as typed or read from the document, an e-mail address, a phone number, a document number, a session id (8 characters or more) or vendor data (3 characters or more of it).',
          ),
    ),
  );
  announce(count);
}

/** Every session of one vendor_data (one person, as the tenant knows them), newest first, with its outcome. */
export async function personScreen(vendorData: string): Promise<void> {
  const answer = await graphql<{ sessions: { edges: { node: FoundSession }[]; pageInfo: { hasNextPage: boolean } } }>(PERSON, {
    vendorData,
  });
  const sessions = answer.sessions.edges.map((edge) => edge.node);
  show(
    'person',
    header(),
    h(
      'main',
      {},
      h('p', {}, h('a', { href: '#/' }, '← Review queue')),
      h('h1', { tabindex: '-1' }, `Person ${vendorData}`),
      h(
        'p',
        { id: 'person-count' },
        sessions.length === 1
          ? `1 session with vendor data ${vendorData} in ${me().environment}.`
          : `${sessions.length} sessions with vendor data ${vendorData} in ${me().environment}${answer.sessions.pageInfo.hasNextPage ? ' (the newest 100 shown)' : ''}.`,
      ),
      sessionTable(`Sessions of ${vendorData}, newest first`, sessions),
    ),
  );
}
