/** The document step's first screen: document type and issuing country. */
import { capture } from './camera.js';
import { COUNTRIES } from './countries.js';
import { fieldError, h, show } from './dom.js';
import { type MessageKey } from '../shared/i18n.js';
import { documentChoice, rememberDocumentChoice, state, t } from './state.js';

/**
 * The document step: a retake goes straight back to the camera with the type and country chosen
 * before (unless the document was the wrong type or country); otherwise the chooser, preselected
 * with the earlier choice when there is one.
 */
export function documentStep(retakeMessage?: string | null): void {
  const remembered = documentChoice();
  if (!remembered || retakeMessage === 'wrong_document' || retakeMessage === 'document_unsupported') return chooseDocument();
  const sides = state.flow.documentTypes.find((type) => type.idType === remembered.idType)?.sides ?? 1;
  capture({ kind: 'document', side: 'front', document: { ...remembered, sides } });
}

/** Document type and issuing country. */
export function chooseDocument(): void {
  const remembered = documentChoice();
  const names = new Intl.DisplayNames([state.language], { type: 'region' });
  const countries = COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) =>
    a.name.localeCompare(b.name, state.language),
  );
  const preferred = remembered?.country ?? state.flow.documentRead?.nationality ?? state.flow.expectedDetails?.country ?? '';
  const chosenType = remembered?.idType ?? state.flow.documentTypes[0]?.idType;
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
    ...state.flow.documentTypes.map((type) =>
      h(
        'div',
        { className: 'check' },
        h('input', { type: 'radio', name: 'idType', id: `type-${type.idType}`, value: type.idType, checked: type.idType === chosenType }),
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
        rememberDocumentChoice({ idType, country: country.value });
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
