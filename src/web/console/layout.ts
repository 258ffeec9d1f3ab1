/** The bar on every signed-in screen, and the sign-in form. */
import { ApiError, signIn, signOut, switchEnvironment, type SignIn } from './api.js';
import { h, root, show } from './dom.js';
import { searchBox } from './search.js';
import { me, resetSession, state } from './state.js';

/** The console's sections in the bar, in order: each page module adds itself here. */
export const NAV: { href: string; label: string; roles?: SignIn['operator']['role'][] }[] = [
  { href: '#/', label: 'Review queue' },
  { href: '#/overview', label: 'Overview' },
  { href: '#/lists', label: 'Lists' },
  { href: '#/workflows', label: 'Workflows' },
  { href: '#/webhooks', label: 'Webhooks' },
  { href: '#/operators', label: 'Operators', roles: ['admin'] },
  { href: '#/keys', label: 'API keys', roles: ['admin'] },
  { href: '#/audit', label: 'Audit log', roles: ['admin'] },
  { href: '#/workload', label: 'Workload', roles: ['admin'] },
  { href: '#/account', label: 'My account' },
];

/** The bar on every signed-in screen: where one is, the session search (showing `searchQuery`), who one is, the environment switch and sign-out. */
export function header(searchQuery = ''): HTMLElement {
  const operator = me().operator;
  const environment = h(
    'select',
    {
      id: 'environment',
      onchange: async (event) => {
        const value = (event.target as HTMLSelectElement).value;
        await switchEnvironment(value);
        state.me = { ...me(), environment: value as SignIn['environment'] };
        // A subscription keeps the scope it started with: follow the new environment on a new socket.
        resetSession();
        delete root.dataset.live;
        await state.route();
      },
    },
    ...(['live', 'sandbox'] as const).map((env) => h('option', { value: env, selected: me().environment === env }, env)),
  );
  return h(
    'header',
    { class: 'bar' },
    h('a', { href: '#/', class: 'brand' }, 'openkyc console'),
    h(
      'nav',
      { 'aria-label': 'Console' },
      ...NAV.filter((item) => !item.roles || item.roles.includes(operator.role)).flatMap((item) => [
        h('a', { href: item.href }, item.label),
        ' ',
      ]),
    ),
    searchBox(searchQuery),
    h('div', { class: 'who' }, h('label', { for: 'environment' }, 'Environment'), environment),
    h('p', { class: 'who', id: 'operator' }, `${operator.name} · ${operator.role}`),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          await signOut();
          state.me = null;
          resetSession();
          // Setting location.hash would also fire hashchange, routing a second time: the sign-in
          // form was drawn twice and what the person had begun to type was wiped.
          history.replaceState(null, '', '#/');
          await state.route();
        },
      },
      'Sign out',
    ),
  );
}

/** The sign-in form. */
export function signInScreen(problem?: string): void {
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem ?? '');
  const second = h(
    'div',
    { id: 'second-factor', hidden: true, class: 'narrow-field' },
    h('label', { for: 'totp-code' }, 'Code from your authenticator app'),
    h('input', { id: 'totp-code', name: 'totp_code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}' }),
  );
  const form = h(
    'form',
    {
      class: 'card narrow',
      'aria-describedby': 'sign-in-error',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const code = String(data.get('totp_code') ?? '').trim();
        try {
          state.me = await signIn(String(data.get('email')), String(data.get('password')), String(data.get('environment')), code);
          await state.route();
        } catch (failure) {
          error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
          // An account with a second factor: ask for the code, keeping what was typed.
          if (failure instanceof ApiError && failure.code === 'second_factor_required') {
            second.hidden = false;
            second.querySelector('input')!.focus();
          }
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
    second,
    error,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  show('sign-in', h('main', {}, form));
}
