/** One case: the checks' findings (case-findings.ts), then the claim, decision, retake, notes and timeline. */
import { ApiError, graphql } from './api.js';
import { announce, badge, h, show, when } from './dom.js';
import { personHref } from './search.js';
import { header } from './layout.js';
import { me } from './state.js';
import { CLAIM_FIELDS, claimSection, heldByOther, heldByOtherNote } from './claim.js';
import { loadReasonCodes, reasonCodeSelect, retakeSection } from './retake.js';
import { reportButton } from './exports.js';
import { AML_HIT_FIELDS, amlSection, checksSection, evidenceSection, fraudSection, identitySection, type Case } from './case-findings.js';

const QUEUE_FIELDS =
  'id vendorData workflowId workflow { name } createdAt updatedAt decision { reasons { code message cause reviewerText } }';
const CASE = `query ($id: String!) { session(id: $id) { ${QUEUE_FIELDS} workflowRevision status environment language expectedDetails evidence { id kind contentType url attempt } notes { id authorName body createdAt }
  warnings { code message } nodeResults { nodeType status warnings { code message } details }
  reviewHistory { actor actorName fromStatus toStatus reason at } ${CLAIM_FIELDS} ${AML_HIT_FIELDS} } }`;
const ADD_NOTE = `mutation ($sessionId: String!, $body: String!) { addSessionNote(sessionId: $sessionId, body: $body) { id } }`;
const REVIEW = `mutation ($id: String!, $decision: ReviewDecision!, $reason: String, $reasonCode: String, $note: String) {
  reviewSession(id: $id, decision: $decision, reason: $reason, reasonCode: $reasonCode, note: $note) { id status } }`;

/** The audit trail, oldest first: who moved the session where, and why. */
function timelineSection(session: Case): HTMLElement {
  // The verdict's change carries no text of its own: the latest one, when the case is still where it
  // put it, reads the decision's reasons in the catalogue's words (earlier verdicts' reasons are gone).
  const last = session.reviewHistory.at(-1);
  const verdictWhy =
    last?.actor === 'decision_engine' && !last.reason && last.toStatus === session.status
      ? [...new Set(session.decision.reasons.map((reason) => reason.reviewerText))].join(' ')
      : '';
  return h(
    'section',
    { 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    h(
      'ol',
      { class: 'timeline', id: 'timeline' },
      ...session.reviewHistory.map((change) =>
        h(
          'li',
          {},
          h('time', {}, when(change.at)),
          ' ',
          badge(change.toStatus),
          ` by ${change.actorName ? `${change.actorName} (${change.actor})` : change.actor}`,
          change.reason ? h('span', { class: 'reason' }, ` — ${change.reason}`) : null,
          change === last && verdictWhy ? h('span', { class: 'reason', 'data-verdict-reasons': '' }, ` — ${verdictWhy}`) : null,
        ),
      ),
    ),
  );
}

/** Notes on the case, under their authors' names; reviewers and admins add them. */
function notesSection(session: Case): HTMLElement {
  const list = h(
    'ul',
    { class: 'notes', id: 'notes' },
    ...session.notes.map((note) =>
      h('li', {}, h('p', {}, note.body), h('p', { class: 'reason' }, `${note.authorName}, ${when(note.createdAt)}`)),
    ),
  );
  const heading = h('h2', { id: 'notes-heading' }, 'Notes');
  if (me().operator.role === 'viewer')
    return h('section', { 'aria-labelledby': 'notes-heading' }, heading, session.notes.length ? list : h('p', {}, 'No notes.'));
  const error = h('p', { class: 'error', role: 'alert', id: 'note-error' });
  const form = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        const body = (form.querySelector('#note') as HTMLTextAreaElement).value.trim();
        if (!body) {
          error.textContent = 'Write the note first.';
          return;
        }
        try {
          await graphql(ADD_NOTE, { sessionId: session.id, body });
          announce('Note added.');
          await caseScreen(session.id);
        } catch (failure) {
          error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
        }
      },
    },
    h('label', { for: 'note' }, 'New note'),
    h('textarea', { id: 'note', name: 'note', rows: '2' }),
    error,
    h('button', { type: 'submit', class: 'secondary' }, 'Add note'),
  );
  return h('section', { 'aria-labelledby': 'notes-heading' }, heading, session.notes.length ? list : null, form);
}

