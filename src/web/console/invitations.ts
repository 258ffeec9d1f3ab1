/**
 * Inviting colleagues by one-time link (admins, on the Operators page) and the page the link
 * opens, where the invited person chooses their own password. No password is passed on.
 */
import { acceptInvitation, ApiError, graphql, peekInvitation } from './api.js';
import { announce, h, show, when } from './dom.js';
import { field, problemText, showProblems, table } from './forms.js';

/** A pending invitation as the Operators page lists it. */
interface InvitationRow {
  id: string;
  email: string;
  name: string;
  role: string;
  invitedByName: string;
  expiresAt: number;
}

const INVITATIONS = 'query { operatorInvitations { id email name role invitedByName expiresAt } }';
const INVITE = `mutation ($input: InviteOperatorInput!) { inviteOperator(input: $input) { link invitation { name expiresAt } } }`;
const REVOKE = 'mutation ($id: String!) { revokeOperatorInvitation(id: $id) }';

/** The link just made, shown once on the next render of the section. */
let freshLink: { link: string; name: string; expiresAt: number } | null = null;

/** The Operators page's invitation section: the form, the link just made, and the pending invitations; `refresh` re-renders the page. */
export async function invitationsSection(refresh: () => Promise<void>): Promise<HTMLElement> {
  const pending = (await graphql<{ operatorInvitations: InvitationRow[] }>(INVITATIONS)).operatorInvitations;
  const general = h('p', { class: 'error', role: 'alert', id: 'invite-error' });
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'invite-operator',
      'aria-label': 'Invite an operator',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const input = {
          name: String(data.get('name') ?? ''),
          email: String(data.get('email') ?? ''),
          role: String(data.get('role') ?? 'viewer'),
        };
        try {
          const answer = await graphql<{ inviteOperator: { link: string; invitation: { name: string; expiresAt: number } } }>(INVITE, {
            input,
          });
          freshLink = { link: answer.inviteOperator.link, ...answer.inviteOperator.invitation };
          await refresh();
          announce(`Invitation for ${input.name} made: copy the link now, it is not shown again.`);
        } catch (failure) {
          showProblems(form, failure, { name: 'invite-name', email: 'invite-email', role: 'invite-role' }, general);
        }
      },
    },
    field('invite-name', 'Their name', h('input', { name: 'name', required: true, autocomplete: 'off' })),
    field('invite-email', 'Their e-mail', h('input', { name: 'email', type: 'email', required: true, autocomplete: 'off' })),
    field(
      'invite-role',
      'Their role',
      h('select', { name: 'role' }, ...['viewer', 'reviewer', 'admin'].map((role) => h('option', { value: role }, role))),
    ),
    h('button', { type: 'submit' }, 'Invite'),
  );
  const shown = freshLink;
  freshLink = null;
  const rows = pending.map((invitation) =>
    h(
      'tr',
      { 'data-invitation': invitation.email },
      h('td', {}, invitation.name),
      h('td', {}, invitation.email),
      h('td', {}, invitation.role),
      h('td', {}, invitation.invitedByName),
      h('td', {}, when(invitation.expiresAt)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Revoke the invitation of ${invitation.email}`,
            onclick: async () => {
              try {
                await graphql(REVOKE, { id: invitation.id });
                await refresh();
                announce(`The invitation of ${invitation.email} was revoked.`);
              } catch (failure) {
                general.textContent = problemText(failure);
              }
            },
          },
          'Revoke',
        ),
      ),
    ),
  );
  return h(
    'section',
    { 'aria-labelledby': 'invite-heading' },
    h('h2', { id: 'invite-heading' }, 'Invite by link'),
    h('p', {}, 'The person opens the link and chooses their own password. The link works once, until it expires; hand it over yourself.'),
    form,
    general,
    shown
      ? h(
          'div',
          { id: 'invitation-link', class: 'secret' },
          h('p', {}, `Link for ${shown.name}, until ${when(shown.expiresAt)} — copy it now, it is not shown again:`),
          h('code', {}, shown.link),
        )
      : null,
    table(
      'invitations',
      `${pending.length} pending invitations`,
      ['Name', 'Email', 'Role', 'Invited by', 'Expires', ''],
      rows,
      'No invitation is pending.',
    ),
  );
}

/** The page an invitation link opens: who is invited, and the password they choose. */
export async function invitationScreen(token: string): Promise<void> {
  let invited: Awaited<ReturnType<typeof peekInvitation>>;
  try {
    invited = await peekInvitation(token);
  } catch (failure) {
    show(
      'invitation',
      h(
        'main',
        { class: 'narrow' },
        h('h1', { tabindex: '-1' }, 'Invitation'),
        h(
          'p',
          { role: 'alert', id: 'invitation-problem' },
          failure instanceof ApiError ? failure.message : 'The server could not be reached.',
        ),
        h('p', {}, h('a', { href: '#/' }, 'Sign in')),
      ),
    );
    return;
  }
  const general = h('p', { class: 'error', role: 'alert', id: 'accept-error' });
  const form = h(
    'form',
    {
      id: 'accept-invitation',
      'aria-label': 'Choose your password',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const password = String(data.get('password') ?? '');
        if (password !== String(data.get('confirm') ?? '')) {
          form.querySelector<HTMLElement>('#accept-confirm-error')!.textContent = 'The two passwords differ.';
          return;
        }
        try {
          await acceptInvitation(token, password);
          // The token leaves the address bar and the history entry.
          history.replaceState(null, '', '#/');
          show(
            'invitation-accepted',
            h(
              'main',
              { class: 'narrow' },
              h('h1', { tabindex: '-1' }, 'Your account is ready'),
              h('p', {}, `Sign in with ${invited.email} and the password you chose.`),
              h('p', {}, h('a', { href: '#/', class: 'button-link', onclick: () => location.reload() }, 'Sign in')),
            ),
          );
        } catch (failure) {
          showProblems(form, failure, { password: 'accept-password' }, general);
        }
      },
    },
    field(
      'accept-password',
      'Choose a password (at least 12 characters)',
      h('input', { name: 'password', type: 'password', required: true, autocomplete: 'new-password', minlength: '12' }),
    ),
    field(
      'accept-confirm',
      'The same password again',
      h('input', { name: 'confirm', type: 'password', required: true, autocomplete: 'new-password' }),
    ),
    h('button', { type: 'submit' }, 'Create my account'),
    general,
  );
  show(
    'invitation',
    h(
      'main',
      { class: 'narrow' },
      h('h1', { tabindex: '-1' }, 'Join the console'),
      h(
        'p',
        { id: 'invited-as' },
        `${invited.name} (${invited.email}), invited as ${invited.role}. This link works once, until ${when(invited.expires_at)}.`,
      ),
      form,
    ),
  );
}
