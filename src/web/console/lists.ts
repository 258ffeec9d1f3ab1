/**
 * Lists: the tenant's built-in and custom lists of the sign-in's environment, a list's entries a
 * page at a time, adding and removing name and document entries, and adding a case's selfie to a
 * face list (the server keeps only the face template, never the image). Reviewers and admins
 * change entries; viewers read.
 */
import { graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { confirmButton, field, may, problemText, showProblems, table } from './forms.js';
import { header } from './layout.js';
import { me } from './state.js';

/** A list as the pages show it. */
interface List {
  id: string;
  name: string;
  type: 'face' | 'document' | 'name';
  policy: string;
  builtIn: boolean;
  entries: number;
  updatedAt: number;
}

/** One entry: the fingerprint gates match, and its label (sealed at rest) for people. */
interface Entry {
  id: string;
  fingerprint: string;
  label: string | null;
  reason: string | null;
  addedBy: string;
  addedByName: string | null;
  addedAt: number;
}

/** Entries one page of the list screen shows. */
const PAGE = 20;
const LIST_FIELDS = 'id name type policy builtIn entries updatedAt';
const LISTS = `query { lists { ${LIST_FIELDS} } }`;
const LIST = `query ($id: String!, $limit: Int, $offset: Int) { list(id: $id) { ${LIST_FIELDS} }
  listEntries(listId: $id, limit: $limit, offset: $offset) { count results { id fingerprint label reason addedBy addedByName addedAt } } }`;
const ADD_NAME = `mutation ($listId: String!, $input: NameListEntryInput!) { addNameListEntry(listId: $listId, input: $input) { id } }`;
const ADD_DOCUMENT = `mutation ($listId: String!, $input: DocumentListEntryInput!) { addDocumentListEntry(listId: $listId, input: $input) { id } }`;
const ADD_FACE = `mutation ($listId: String!, $input: FaceListEntryInput!) { addFaceListEntry(listId: $listId, input: $input) { id rawImageStored } }`;
const DELETE_ENTRY = `mutation ($listId: String!, $entryId: String!) { deleteListEntry(listId: $listId, entryId: $entryId) }`;

/** What each list type holds, in words. */
const TYPE_LABELS: Record<List['type'], string> = { face: 'faces', document: 'documents', name: 'names' };

/** Every list of the tenant in the sign-in's environment. */
export async function listsScreen(): Promise<void> {
  const { lists } = await graphql<{ lists: List[] }>(LISTS);
  show(
    'lists',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Lists'),
      h(
        'p',
        {},
        'A match against a list declines the session or sends it to review, as the list’s policy says. A match is on fingerprints only; the readable label beside each entry is kept encrypted.',
      ),
      table(
        'lists',
        `Built-in and custom lists, ${me().environment}`,
        ['List', 'Holds', 'On a match', 'Kind', 'Entries', 'Last change'],
        lists.map((list) =>
          h(
            'tr',
            { 'data-list-id': list.id, 'data-list-type': list.type },
            h('td', {}, h('a', { href: `#/lists/${list.id}` }, list.name)),
            h('td', {}, TYPE_LABELS[list.type]),
            h('td', {}, list.policy.replace('_', ' ')),
            h('td', {}, list.builtIn ? 'built-in' : 'custom'),
            h('td', {}, String(list.entries)),
            h('td', {}, when(list.updatedAt)),
          ),
        ),
        'No list yet.',
      ),
    ),
  );
}

/** The form that adds an entry of the list's type (a face comes from a case's kept selfie template). */
function addForm(list: List, page: number): HTMLElement {
  const general = h('p', { class: 'error', role: 'alert', id: 'entry-error' });
  const reason = field('entry-reason', 'Reason (optional)', h('input', { name: 'reason' }));
  const controls: Record<List['type'], HTMLElement[]> = {
    name: [field('entry-name', 'Name', h('input', { name: 'name', autocomplete: 'off' }))],
    document: [
      field('entry-country', 'Issuing country (ISO 3166 alpha-2)', h('input', { name: 'country', maxlength: '2', autocomplete: 'off' })),
      field(
        'entry-id-type',
        'Document type',
        h(
          'select',
          { name: 'idType' },
          ...['PASSPORT', 'NATIONAL_ID', 'DRIVERS_LICENSE', 'RESIDENCE_PERMIT'].map((type) =>
            h('option', { value: type }, type.replace('_', ' ').toLowerCase()),
          ),
        ),
      ),
      field('entry-number', 'Document number', h('input', { name: 'documentNumber', autocomplete: 'off' })),
    ],
    face: [field('entry-session', 'Case (session id) whose selfie to add', h('input', { name: 'sessionId', autocomplete: 'off' }))],
  };
  /** Server field names (the list service's) to the controls above. */
  const fieldIds: Record<string, string> = {
    name: 'entry-name',
    country: 'entry-country',
    id_type: 'entry-id-type',
    document_number: 'entry-number',
    session_id: 'entry-session',
    reason: 'entry-reason',
  };
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'add-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = Object.fromEntries([...new FormData(form)].map(([key, value]) => [key, String(value).trim()]));
        const input = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== ''));
        try {
          const mutation = list.type === 'name' ? ADD_NAME : list.type === 'document' ? ADD_DOCUMENT : ADD_FACE;
          await graphql(mutation, { listId: list.id, input });
          announce('Entry added.');
          await listScreen(list.id, String(page));
        } catch (failure) {
          showProblems(form, failure, fieldIds, general);
        }
      },
    },
    h('h2', { id: 'add-heading' }, 'Add an entry'),
    list.type === 'face'
      ? h('p', {}, 'Only the face template of the case’s selfie is kept, never the image. A case page offers the same.')
      : null,
    ...controls[list.type],
    reason,
    general,
    h('button', { type: 'submit' }, 'Add entry'),
  );
  return form;
}

