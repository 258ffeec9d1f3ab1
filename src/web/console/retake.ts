/** Asking the end user to retake one step of an in-review case, instead of approving or declining it. */
import { ApiError, graphql } from './api.js';
import { announce, h } from './dom.js';
import { heldByOther, type Claim } from './claim.js';
import { me } from './state.js';
import { END_USER_SENTENCES, REASON_LANGUAGES, type EndUserMessage, type ReasonLanguage } from '../../domain/reasons.js';
import { translator } from '../shared/i18n.js';

const REQUEST_RETAKE = `mutation ($sessionId: String!, $nodeType: NodeType!, $reason: String, $reasonCode: String, $note: String) {
  requestRetake(sessionId: $sessionId, nodeType: $nodeType, reason: $reason, reasonCode: $reasonCode, note: $note) { id status } }`;
const REASON_CODES = 'query { reasonCodes { code category reviewerText endUserMessage builtIn } }';

/** One code reviewers may pick (the built-in catalogue and the tenant's own). */
interface ReasonCode {
  code: string;
  category: string;
  reviewerText: string;
  endUserMessage: string;
  builtIn: boolean;
}

let reasonCodes: Promise<ReasonCode[]> | null = null;

/** The codes of this environment (built-in and the tenant's own), read once per page load. */
export function loadReasonCodes(): Promise<ReasonCode[]> {
  reasonCodes ??= graphql<{ reasonCodes: ReasonCode[] }>(REASON_CODES).then((data) => data.reasonCodes);
  // A failed read is tried again next time, not remembered.
  reasonCodes.catch(() => {
    reasonCodes = null;
  });
  return reasonCodes;
}

/** A select of the reason catalogue, grouped by category, with an empty first choice. */
export async function reasonCodeSelect(id: string, none: string): Promise<HTMLSelectElement> {
  const codes = await loadReasonCodes();
  const categories = [...new Set(codes.map((code) => code.category))];
  const select = h(
    'select',
    { id, name: id },
    h('option', { value: '' }, none),
    ...categories.map((category) =>
      h(
        'optgroup',
        { label: category },
        ...codes
          .filter((code) => code.category === category)
          .map((code) => h('option', { value: code.code, 'data-end-user': code.endUserMessage }, `${code.reviewerText} (${code.code})`)),
      ),
    ),
  ) as HTMLSelectElement;
  return select;
}

/** What the person reads for a retake, in their language, exactly as the hosted flow shows it. */
export function retakePreview(language: string | null | undefined, endUserMessage: string | null, note: string): string[] {
  const lang = (REASON_LANGUAGES as readonly string[]).includes(language ?? '') ? (language as ReasonLanguage) : 'en';
  const t = translator(lang);
  const lines = [endUserMessage ? END_USER_SENTENCES[lang][endUserMessage as EndUserMessage] : t('retake_reviewer_request')];
  if (note) lines.push(t('reviewerNote'), note);
  return lines;
}

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
export async function retakeSection(
  session: {
    id: string;
    status: string;
    language?: string | null;
    claim: Claim | null;
    nodeResults: { nodeType: string; status: string }[];
  },
  refresh: () => Promise<void>,
): Promise<HTMLElement | null> {
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
    oninput: () => {
      error.textContent = '';
    },
  });
  const code = await reasonCodeSelect('retake-code', '— none —');
  const note = h('textarea', { id: 'retake-note', name: 'retake-note', rows: '2', maxlength: '2000' }) as HTMLTextAreaElement;
  // The reviewer sees exactly what the person will read before sending it.
  const preview = h('div', { id: 'retake-preview', class: 'preview-box', 'aria-live': 'polite' });
  const renderPreview = () => {
    const chosen = code.selectedOptions[0]?.dataset.endUser ?? null;
    preview.replaceChildren(...retakePreview(session.language, chosen || null, note.value.trim()).map((line) => h('p', {}, line)));
  };
  code.addEventListener('change', renderPreview);
  note.addEventListener('input', renderPreview);
  renderPreview();
  const ask = async () => {
    const text = reason.value.trim();
    if (!text && !code.value) {
      error.textContent = 'Give a reason: the audit trail keeps it and the integrator receives it.';
      return;
    }
    try {
      await graphql(REQUEST_RETAKE, {
        sessionId: session.id,
        nodeType: step.value,
        reason: text || null,
        reasonCode: code.value || null,
        note: note.value.trim() || null,
      });
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
      h('div', { class: 'field' }, h('label', { for: 'retake-code' }, 'What to fix (from the reason catalogue)'), code),
      h('div', { class: 'field' }, h('label', { for: 'retake-note' }, 'Note to the person (optional; they read it)'), note),
      h('h3', { id: 'retake-preview-heading' }, 'The person will read'),
      preview,
      error,
      h('div', { class: 'actions' }, h('button', { type: 'button', id: 'request-retake', onclick: ask }, 'Ask for a retake')),
    ),
  );
}
