/** One case: evidence, identity, checks, AML, timeline, notes and the decision. */
import { ApiError, graphql } from './api.js';
import { announce, badge, h, show, when } from './dom.js';
import { header } from './layout.js';
import { faceEntryControl } from './lists.js';
import { me } from './state.js';
import type { QueueItem } from './queue.js';
import { CLAIM_FIELDS, claimSection, heldByOther, heldByOtherNote, type Claim } from './claim.js';
import { retakeSection } from './retake.js';

/** A node's result as the case page shows it. */
interface NodeResult {
  nodeType: string;
  status: string;
  warnings: { code: string; message: string }[];
  details: Record<string, any>;
}

/** The case page's session. */
interface Case extends QueueItem {
  status: string;
  environment: string;
  expectedDetails: Record<string, string> | null;
  nodeResults: NodeResult[];
  reviewHistory: {
    actor: string;
    actorName: string | null;
    fromStatus: string | null;
    toStatus: string;
    reason: string | null;
    at: number;
  }[];
  warnings: { code: string; message: string }[];
  evidence: { id: string; kind: string; contentType: string; url: string }[];
  notes: { id: string; authorName: string; body: string; createdAt: number }[];
  claim: Claim | null;
}

const QUEUE_FIELDS = 'id vendorData workflowId createdAt updatedAt decision { reasons { code message } }';
const CASE = `query ($id: String!) { session(id: $id) { ${QUEUE_FIELDS} status environment expectedDetails evidence { id kind contentType url } notes { id authorName body createdAt }
  warnings { code message } nodeResults { nodeType status warnings { code message } details }
  reviewHistory { actor actorName fromStatus toStatus reason at } ${CLAIM_FIELDS} } }`;
const ADD_NOTE = `mutation ($sessionId: String!, $body: String!) { addSessionNote(sessionId: $sessionId, body: $body) { id } }`;
const REVIEW = `mutation ($id: String!, $decision: ReviewDecision!, $reason: String!) {
  reviewSession(id: $id, decision: $decision, reason: $reason) { id status } }`;

/** Personal details as given beside the document's fields as read (MRZ or OCR), a difference marked in words. */
function identitySection(session: Case): HTMLElement {
  const document = session.nodeResults.find((node) => node.nodeType === 'document_verification');
  const extracted = (document?.details.extracted ?? {}) as Record<string, unknown>;
  const expected = session.expectedDetails ?? {};
  const fields: [string, string][] = [
    ['First name', 'first_name'],
    ['Last name', 'last_name'],
    ['Date of birth', 'date_of_birth'],
    ['Nationality', 'nationality'],
    ['Document number', 'document_number'],
    ['Expiry date', 'expiry_date'],
    ['MRZ format', 'mrz_format'],
  ];
  const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));
  return h(
    'section',
    { 'aria-labelledby': 'identity-heading' },
    h('h2', { id: 'identity-heading' }, 'Identity'),
    h(
      'p',
      {},
      document
        ? `Document: ${document.details.document_type ?? '?'} issued by ${document.details.issuing_country ?? '?'}.`
        : 'No document step.',
    ),
    h(
      'table',
      { tabindex: '0', id: 'identity' },
      h('caption', {}, 'Personal details given beside the document as read'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Given'), h('th', { scope: 'col' }, 'Document')),
      ),
      h(
        'tbody',
        {},
        ...fields
          .filter(([, key]) => expected[key] !== undefined || (extracted[key] !== null && extracted[key] !== undefined))
          .map(([label, key]) => {
            const given = expected[key];
            const read = extracted[key];
            const differs =
              given !== undefined && read !== undefined && read !== null && String(given).toLowerCase() !== String(read).toLowerCase();
            return h(
              'tr',
              { class: differs ? 'differs' : undefined },
              h('th', { scope: 'row' }, label),
              h('td', {}, text(given)),
              h('td', {}, text(read), differs ? h('strong', {}, ' (differs)') : null),
            );
          }),
      ),
    ),
  );
}

/** Names of the evidence kinds as shown. */
const EVIDENCE_LABELS: Record<string, string> = {
  document_front: 'Document, front',
  document_back: 'Document, back',
  selfie: 'Selfie',
  proof_of_address: 'Proof of address',
};

/**
 * The document front and back beside the selfie, with the similarity the face step measured.
 * Each file comes through its short-lived signed URL, and the server audits every opening; the
 * latest submission of each kind is shown (earlier ones were retakes).
 */
function evidenceSection(session: Case): HTMLElement {
  const latest = new Map(session.evidence.map((item) => [item.kind, item]));
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  const similarity = typeof face?.details.similarity === 'number' ? `${Math.round(face.details.similarity * 100)} %` : null;
  return h(
    'section',
    { 'aria-labelledby': 'evidence-heading' },
    h('h2', { id: 'evidence-heading' }, 'Evidence'),
    latest.size === 0
      ? h('p', {}, 'Nothing kept: the files were not images, or the retention period is 0 or over.')
      : h(
          'div',
          { class: 'evidence', id: 'evidence' },
          ...[...latest.values()].map((item) => {
            const label = EVIDENCE_LABELS[item.kind] ?? item.kind;
            return h(
              'figure',
              { 'data-kind': item.kind },
              item.contentType.startsWith('image/')
                ? h('img', { src: item.url, alt: `${label} as submitted` })
                : h('a', { href: item.url, target: '_blank', rel: 'noopener' }, `Open the ${label.toLowerCase()} (PDF)`),
              h('figcaption', {}, item.kind === 'selfie' && similarity ? `${label} · similarity ${similarity}` : label),
            );
          }),
        ),
    latest.has('selfie') && me().operator.role !== 'viewer' ? faceEntryControl(session.id) : null,
  );
}

