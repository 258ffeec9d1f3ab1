/** The document step's first screen: document type and issuing country. */
import { capture } from './camera.js';
import { COUNTRIES } from './countries.js';
import { fieldError, h, show } from './dom.js';
import { type MessageKey } from './i18n.js';
import { state, t } from './state.js';

/** Document type and issuing country. */
export function chooseDocument(): void {
  const names = new Intl.DisplayNames([state.language], { type: 'region' });
  const countries = COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) =>
    a.name.localeCompare(b.name, state.language),
  );
  const preferred = state.flow.documentRead?.nationality ?? state.flow.expectedDetails?.country ?? '';
  const country = h(
    'select',
    { id: 'country', required: true },
    h('option', { value: '' }, t('chooseCountry')),
    ...countries.map(({ code, name }) => h('option', { value: code, selected: code === preferred }, name)),
  );
  const types = h(
    'fieldset',
    {},
    h('legend', {}, t('documentType')),
    ...state.flow.documentTypes.map((type, index) =>
      h(
        'div',
        { className: 'check' },
        h('input', { type: 'radio', name: 'idType', id: `type-${type.idType}`, value: type.idType, checked: index === 0 }),
        h('label', { htmlFor: `type-${type.idType}` }, t(`type_${type.idType}` as MessageKey)),
      ),
    ),
  );
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!country.value) return fieldError(country, t('required'));
        const idType = (form.querySelector('input[name=idType]:checked') as HTMLInputElement).value;
        const sides = state.flow.documentTypes.find((type) => type.idType === idType)?.sides ?? 1;
        capture({ kind: 'document', side: 'front', document: { idType, country: country.value, sides } });
      },
    },
    types,
    h('label', { htmlFor: 'country' }, t('country')),
    country,
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('document', t('documentHeading'), form);
}
