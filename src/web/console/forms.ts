/**
 * What the settings pages (lists, workflows, webhooks) share: labelled fields whose errors sit
 * next to them, tables with a caption, and who may change what.
 */
import { ApiError, type Role } from './api.js';
import { h } from './dom.js';
import { me } from './state.js';

/** Whether the signed-in operator's role is one of `roles` (the server enforces the same rule; the page only hides what would be refused). */
export function may(...roles: Role[]): boolean {
  return roles.includes(me().operator.role);
}

/** What a failed call says to a person. */
export function problemText(failure: unknown): string {
  return failure instanceof ApiError ? failure.message : 'The server could not be reached.';
}

/**
 * A label, its control and the control's error line (`<id>-error`, announced and tied to the
 * control by aria-describedby), so a refusal for that field shows next to it.
 */
export function field(id: string, label: string, control: HTMLElement): HTMLElement {
  control.id = id;
  control.setAttribute('aria-describedby', `${id}-error`);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    h('p', { class: 'error', id: `${id}-error`, role: 'alert' }),
  );
}

/**
 * Shows a refusal: each field error next to the control `fields` maps its server name to (the
 * first matching prefix: `nodes` takes `nodes[1].type`), the rest in `general`. Clears old errors
 * of the form first.
 */
export function showProblems(form: HTMLElement, failure: unknown, fields: Record<string, string>, general: HTMLElement): void {
  for (const line of form.querySelectorAll<HTMLElement>('.field .error')) line.textContent = '';
  general.textContent = '';
  const errors = failure instanceof ApiError ? failure.fieldErrors : [];
  const unplaced: string[] = [];
  for (const error of errors) {
    const key = Object.keys(fields).find(
      (name) => error.field === name || error.field.startsWith(`${name}[`) || error.field.startsWith(`${name}.`),
    );
    const line = key ? form.querySelector<HTMLElement>(`#${fields[key]}-error`) : null;
    if (line) line.textContent = [line.textContent, error.message].filter(Boolean).join(' ');
    else unplaced.push(error.message);
  }
  if (errors.length === 0 || unplaced.length > 0) general.textContent = errors.length ? unplaced.join(' ') : problemText(failure);
}

/** A table with a caption and column headers; `empty` fills it when there is no row. Reachable by keyboard for scrolling on phones. */
export function table(id: string, caption: string, headers: string[], rows: HTMLElement[], empty: string): HTMLElement {
  return h(
    'table',
    { id, tabindex: '0' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, ...(rows.length ? rows : [h('tr', {}, h('td', { colspan: String(headers.length) }, empty))])),
  );
}

/**
 * A button that asks once more before an irreversible change: the first press turns it into
 * "Confirm: …", the second runs `action` (no modal dialog, so keyboard and screen readers stay put).
 */
export function confirmButton(id: string, label: string, action: () => Promise<void>): HTMLButtonElement {
  let armed = false;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      id,
      onclick: async () => {
        if (!armed) {
          armed = true;
          button.textContent = `Confirm: ${label.toLowerCase()}`;
          return;
        }
        await action();
      },
    },
    label,
  );
  return button;
}
