// Browser entry of the offline GraphQL explorer (GET /graphql): GraphiQL from node_modules, bundled by
// scripts/build-explorer.ts, so the page needs nothing but this server (no CDN, CSP 'self' only).
import { createElement as h, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { parse } from 'graphql';
import 'graphiql/style.css';
import './explorer.css';

// sessionStorage, not localStorage: the key is gone when the tab closes and is never written to disk for good.
const KEY_STORAGE = 'openkyc.explorer.apiKey';

/** HTTP for queries and mutations, graphql-ws for subscriptions; both carry the key the form set. */
function fetcherFor(apiKey) {
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const fetcher = createGraphiQLFetcher({
    url: `${location.origin}/graphql`,
    subscriptionUrl: wsUrl,
    headers: apiKey ? { 'x-api-key': apiKey } : {},
    // The server reads the key from connection_init, since browsers cannot set headers on a WebSocket.
    wsConnectionParams: apiKey ? { 'x-api-key': apiKey } : {},
  });
  // The toolkit picks graphql-ws only when the document it is handed is a subscription; GraphiQL can
  // hand it the previous, stale document, so the query text that is actually sent decides.
  return (params, options) => {
    let documentAST = options?.documentAST;
    try {
      documentAST = parse(params.query);
    } catch {
      // Invalid text: let the server report it.
    }
    return fetcher(params, { ...options, documentAST });
  };
}

/** The key form above GraphiQL: one password field, kept in this tab only. */
function KeyForm({ apiKey, onChange }) {
  const [draft, setDraft] = useState(apiKey);
  return h(
    'form',
    {
      className: 'explorer-key',
      onSubmit: (event) => {
        event.preventDefault();
        onChange(draft.trim());
      },
    },
    h('label', { htmlFor: 'explorer-api-key' }, 'API key'),
    h('input', {
      id: 'explorer-api-key',
      name: 'apiKey',
      type: 'password',
      autoComplete: 'off',
      placeholder: 'sk_sandbox_…',
      value: draft,
      onChange: (event) => setDraft(event.target.value),
    }),
    h('button', { type: 'submit' }, 'Use key'),
    h('span', { className: 'explorer-key-state', 'data-testid': 'key-state' }, apiKey ? 'Key set for this tab' : 'No key set'),
  );
}

function Explorer() {
  const [apiKey, setApiKey] = useState(() => sessionStorage.getItem(KEY_STORAGE) ?? '');
  const fetcher = useMemo(() => fetcherFor(apiKey), [apiKey]);
  const onChange = (next) => {
    if (next) sessionStorage.setItem(KEY_STORAGE, next);
    else sessionStorage.removeItem(KEY_STORAGE);
    setApiKey(next);
  };
  return h(
    'div',
    { className: 'explorer' },
    h(KeyForm, { apiKey, onChange }),
    // key: a new key remounts GraphiQL so it introspects again with that key's rights.
    h('div', { className: 'explorer-graphiql' }, h(GraphiQL, { key: apiKey, fetcher })),
  );
}

createRoot(document.getElementById('explorer')).render(h(Explorer));
