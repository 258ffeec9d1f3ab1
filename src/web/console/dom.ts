/** The console's DOM helpers: elements, SVG, announcements, screens and the formats every screen shares. */

const app = document.getElementById('app')!;
const announcer = document.getElementById('announcer')!;

/** The element the screens render into (its data attributes are what tests and styles key on). */
export const root = app;

/** Creates an element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | ((event: Event) => void) | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** Says something to screen readers (the visible change is on the page already). */
export function announce(message: string): void {
  announcer.textContent = message;
}

/** Replaces the page with a screen; its first heading takes the focus so keyboard users start there. */
export function show(screen: string, ...content: Node[]): void {
  app.dataset.screen = screen;
  app.replaceChildren(...content);
  app.querySelector<HTMLElement>('h1')?.focus();
}

/** A Unix time as the operator's local date and time. */
export function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A status as a badge whose colour is never the only carrier of meaning (the word is there). */
export function badge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status}` }, status.replace(/_/g, ' '));
}

const SVG = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes. */
export function svg(tag: string, attributes: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}
