/** The phone step's screens: the number, then the code sent to it. */
import { AsYouType } from 'libphonenumber-js/min';
import { graphql, SUBMIT } from './api.js';
import { app, field, fieldError, h, show, showProblem } from './dom.js';
import { submit } from './flow.js';
import { sessionId, state, t } from './state.js';

/** Seconds before a new phone code may be asked for. */
const RESEND_SECONDS = 30;

/** The phone step: the number, formatted as typed; then the code. */
export function phone(): void {
  const number = h('input', { type: 'tel', autocomplete: 'tel', inputMode: 'tel', required: true, placeholder: '+44 7911 123456' });
  number.addEventListener('input', () => {
    const formatted = new AsYouType().input(number.value);
    if (formatted && formatted !== number.value) number.value = formatted;
  });
  const form = h(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        if (!number.value.trim()) return fieldError(number, t('required'));
        const value = number.value.replace(/[^\d+]/g, '');
        try {
          const sent = await graphql<{ requestPhoneCode: { sentTo: string } }>(state.token, SUBMIT.phone_request, {
            sessionId,
            phone: value,
          });
          phoneCode(value, sent.requestPhoneCode.sentTo);
        } catch (error) {
          showProblem(error);
        }
      },
    },
    field('phone', t('phoneNumber'), number, t('phoneHint')),
    h('button', { type: 'submit', className: 'primary' }, t('sendCode')),
  );
  show('phone', t('phoneHeading'), form);
}

function phoneCode(number: string, sentTo: string): void {
  const code = h('input', { type: 'text', inputMode: 'numeric', autocomplete: 'one-time-code', maxLength: 6, pattern: '[0-9]{6}' });
  const resend = h('button', { type: 'button', className: 'secondary', disabled: true }, t('resendCode'));
  const timer = h('p', { className: 'hint', 'aria-live': 'polite' });
  let left = RESEND_SECONDS;
  const tick = () => {
    timer.textContent = left > 0 ? t('resendIn', { seconds: left }) : '';
    resend.disabled = left > 0;
    if (left-- > 0 && app.dataset.screen === 'phone-code') setTimeout(tick, 1000);
  };
  resend.addEventListener('click', async () => {
    try {
      await graphql(state.token, SUBMIT.phone_request, { sessionId, phone: number });
      left = RESEND_SECONDS;
      tick();
    } catch (error) {
      showProblem(error);
    }
  });
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!/^\d{6}$/.test(code.value)) return fieldError(code, t('invalidCode'));
        void submit('phone_confirm', { code: code.value, phone: number }, () => phoneCode(number, sentTo));
      },
    },
    h('p', {}, t('codeSentTo', { phone: sentTo })),
    field('code', t('code'), code),
    h('button', { type: 'submit', className: 'primary' }, t('verifyCode')),
    resend,
    timer,
  );
  show('phone-code', t('codeHeading'), form);
  tick();
}
