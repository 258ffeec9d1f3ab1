/** The business registry step's screen: company name, registration number and country. */
import { COUNTRIES } from './countries.js';
import { field, fieldError, h, show } from './dom.js';
import { submit } from './flow.js';
import { state, t } from './state.js';

/** The business registry step. */
export function business(): void {
  const company = h('input', { type: 'text', autocomplete: 'organization', required: true });
  const registration = h('input', { type: 'text', required: true });
  const names = new Intl.DisplayNames([state.language], { type: 'region' });
  const country = h(
    'select',
    { id: 'company-country', required: true },
    h('option', { value: '' }, t('chooseCountry')),
    ...COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code }))
      .sort((a, b) => a.name.localeCompare(b.name, state.language))
      .map(({ code, name }) => h('option', { value: code }, name)),
  );
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        for (const input of [company, registration]) if (!input.value.trim()) return fieldError(input, t('required'));
        if (!country.value) return fieldError(country, t('required'));
        void submit(
          'business_registry',
          { companyName: company.value.trim(), registrationNumber: registration.value.trim(), country: country.value },
          business,
        );
      },
    },
    field('company', t('companyName'), company),
    field('registration', t('registrationNumber'), registration),
    h('label', { htmlFor: 'company-country' }, t('country')),
    country,
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('business', t('businessHeading'), form);
}