/** Approve or decline with a reason (a catalogue code, free text, or both), for reviewers and admins while the session is in review. */
async function decisionSection(session: Case): Promise<HTMLElement> {
  const heading = h('h2', { id: 'decision-heading' }, 'Decision');
  if (session.status !== 'in_review') {
    const label = session.status === 'pending' || session.status === 'in_progress' ? 'With the end user: ' : 'Decided: ';
    return h('section', { 'aria-labelledby': 'decision-heading' }, heading, h('p', { id: 'decided' }, label, badge(session.status)));
  }
  if (me().operator.role === 'viewer')
    return h(
      'section',
      { 'aria-labelledby': 'decision-heading' },
      heading,
      h('p', { id: 'viewer-note' }, 'Your role (viewer) can read cases; it cannot decide them.'),
    );
  if (heldByOther(session.claim)) return h('section', { 'aria-labelledby': 'decision-heading' }, heading, heldByOtherNote(session.claim!));
  const error = h('p', { class: 'error', role: 'alert', id: 'decision-error' });
  const code = await reasonCodeSelect('reason-code', '— none (free text only) —');
  const decide = (decision: 'approved' | 'declined') => async () => {
    const text = (form.querySelector('#reason') as HTMLTextAreaElement).value.trim();
    // A decline reason from the catalogue is counted and reported, and the text is its note (the
    // decision's message the integrator reads); without a code the text is the free-text reason.
    const reasonCode = decision === 'declined' && code.value ? code.value : null;
    if (!text && !reasonCode) {
      error.textContent = 'Give a reason: it goes into the audit trail.';
      return;
    }
    try {
      await graphql(REVIEW, {
        id: session.id,
        decision,
        reason: reasonCode ? null : text,
        reasonCode,
        note: reasonCode ? text || null : null,
      });
      announce(`Session ${decision}.`);
      await caseScreen(session.id);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
  const form = h(
    'form',
    { onsubmit: (event) => event.preventDefault() },
    h('div', { class: 'field' }, h('label', { for: 'reason-code' }, 'Decline reason (from the reason catalogue)'), code),
    h('label', { for: 'reason' }, 'Reason or note (kept in the audit trail and sent to the integrator)'),
    h('textarea', { id: 'reason', name: 'reason', rows: '3' }),
    error,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', id: 'approve', onclick: decide('approved') }, 'Approve'),
      h('button', { type: 'button', id: 'decline', class: 'danger', onclick: decide('declined') }, 'Decline'),
    ),
  );
  return h('section', { 'aria-labelledby': 'decision-heading' }, heading, form);
}

/**
 * Why the case is where it is, in the catalogue's words: one line per distinct sentence (two rules
 * may name the same cause), a reviewer's note beside their coded decision.
 */
function headerReasons(reasons: Case['decision']['reasons']): HTMLElement | null {
  const lines: { cause: string; text: string }[] = [];
  for (const reason of reasons) {
    // A coded decision's message is the reviewer's note, or the code's own sentence when there is none.
    const text =
      reason.code === 'reviewer_decision' && reason.message !== reason.reviewerText
        ? `${reason.reviewerText} — ${reason.message}`
        : reason.reviewerText;
    if (!lines.some((line) => line.text === text)) lines.push({ cause: reason.cause, text });
  }
  if (lines.length === 0) return null;
  return h('ul', { class: 'reasons' }, ...lines.map((line) => h('li', { 'data-cause': line.cause }, line.text)));
}

/** One case: what the checks found, the audit trail and the decision. */
export async function caseScreen(id: string): Promise<void> {
  let session: Case;
  try {
    session = (await graphql<{ session: Case }>(CASE, { id })).session;
  } catch (failure) {
    show(
      'not-found',
      header(),
      h(
        'main',
        {},
        h('h1', { tabindex: '-1' }, 'Case not found'),
        h('p', {}, failure instanceof ApiError ? failure.message : String(failure)),
        h('p', {}, h('a', { href: '#/' }, 'Back to the queue')),
      ),
    );
    return;
  }
  // The catalogue names the fraud signals; the page still shows the case when it cannot be read.
  const catalogue = new Map((await loadReasonCodes().catch(() => [])).map((code) => [code.code, code]));
  show(
    'case',
    header(),
    h(
      'main',
      { 'data-session-id': session.id, 'data-status': session.status },
      h('p', {}, h('a', { href: '#/' }, '← Review queue')),
      h('h1', { tabindex: '-1' }, `Case ${session.vendorData}`),
      h('p', {}, h('a', { href: personHref(session.vendorData), id: 'person-link' }, `Every session of ${session.vendorData}`)),
      h(
        'p',
        {},
        'Status: ',
        badge(session.status),
        ` · workflow ${session.workflow?.name ?? session.workflowId}${session.workflowRevision ? ` (revision ${session.workflowRevision})` : ''} · ${session.environment} · created ${when(session.createdAt)}`,
      ),
      reportButton(session.id),
      headerReasons(session.decision.reasons),
      h(
        'div',
        { class: 'columns wide' },
        h(
          'div',
          {},
          evidenceSection(session),
          identitySection(session),
          checksSection(session, catalogue),
          fraudSection(session, catalogue),
          amlSection(session, () => caseScreen(session.id)),
        ),
        h(
          'div',
          {},
          session.status === 'in_review' ? await claimSection(session.id, session.claim, () => caseScreen(session.id)) : null,
          await decisionSection(session),
          await retakeSection(session, () => caseScreen(session.id)),
          notesSection(session),
          timelineSection(session),
        ),
      ),
    ),
  );
}
