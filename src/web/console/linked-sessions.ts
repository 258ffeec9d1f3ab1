/** The sessions a fraud finding links a case to (docs/duplicates.md), as links to their cases, in plain words. */
import { h } from './dom.js';

/** Each finding that names other sessions, and how the case page says it. */
const FINDINGS: Record<string, string> = {
  selfie_reused: 'The same selfie was sent in',
  duplicate_face: 'The same face was verified under another customer reference in',
  duplicate_document: 'The same document was used under another customer reference in',
};

/** One paragraph per finding of a node's details, each linked session a link to its case; null when there is none. */
export function linkedSessions(details: Record<string, any>): HTMLElement | null {
  const found = Object.entries(FINDINGS).filter(([code]) => Array.isArray(details[code]?.session_ids));
  if (found.length === 0) return null;
  return h(
    'div',
    { class: 'linked-sessions' },
    ...found.map(([code, words]) => {
      const ids = details[code].session_ids as string[];
      const links = ids.flatMap((id, index) => [
        index > 0 ? ', ' : '',
        h('a', { href: `#/case/${id}`, 'data-linked-session': id }, id.slice(0, 8)),
      ]);
      return h(
        'p',
        { 'data-finding': code },
        `${words} `,
        ...links,
        ids.length === 1 ? ' (another session).' : ` (${ids.length} other sessions).`,
      );
    }),
  );
}
