/** Admins' page of the organisation's operators: add one, change a role, disable or enable, reset a password or a lost second factor. */
import { ApiError, graphql, type Role } from './api.js';
import { announce, h, show, when } from './dom.js';
import { header } from './layout.js';
import { invitationsSection } from './invitations.js';
import { me } from './state.js';

/** An operator as the page lists them. */
interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  totpEnabled: boolean;
  passwordChangeRequired: boolean;
  createdAt: number;
}

// One page holds an organisation's people (the connection's largest page is 100).
const OPERATORS =
  'query { operators(first: 100) { edges { node { id email name role disabled totpEnabled passwordChangeRequired createdAt } } } }';
const CREATE = 'mutation ($input: CreateOperatorInput!) { createOperator(input: $input) { id } }';
const UPDATE = 'mutation ($id: String!, $input: UpdateOperatorInput!) { updateOperator(id: $id, input: $input) { id } }';
const RESET_PASSWORD = 'mutation ($id: String!, $password: String!) { resetOperatorPassword(id: $id, password: $password) { id } }';
const RESET_TOTP = 'mutation ($id: String!) { resetOperatorTotp(id: $id) }';
const ROLES: Role[] = ['viewer', 'reviewer', 'admin'];

/** Runs a change, announces it and re-renders the page; a refusal is shown in `error`. */
function change(error: HTMLElement, query: string, variables: Record<string, unknown>, done: string): () => Promise<void> {
  return async () => {
    try {
      await graphql(query, variables);
      await operatorsScreen();
      announce(done);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
}

/** One operator's row: role select, enable/disable, password reset and (if any) second-factor reset. */
function operatorRow(operator: OperatorRow, error: HTMLElement): HTMLElement {
  const roleId = `role-${operator.id}`;
  const role = h(
    'select',
    {
      id: roleId,
      'aria-label': `Role of ${operator.name}`,
      onchange: () =>
        void change(error, UPDATE, { id: operator.id, input: { role: role.value } }, `${operator.name} is now ${role.value}.`)(),
    },
    ...ROLES.map((value) => h('option', { value, selected: value === operator.role }, value)),
  );

  return h(
    'tr',
    { 'data-operator-email': operator.email },
    h('td', {}, operator.name, operator.id === me().operator.id ? ' (you)' : ''),
    h('td', {}, operator.email),
    h('td', {}, role),
    h('td', {}, operator.disabled ? 'disabled' : operator.passwordChangeRequired ? 'must set a password' : 'active'),
    h('td', {}, operator.totpEnabled ? 'on' : 'off'),
    h('td', {}, when(operator.createdAt)),
    h(
      'td',
      {},
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: operator.disabled ? 'secondary' : 'danger',
            'aria-label': `${operator.disabled ? 'Enable' : 'Disable'} ${operator.name}`,
            onclick: change(
              error,
              UPDATE,
              { id: operator.id, input: { disabled: !operator.disabled } },
              `${operator.name} was ${operator.disabled ? 'enabled' : 'disabled'}.`,
            ),
          },
          operator.disabled ? 'Enable' : 'Disable',
        ),
        operator.totpEnabled
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Turn off the second factor of ${operator.name}`,
                onclick: change(error, RESET_TOTP, { id: operator.id }, `${operator.name}'s second factor was turned off.`),
              },
              'Reset 2FA',
            )
          : null,
      ),
    ),
  );
}

