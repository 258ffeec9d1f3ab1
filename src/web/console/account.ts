/** The signed-in operator's own account: change the password (required after an admin set it) and the optional second factor. */
import { ApiError, graphql } from './api.js';
import { announce, h, show } from './dom.js';
import { header } from './layout.js';
import { me, state } from './state.js';

const CHANGE_PASSWORD =
  'mutation ($currentPassword: String!, $newPassword: String!) { changeOwnPassword(currentPassword: $currentPassword, newPassword: $newPassword) }';
const START_TOTP = 'mutation { startTotpEnrolment { secret otpauthUri qrSvg } }';
const CONFIRM_TOTP = 'mutation ($code: String!) { confirmTotpEnrolment(code: $code) }';
const DISABLE_TOTP = 'mutation ($code: String!) { disableOwnTotp(code: $code) }';
const TOTP_STATE = 'query { currentOperator { totpEnabled } }';

/** Shows a refusal in `error`. */
function failed(error: HTMLElement, failure: unknown): void {
  error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
}

/** The change-password form. */
function passwordForm(): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert', id: 'password-error' });
  const form = h(
    'form',
    {
      class: 'card narrow-field',
      id: 'change-password',
      'aria-labelledby': 'password-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        if (data.get('new_password') !== data.get('repeat_password')) {
          error.textContent = 'The two new passwords differ.';
          return;
        }
        try {
          await graphql(CHANGE_PASSWORD, {
            currentPassword: String(data.get('current_password')),
            newPassword: String(data.get('new_password')),
          });
          state.me = { ...me(), operator: { ...me().operator, temporary_credential: false } };
          announce('Password changed.');
          await accountScreen('Your password was changed.');
        } catch (failure) {
          failed(error, failure);
        }
      },
    },
    h('h2', { id: 'password-heading' }, 'Password'),
    h('label', { for: 'current-password' }, 'Current password'),
    h('input', { id: 'current-password', name: 'current_password', type: 'password', autocomplete: 'current-password', required: true }),
    h('label', { for: 'new-password' }, 'New password (at least 12 characters)'),
    h('input', {
      id: 'new-password',
      name: 'new_password',
      type: 'password',
      autocomplete: 'new-password',
      minlength: '12',
      required: true,
    }),
    h('label', { for: 'repeat-password' }, 'New password again'),
    h('input', {
      id: 'repeat-password',
      name: 'repeat_password',
      type: 'password',
      autocomplete: 'new-password',
      minlength: '12',
      required: true,
    }),
    error,
    h('button', { type: 'submit' }, 'Change password'),
  );
  return form;
}

/** A form asking for a code from the authenticator app, running `submit` with it. */
function codeForm(id: string, label: string, button: string, submit: (code: string) => Promise<void>): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert', id: `${id}-error` });
  const form = h(
    'form',
    {
      id,
      class: 'narrow-field',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await submit(String(new FormData(form).get('code') ?? '').trim());
        } catch (failure) {
          failed(error, failure);
        }
      },
    },
    h('label', { for: `${id}-code` }, label),
    h('input', {
      id: `${id}-code`,
      name: 'code',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      pattern: '[0-9]{6}',
      required: true,
    }),
    error,
    h('button', { type: 'submit' }, button),
  );
  return form;
}

/** The second-factor section: enrol (secret and QR code shown once, confirmed by a first code) or turn it off with a code. */
async function totpSection(): Promise<HTMLElement> {
  const { currentOperator } = await graphql<{ currentOperator: { totpEnabled: boolean } }>(TOTP_STATE);
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'totp-heading', id: 'totp' },
    h('h2', { id: 'totp-heading' }, 'Second factor'),
  );
  if (currentOperator.totpEnabled) {
    section.append(
      h('p', { id: 'totp-state' }, 'On: sign-in asks for a code from your authenticator app.'),
      codeForm('disable-totp', 'Code from your app, to turn it off', 'Turn off', async (code) => {
        await graphql(DISABLE_TOTP, { code });
        await accountScreen('The second factor is off.');
      }),
    );
    return section;
  }
  const error = h('p', { class: 'error', role: 'alert', id: 'totp-start-error' });
  const start = h(
    'button',
    {
      type: 'button',
      id: 'start-totp',
      onclick: async () => {
        try {
          const { startTotpEnrolment } = await graphql<{ startTotpEnrolment: { secret: string; otpauthUri: string; qrSvg: string } }>(
            START_TOTP,
          );
          // The QR code is the server's own SVG of the otpauth URI (no script, no external reference).
          const qr = h('div', { class: 'qr', role: 'img', 'aria-label': 'QR code of the secret for your authenticator app' });
          qr.innerHTML = startTotpEnrolment.qrSvg;
          start.replaceWith(
            h('p', {}, 'Scan the code with your authenticator app, or type the secret in. It is shown this once.'),
            qr,
            h('p', { class: 'secret', id: 'totp-secret' }, startTotpEnrolment.secret),
            codeForm('confirm-totp', 'The 6-digit code your app shows now', 'Turn on', async (code) => {
              await graphql(CONFIRM_TOTP, { code });
              await accountScreen('The second factor is on: sign-in will ask for a code.');
            }),
          );
        } catch (failure) {
          failed(error, failure);
        }
      },
    },
    'Set up an authenticator app',
  );
  section.append(h('p', { id: 'totp-state' }, 'Off: sign-in asks for your password only.'), start, error);
  return section;
}

/** The account page; after an admin set the password it opens first, with the reason. */
export async function accountScreen(message?: string): Promise<void> {
  const forced = me().operator.temporary_credential === true;
  show(
    'account',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'My account'),
      forced ? h('p', { class: 'error', id: 'must-change' }, 'An admin set your password: choose your own before you continue.') : null,
      message ? h('p', { role: 'status', id: 'account-message' }, message) : null,
      h('div', { class: 'columns wide' }, passwordForm(), forced ? null : await totpSection()),
    ),
  );
}