/** One list: its entries a page at a time, with adding and removing for reviewers and admins. */
export async function listScreen(id: string, pageParam?: string): Promise<void> {
  const page = Math.max(0, Number(pageParam ?? 0) || 0);
  const data = await graphql<{ list: List; listEntries: { count: number; results: Entry[] } }>(LIST, {
    id,
    limit: PAGE,
    offset: page * PAGE,
  });
  const { list, listEntries } = data;
  const pages = Math.max(1, Math.ceil(listEntries.count / PAGE));
  const editable = may('reviewer', 'admin');
  const rows = listEntries.results.map((entry) =>
    h(
      'tr',
      { 'data-entry-id': entry.id },
      h('td', { class: 'entry-label' }, entry.label ?? 'Added before labels'),
      h('td', {}, h('code', { title: entry.fingerprint }, `${entry.fingerprint.slice(0, 19)}…`)),
      h('td', {}, entry.reason ?? '—'),
      h('td', {}, entry.addedByName ?? entry.addedBy),
      h('td', {}, when(entry.addedAt)),
      editable
        ? h(
            'td',
            {},
            confirmButton(`remove-${entry.id}`, 'Remove', async () => {
              try {
                await graphql(DELETE_ENTRY, { listId: list.id, entryId: entry.id });
                announce('Entry removed.');
                await listScreen(list.id, String(page >= pages - 1 && listEntries.results.length === 1 ? Math.max(0, page - 1) : page));
              } catch (failure) {
                announce(problemText(failure));
              }
            }),
          )
        : null,
    ),
  );
  show(
    'list',
    header(),
    h(
      'main',
      { 'data-list-id': list.id },
      h('p', {}, h('a', { href: '#/lists' }, '← Lists')),
      h('h1', { tabindex: '-1' }, list.name),
      h(
        'p',
        { id: 'list-summary' },
        `${list.builtIn ? 'Built-in' : 'Custom'} list of ${TYPE_LABELS[list.type]}; a match ${list.policy === 'auto_decline' ? 'declines the session' : 'sends it to review'}. `,
        listEntries.count === 1 ? '1 entry.' : `${listEntries.count} entries.`,
      ),
      table(
        'entries',
        `Entries, page ${page + 1} of ${pages}`,
        ['Entry', 'Fingerprint', 'Reason', 'Added by', 'Added', ...(editable ? ['Action'] : [])],
        rows,
        'No entry on this page.',
      ),
      h(
        'nav',
        { class: 'pager', 'aria-label': 'Entry pages' },
        page > 0 ? h('a', { href: `#/lists/${list.id}/${page - 1}` }, '← Earlier entries') : null,
        page < pages - 1 ? h('a', { href: `#/lists/${list.id}/${page + 1}` }, 'Later entries →') : null,
      ),
      editable
        ? addForm(list, page)
        : h('p', { id: 'viewer-note' }, 'Your role (viewer) can read lists; reviewers and admins change them.'),
    ),
  );
}

/**
 * On a case page, adds the case's selfie to a face list: the server takes the face template kept
 * from that session (never the image) and records the operator's name on the entry.
 */
export function faceEntryControl(sessionId: string): HTMLElement {
  const status = h('p', { role: 'status', id: 'face-entry-status' });
  const box = h('div', { class: 'face-entry' });
  const open = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'face-entry-open',
      onclick: async () => {
        const faceLists = (await graphql<{ lists: List[] }>(LISTS)).lists.filter((list) => list.type === 'face');
        const general = h('p', { class: 'error', role: 'alert', id: 'face-entry-error' });
        const form = h(
          'form',
          {
            onsubmit: async (event) => {
              event.preventDefault();
              const data = new FormData(form);
              const reason = String(data.get('reason') ?? '').trim();
              try {
                await graphql(ADD_FACE, { listId: String(data.get('list')), input: { sessionId, ...(reason ? { reason } : {}) } });
                const name = faceLists.find((list) => list.id === data.get('list'))?.name ?? 'the list';
                box.replaceChildren(status);
                status.textContent = `The selfie’s face template was added to ${name}.`;
              } catch (failure) {
                showProblems(form, failure, { reason: 'face-entry-reason' }, general);
              }
            },
          },
          field(
            'face-entry-list',
            'Face list',
            h('select', { name: 'list' }, ...faceLists.map((list) => h('option', { value: list.id }, list.name))),
          ),
          field('face-entry-reason', 'Reason (optional)', h('input', { name: 'reason' })),
          general,
          h('button', { type: 'submit', id: 'face-entry-add' }, 'Add to the list'),
        );
        box.replaceChildren(form);
        form.querySelector<HTMLElement>('select')?.focus();
      },
    },
    'Add the selfie to a face list',
  );
  box.append(open);
  return box;
}
