/** Admins' page of the organisation's API keys in the current environment: create one (its secret shown once) and revoke one. */
import { ApiError, graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { header } from './layout.js';
import { me } from './state.js';

/** A key as the page lists it. */
interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  environment: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  lastUsedAddress: string | null;
}

const KEYS =
  'query { apiKeys(first: 100) { edges { node { id name prefix environment createdAt revokedAt lastUsedAt lastUsedAddress } } } }';
const CREATE = 'mutation ($name: String!) { createApiKey(name: $name) { secret apiKey { prefix } } }';
const REVOKE = 'mutation ($id: String!) { revokeApiKey(id: $id) { id } }';

/** The API keys page; `created` is the secret of a key just made, shown this once. */
export async function keysScreen(created?: { secret: string; prefix: string }): Promise<void> {
  if (me().operator.role !== 'admin') {
    show('forbidden', header(), h('main', {}, h('h1', { tabindex: '-1' }, 'API keys'), h('p', {}, 'Only an admin manages API keys.')));
    return;
  }
  const answer = await graphql<{ apiKeys: { edges: { node: KeyRow }[] } }>(KEYS);
  // The connection is oldest first; the page shows the newest (the one just made) on top.
  const apiKeys = answer.apiKeys.edges.map((edge) => edge.node).reverse();
  const error = h('p', { class: 'error', role: 'alert', id: 'keys-error' });
  const fail = (failure: unknown) => {
    error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
  };
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'create-key',
      'aria-label': 'Create an API key',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const name = String(new FormData(form).get('name') ?? '');
          const { createApiKey } = await graphql<{ createApiKey: { secret: string; apiKey: { prefix: string } } }>(CREATE, { name });
          await keysScreen({ secret: createApiKey.secret, prefix: createApiKey.apiKey.prefix });
          announce('Key created: copy it now, it is not shown again.');
        } catch (failure) {
          fail(failure);
        }
      },
    },
    h('div', {}, h('label', { for: 'key-name' }, 'What is it for?'), h('input', { id: 'key-name', name: 'name', required: true })),
    h('button', { type: 'submit' }, 'Create key'),
  );
  const revoke = (key: KeyRow) => async () => {
    if (!confirm(`Revoke ${key.prefix}…? Requests with it fail from now on.`)) return;
    try {
      await graphql(REVOKE, { id: key.id });
      await keysScreen();
      announce(`${key.prefix} revoked.`);
    } catch (failure) {
      fail(failure);
    }
  };
  show(
    'keys',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'API keys'),
      h('p', {}, `Keys of the ${me().environment} environment. A key is shown once, when it is created; only its prefix is kept in view.`),
      created
        ? h(
            'section',
            { 'aria-labelledby': 'new-key-heading', id: 'new-key' },
            h('h2', { id: 'new-key-heading' }, 'New key: copy it now'),
            h('p', { class: 'secret', id: 'new-key-secret' }, created.secret),
          )
        : null,
      form,
      error,
      h(
        'table',
        { tabindex: '0', id: 'keys' },
        h('caption', {}, `${apiKeys.length} ${apiKeys.length === 1 ? 'key' : 'keys'}, ${me().environment}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Name', 'Prefix', 'Environment', 'Created', 'Last used', 'State', ''].map((label) => h('th', { scope: 'col' }, label)),
          ),
        ),
        h(
          'tbody',
          {},
          ...apiKeys.map((key) =>
            h(
              'tr',
              { 'data-key-prefix': key.prefix },
              h('td', {}, key.name || '—'),
              h('td', {}, h('code', {}, key.prefix)),
              h('td', {}, key.environment),
              h('td', {}, when(key.createdAt)),
              h(
                'td',
                { class: 'last-used' },
                key.lastUsedAt ? `${when(key.lastUsedAt)} from ${key.lastUsedAddress ?? 'an unknown address'}` : 'never',
              ),
              h('td', {}, key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active'),
              h(
                'td',
                {},
                key.revokedAt
                  ? ''
                  : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${key.prefix}`, onclick: revoke(key) }, 'Revoke'),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
