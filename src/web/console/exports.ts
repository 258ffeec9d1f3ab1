/** The console's download buttons: a case's PDF report and the cases of the queue's filter as CSV (each download is audited by the server). */
import { download } from './api.js';
import { announce, h } from './dom.js';
import { problemText } from './forms.js';

/** A button that downloads `path()` and says so, or says why not next to itself. */
export function downloadButton(id: string, label: string, path: () => string, done: string): HTMLElement {
  const problem = h('span', { class: 'error', role: 'alert', id: `${id}-error` });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id,
      onclick: async () => {
        problem.textContent = '';
        try {
          await download(path());
          announce(done);
        } catch (failure) {
          problem.textContent = problemText(failure);
        }
      },
    },
    label,
  );
  return h('p', { class: 'download' }, button, ' ', problem);
}

/** The case report button of a case page. */
export function reportButton(sessionId: string): HTMLElement {
  return downloadButton(
    'case-report',
    'Download the case report (PDF)',
    () => `/sessions/${sessionId}/report.pdf`,
    'The case report is downloading.',
  );
}
