/** The hosted flow's DOM helpers: elements, screens, announcements, field errors and the embedding page. */
import { ApiError } from './api.js';
import { askedSteps, pendingSteps, sessionId, state, stopCamera, t } from './state.js';

/** What h() takes as children (falsy ones are skipped). */
export type Child = Node | string | null | undefined | false;

/** The element the screens render into (its data attributes are what tests and styles key on). */
export const app = document.getElementById('app')!;
const announcer = document.getElementById('announcer')!;

/** Builds an element: `h('button', { type: 'button', onclick }, 'Start')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, any> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'className') element.className = value;
    else if (name in element && !name.includes('-')) (element as any)[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** Says something to screen readers (and shows it when it is an error). */
function announce(message: string): void {
  announcer.textContent = '';
  // A change after a frame is read out even when the text repeats.
  requestAnimationFrame(() => (announcer.textContent = message));
}

/** Tells an embedding page (an allowed origin only) what happened. */
export function notifyParent(message: Record<string, unknown>): void {
  if (window.parent === window) return;
  const parentOrigin = location.ancestorOrigins?.[0];
  if (!parentOrigin || !state.flow?.allowedEmbedOrigins.includes(parentOrigin)) return;
  window.parent.postMessage({ source: 'idv-hosted-flow', sessionId, ...message }, parentOrigin);
}

/** Replaces the screen: one h1 (focused, so screen readers start there), progress, content. */
export function show(screen: string, heading: string, ...content: Child[]): void {
  stopCameraUnlessCapture(screen);
  // Progress counts only the steps this person is asked, and names the step being done (a retake included).
  const asked = state.flow ? askedSteps() : [];
  const total = asked.length;
  const current = state.flow ? asked.indexOf(pendingSteps()[0]) + 1 || total : 0;
  const title = h('h1', { tabIndex: -1 }, heading);
  const progress =
    state.flow && total > 0 && !['welcome', 'done', 'error'].includes(screen)
      ? h('p', { className: 'progress' }, t('stepOf', { current, total }))
      : null;
  const logo = state.flow?.logo ? h('img', { className: 'logo', src: state.flow.logo, alt: state.flow.displayName }) : null;
  app.replaceChildren(h('header', {}, logo, progress), title, ...content.filter((child): child is Node | string => Boolean(child)));
  app.dataset.screen = screen;
  document.title = `${heading} · ${state.flow?.displayName ?? t('title')}`;
  title.focus();
  notifyParent({ type: 'step_changed', step: screen });
}

function stopCameraUnlessCapture(screen: string): void {
  if (screen !== 'document' && screen !== 'selfie' && screen !== 'liveness') stopCamera();
}

/** A field error shown under its input and read out. */
export function fieldError(input: HTMLElement, message: string): void {
  const id = `${input.id}-error`;
  document.getElementById(id)?.remove();
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', id);
  input.after(h('p', { id, className: 'error' }, message));
  input.focus();
  announce(message);
}

/** Shows a refusal of the server on the current screen. */
export function showProblem(error: unknown): void {
  const message = error instanceof ApiError ? (error.problem.fieldErrors?.[0]?.message ?? error.problem.message) : t('errorHeading');
  app.querySelector('.problem')?.remove();
  app.append(h('p', { className: 'problem error', role: 'alert' }, message));
}

/** A labelled input. */
export function field(id: string, label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  input.id = id;
  return h(
    'div',
    { className: 'field' },
    h('label', { htmlFor: id }, label),
    hint ? h('p', { className: 'hint', id: `${id}-hint` }, hint) : null,
    input,
  );
}