/** The form that adds an operator with an initial password. */
function createForm(error: HTMLElement): HTMLElement {
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'create-operator',
      'aria-label': 'Add an operator',
      onsubmit: (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const input = {
          name: String(data.get('name') ?? ''),
          email: String(data.get('email') ?? ''),
          role: String(data.get('role') ?? 'viewer'),
          password: String(data.get('password') ?? ''),
        };
        void change(error, CREATE, { input }, `${input.name} was added.`)();
      },
    },
    h(
      'div',
      {},
      h('label', { for: 'new-name' }, 'Name'),
      h('input', { id: 'new-name', name: 'name', required: true, autocomplete: 'off' }),
    ),
    h(
      'div',
      {},
      h('label', { for: 'new-email' }, 'Email address'),
      h('input', { id: 'new-email', name: 'email', type: 'email', required: true, autocomplete: 'off' }),
    ),
    h(
      'div',
      {},
      h('label', { for: 'new-role' }, 'Role'),
      h('select', { id: 'new-role', name: 'role' }, ...ROLES.map((value) => h('option', { value }, value))),
    ),
    h(
      'div',
      {},
      h('label', { for: 'new-password' }, 'Initial password'),
      h('input', { id: 'new-password', name: 'password', type: 'password', minlength: '12', required: true, autocomplete: 'new-password' }),
    ),
    h('button', { type: 'submit' }, 'Add operator'),
  );
  return form;
}

/** The form with which an admin sets a temporary password for a colleague; they choose their own at the next sign-in. */
function resetPasswordForm(operators: OperatorRow[], error: HTMLElement): HTMLElement {
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'reset-password',
      'aria-label': 'Reset a password',
      onsubmit: (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const id = String(data.get('operator') ?? '');
        const name = operators.find((operator) => operator.id === id)?.name ?? 'The operator';
        void change(error, RESET_PASSWORD, { id, password: String(data.get('password') ?? '') }, `${name}'s password was reset.`)();
      },
    },
    h(
      'div',
      {},
      h('label', { for: 'reset-operator' }, 'Operator'),
      h(
        'select',
        { id: 'reset-operator', name: 'operator' },
        ...operators
          .filter((operator) => operator.id !== me().operator.id)
          .map((operator) => h('option', { value: operator.id }, `${operator.name} (${operator.email})`)),
      ),
    ),
    h(
      'div',
      {},
      h('label', { for: 'reset-password-value' }, 'Temporary password'),
      h('input', {
        id: 'reset-password-value',
        name: 'password',
        type: 'password',
        minlength: '12',
        required: true,
        autocomplete: 'new-password',
      }),
    ),
    h('button', { type: 'submit', class: 'secondary' }, 'Reset password'),
  );
  return form;
}

/** The operators page; only admins reach it (the API refuses the others anyway). */
export async function operatorsScreen(): Promise<void> {
  if (me().operator.role !== 'admin') {
    show('forbidden', header(), h('main', {}, h('h1', { tabindex: '-1' }, 'Operators'), h('p', {}, 'Only an admin manages operators.')));
    return;
  }
  const answer = await graphql<{ operators: { edges: { node: OperatorRow }[] } }>(OPERATORS);
  // Admins first, then by name: who can change things is what an admin looks for here.
  const operators = answer.operators.edges
    .map((edge) => edge.node)
    .sort((a, b) => ROLES.indexOf(b.role) - ROLES.indexOf(a.role) || a.name.localeCompare(b.name));
  const error = h('p', { class: 'error', role: 'alert', id: 'operators-error' });
  show(
    'operators',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Operators'),
      h('p', {}, 'People who sign in to this console. A new operator sets their own password at the first sign-in.'),
      await invitationsSection(operatorsScreen),
      h('h2', {}, 'Add an operator with a temporary password'),
      createForm(error),
      h('h2', {}, 'Reset a password'),
      h('p', {}, 'The operator signs in with the temporary password and must choose their own before doing anything else.'),
      resetPasswordForm(operators, error),
      error,
      h(
        'table',
        { tabindex: '0', id: 'operators' },
        h('caption', {}, `${operators.length} operators`),
        h(
          'thead',
          {},
          h('tr', {}, ...['Name', 'Email', 'Role', 'State', '2FA', 'Added', 'Actions'].map((label) => h('th', { scope: 'col' }, label))),
        ),
        h('tbody', {}, ...operators.map((operator) => operatorRow(operator, error))),
      ),
    ),
  );
}
