/** Asking the end user to retake one step of an in-review case, instead of approving or declining it. */
import { ApiError, graphql } from './api.js';
import { announce, h } from './dom.js';
import { heldByOther, type Claim } from './claim.js';
import { me } from './state.js';

const REQUEST_RETAKE = `mutation ($sessionId: String!, $nodeType: NodeType!, $reason: String!) {
  requestRetake(sessionId: $sessionId, nodeType: $nodeType, reason: $reason) { id status } }`;

/** Names of the steps as a reviewer reads them. */
const STEP_LABELS: Record<string, string> = {
  document_verification: 'ID document',
  biometric_kyc: 'Selfie',
  aml_screening: 'Personal details for screening',
  phone_verification: 'Phone number',
  proof_of_address: 'Proof of address',
  business_registry: 'Company registration',
};

/**
 * "Ask for a retake": a step of the case's workflow the end user already submitted (a pending
 * step has nothing to retake) and a mandatory reason; the case then goes
 * back to the end user (in progress) and leaves the queue. Shown, like approve and decline, only
 * to reviewers and admins, while the case is in review and nobody else holds it.
 */
export function retakeSection(
  session: { id: string; status: string; claim: Claim | null; nodeResults: { nodeType: string; status: string }[] },
  refresh: () => Promise<void>,
): HTMLElement | null {
  if (session.status !== 'in_review' || me().operator.role === 'viewer' || heldByOther(session.claim)) return null;
  const error = h('p', { class: 'error', role: 'alert', id: 'retake-error' });
  const step = h(
    'select',
    { id: 'retake-step', name: 'step', required: true },
    ...session.nodeResults
      .filter((node) => node.status !== 'pending')
      .map((node) => h('option', { value: node.nodeType }, STEP_LABELS[node.nodeType] ?? node.nodeType)),
  );
  const reason = h('textarea', {
    id: 'retake-reason',
    name: 'retake-reason',
    rows: '2',
    required: true,
    oninput: () => {
      error.textContent = '';
    },
  });
  const ask = async () => {
    const text = reason.value.trim();
    if (!text) {
      error.textContent = 'Give a reason: the audit trail keeps it and the integrator receives it.';
      return;
    }
    try {
      await graphql(REQUEST_RETAKE, { sessionId: session.id, nodeType: step.value, reason: text });
      announce('Retake requested: the case is back with the end user.');
      await refresh();
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'retake-heading' },
    h('h2', { id: 'retake-heading' }, 'Ask for a retake'),
    h('p', {}, 'Sends one step back to the end user; the case leaves the queue until they submit it again.'),
    h(
      'form',
      { onsubmit: (event) => event.preventDefault() },
      h('div', { class: 'field' }, h('label', { for: 'retake-step' }, 'Step'), step),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'retake-reason' }, 'Reason (kept in the audit trail, sent to the integrator)'),
        reason,
      ),
      error,
      h('div', { class: 'actions' }, h('button', { type: 'button', id: 'request-retake', onclick: ask }, 'Ask for a retake')),
    ),
  );
}
