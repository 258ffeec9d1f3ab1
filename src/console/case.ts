/** One case: the checks' findings (case-findings.ts), then the claim, decision, retake, notes and timeline. */
import { ApiError, graphql } from './api.js';
import { announce, badge, h, show, when } from './dom.js';
import { personHref } from './search.js';
import { header } from './layout.js';
import { me } from './state.js';
import { CLAIM_FIELDS, claimSection, heldByOther, heldByOtherNote } from './claim.js';
import { reasonCodeSelect, retakeSection } from './retake.js';
import { reportButton } from './exports.js';
import { AML_HIT_FIELDS, amlSection, checksSection, evidenceSection, fraudSection, identitySection, type Case } from './case-findings.js';

const QUEUE_FIELDS =
  'id vendorData workflowId workflow { name } createdAt updatedAt decision { reasons { code message cause reviewerText } }';
const CASE = `query ($id: String!) { session(id: $id) { ${QUEUE_FIELDS} workflowRevision status environment language expectedDetails evidence { id kind contentType url attempt } notes { id authorName body createdAt }
  warnings { code message } nodeResults { nodeType status warnings { code message } details }
  reviewHistory { actor actorName fromStatus toStatus reason at } ${CLAIM_FIELDS} ${AML_HIT_FIELDS} } }`;
const ADD_NOTE = `mutation ($sessionId: String!, $body: String!) { addSessionNote(sessionId: $sessionId, body: $body) { id } }`;
const REVIEW = `mutation ($id: String!, $decision: ReviewDecision!, $reason: String, $reasonCode: String) {
  reviewSession(id: $id, decision: $decision, reason: $reason, reasonCode: $reasonCode) { id status } }`;

/** The audit trail, oldest first: who moved the session where, and why. */
function timelineSection(session: Case): HTMLElement {
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
    const reason = (form.querySelector('#reason') as HTMLTextAreaElement).value.trim();
    // A decline reason from the catalogue is counted and reported; free text alone still works.
    const reasonCode = decision === 'declined' && code.value ? code.value : null;
    if (!reason && !reasonCode) {
      error.textContent = 'Give a reason: it goes into the audit trail.';
      return;
    }
    try {
      await graphql(REVIEW, { id: session.id, decision, reason: reason || null, reasonCode });
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
    h('label', { for: 'reason' }, 'Reason or note (kept in the audit trail)'),
    h('textarea', { id: 'reason', name: 'reason', rows: '3', required: true }),
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
      session.decision.reasons.length
        ? h(
            'ul',
            { class: 'reasons' },
            ...session.decision.reasons.map((reason) =>
              h(
                'li',
                { 'data-cause': reason.cause },
                reason.code === 'reviewer_decision' ? `${reason.reviewerText} — ${reason.message}` : reason.reviewerText,
              ),
            ),
          )
        : null,
      h(
        'div',
        { class: 'columns wide' },
        h(
          'div',
          {},
          evidenceSection(session),
          identitySection(session),
          checksSection(session),
          fraudSection(session),
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