/** Every node's result, warnings and the checks it ran. */
function checksSection(session: Case): HTMLElement {
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  return h(
    'section',
    { 'aria-labelledby': 'checks-heading' },
    h('h2', { id: 'checks-heading' }, 'Checks'),
    face?.details.similarity !== undefined
      ? h('p', { id: 'similarity' }, `Face similarity between document and selfie: ${Math.round(face.details.similarity * 100)} %`)
      : null,
    h(
      'table',
      { tabindex: '0' },
      h('caption', {}, 'Result of each step'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Step'),
          h('th', { scope: 'col' }, 'Result'),
          h('th', { scope: 'col' }, 'Checks'),
          h('th', { scope: 'col' }, 'Warnings'),
        ),
      ),
      h(
        'tbody',
        {},
        ...session.nodeResults.map((node) =>
          h(
            'tr',
            { 'data-node': node.nodeType },
            h('th', { scope: 'row' }, node.nodeType.replace(/_/g, ' ')),
            h('td', {}, badge(node.status)),
            h(
              'td',
              {},
              Object.entries((node.details.checks ?? {}) as Record<string, string>)
                .map(([check, result]) => `${check.replace(/_/g, ' ')}: ${result}`)
                .join(', ') ||
                (node.details.result_code ?? '—'),
            ),
            h('td', {}, node.warnings.map((warning) => warning.message).join(' ') || '—'),
          ),
        ),
      ),
    ),
  );
}

/** AML hits with the listed entity and its list. */
function amlSection(session: Case): HTMLElement | null {
  const aml = session.nodeResults.find((node) => node.nodeType === 'aml_screening');
  if (!aml) return null;
  const hits = (aml.details.hits ?? []) as { list: string; category?: string; matched_name: string; score: number; entry_id: string }[];
  return h(
    'section',
    { 'aria-labelledby': 'aml-heading' },
    h('h2', { id: 'aml-heading' }, 'AML screening'),
    h(
      'p',
      {},
      `Screened ${aml.details.subject?.full_name ?? 'the subject'} against ${((aml.details.checked_lists ?? []) as string[]).join(', ') || 'no list'}; score ${aml.details.score ?? 0}.`,
    ),
    hits.length === 0
      ? h('p', {}, 'No hit.')
      : h(
          'table',
          { tabindex: '0', id: 'aml-hits' },
          h('caption', {}, 'Hits'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Listed name'),
              h('th', { scope: 'col' }, 'List'),
              h('th', { scope: 'col' }, 'Category'),
              h('th', { scope: 'col' }, 'Score'),
              h('th', { scope: 'col' }, 'Entry'),
            ),
          ),
          h(
            'tbody',
            {},
            ...hits.map((hit) =>
              h(
                'tr',
                {},
                h('td', {}, hit.matched_name),
                h('td', {}, hit.list),
                h('td', {}, hit.category ?? '—'),
                h('td', {}, String(hit.score)),
                h('td', {}, hit.entry_id),
              ),
            ),
          ),
        ),
  );
}

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

/** Approve or decline with a reason, for reviewers and admins while the session is in review. */
function decisionSection(session: Case): HTMLElement {
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
  const decide = (decision: 'approved' | 'declined') => async () => {
    const reason = (form.querySelector('#reason') as HTMLTextAreaElement).value.trim();
    if (!reason) {
      error.textContent = 'Give a reason: it goes into the audit trail.';
      return;
    }
    try {
      await graphql(REVIEW, { id: session.id, decision, reason });
      announce(`Session ${decision}.`);
      await caseScreen(session.id);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
  const form = h(
    'form',
    { onsubmit: (event) => event.preventDefault() },
    h('label', { for: 'reason' }, 'Reason (kept in the audit trail)'),
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
      h(
        'p',
        {},
        'Status: ',
        badge(session.status),
        ` · workflow ${session.workflowId} · ${session.environment} · created ${when(session.createdAt)}`,
      ),
      session.decision.reasons.length
        ? h('ul', { class: 'reasons' }, ...session.decision.reasons.map((reason) => h('li', {}, reason.message)))
        : null,
      h(
        'div',
        { class: 'columns wide' },
        h('div', {}, evidenceSection(session), identitySection(session), checksSection(session), amlSection(session)),
        h(
          'div',
          {},
          session.status === 'in_review' ? await claimSection(session.id, session.claim, () => caseScreen(session.id)) : null,
          decisionSection(session),
          retakeSection(session, () => caseScreen(session.id)),
          notesSection(session),
          timelineSection(session),
        ),
      ),
    ),
  );
}
