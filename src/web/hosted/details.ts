/** The AML step's screen: the person's name and date of birth. */
import { field, fieldError, h, show } from './dom.js';
import { submit } from './flow.js';
import { state, t } from './state.js';

/** The AML step: the person's name and date of birth, prefilled from the document or the integrator. */
export function details(): void {
  const read = state.flow.documentRead;
  const expected = state.flow.expectedDetails ?? {};
  const name = [read?.firstName ?? expected.first_name, read?.lastName ?? expected.last_name].filter(Boolean).join(' ');
  const fullName = h('input', { type: 'text', autocomplete: 'name', value: name, required: true });
  const birth = h('input', { type: 'date', autocomplete: 'bday', value: read?.dateOfBirth ?? expected.date_of_birth ?? '' });
  const example = new Intl.DateTimeFormat(state.language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(1990, 4, 17)));
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!fullName.value.trim()) return fieldError(fullName, t('required'));
        void submit('aml_screening', { fullName: fullName.value.trim(), ...(birth.value ? { dateOfBirth: birth.value } : {}) }, details);
      },
    },
    field('full-name', t('fullName'), fullName),
    field('birth', t('dateOfBirth'), birth, t('dateHint', { example })),
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('details', t('detailsHeading'), form);
}
