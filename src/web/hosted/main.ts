/**
 * The hosted verification flow: walks the end user through the session's steps at its `url`,
 * with the session token of the link, on the public GraphQL API. Plain DOM, no framework: ten
 * screens do not need one, and the whole flow stays far under its 150 KB budget.
 * Each screen lives in a module of its own; this one routes, welcomes and ends.
 */
import { renderSVG } from 'uqr';
import { ApiError, graphql, HOSTED_FLOW, type HostedFlow, type Step } from './api.js';
import { documentStep } from './document.js';
import { END_USER_SENTENCES, type EndUserMessage } from '../../domain/reasons.js';
import { details } from './details.js';
import { business } from './business.js';
import { capture } from './camera.js';
import { proofOfAddress } from './address.js';
import { app, fieldError, h, notifyParent, show, type Child } from './dom.js';
import { follow } from './flow.js';
import { pickLanguage, translator, type Language, type MessageKey } from '../shared/i18n.js';
import { phone } from './phone.js';
import { FINAL_STATUSES, pendingSteps, sessionId, state, t } from './state.js';
import { keep, readKept } from './storage.js';

/** The screen for the session's state: done when decided, else the first pending step. */
function route(): void {
  if (FINAL_STATUSES.includes(state.flow.status)) return done();
  const next = pendingSteps()[0];
  if (!next) return done();
  if (readKept(`idv:consent:${sessionId}`) !== 'yes') return welcome();
  if (next.status === 'resubmission_requested') return retakeRequested(next);
  openStep(next.nodeType);
}

/** The screen that takes a step's input (a retake the reviewer asked for may be any step). */
function openStep(nodeType: string, retakeMessage?: string | null): void {
  const screens: Record<string, () => void> = {
    document_verification: () => documentStep(retakeMessage),
    biometric_kyc: () => capture({ kind: 'selfie' }),
    aml_screening: details,
    phone_verification: phone,
    proof_of_address: proofOfAddress,
    business_registry: business,
  };
  screens[nodeType]();
}

function welcome(): void {
  const consent = h('input', { type: 'checkbox', id: 'consent' });
  const needs = h('ul', {}, ...state.flow.steps.map((step) => h('li', {}, t(`step_${step.nodeType}` as MessageKey))));
  const start = h('button', { type: 'submit', className: 'primary' }, t('start'));
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!consent.checked) return fieldError(consent, t('consentRequired'));
        keep(`idv:consent:${sessionId}`, 'yes');
        route();
      },
    },
    h('div', { className: 'check' }, consent, h('label', { htmlFor: 'consent' }, t('consent'))),
    state.flow.privacyUrl ? h('p', {}, h('a', { href: state.flow.privacyUrl, target: '_blank', rel: 'noopener' }, t('privacy'))) : null,
    start,
  );
  // On a computer the phone handoff comes first, above the fold (a QR and a link to copy).
  show(
    'welcome',
    t('welcomeHeading'),
    h('p', {}, t('welcomeIntro', { name: state.flow.displayName })),
    handoff(),
    h('p', {}, t('welcomeNeeds')),
    needs,
    form,
  );
}

/** The person's sentence for a theme of the reason catalogue, in the flow's language; null when the theme is unknown. */
function reasonSentence(message: string | null | undefined): string | null {
  if (!message) return null;
  return END_USER_SENTENCES[state.language][message as EndUserMessage] ?? null;
}

/** On a computer, a QR code of this link so the photos can be taken with a phone. */
function handoff(): Child {
  if (!matchMedia('(pointer: fine)').matches || matchMedia('(max-width: 700px)').matches) return null;
  const link = new URL(location.href);
  link.search = '';
  link.searchParams.set('token', state.token);
  const svg = new DOMParser().parseFromString(renderSVG(link.href, { border: 2 }), 'image/svg+xml').documentElement;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('handoffHeading'));
  follow();
  const status = h('p', { className: 'hint', role: 'status' });
  const linkField = h('input', { id: 'handoff-link', type: 'text', readOnly: true, value: link.href });
  const copy = h(
    'button',
    {
      type: 'button',
      className: 'secondary',
      onclick: () => {
        linkField.select();
        const copied = navigator.clipboard?.writeText(link.href) ?? Promise.reject(new Error('no clipboard'));
        // Without the clipboard API (plain http) the selected field lets the person copy by hand.
        void copied.then(
          () => (status.textContent = t('linkCopied')),
          () => undefined,
        );
      },
    },
    t('copyLink'),
  );
  return h(
    'section',
    { className: 'handoff', 'data-handoff': '' },
    h('h2', {}, t('handoffHeading')),
    h('p', {}, t('handoffText')),
    svg,
    h('label', { htmlFor: 'handoff-link' }, t('handoffLinkLabel')),
    linkField,
    copy,
    status,
    h('p', {}, t('handoffOr')),
  );
}

/** Guidance messages for the server's retake reasons. */
const RETAKE_GUIDANCE: Record<string, MessageKey> = {
  image_blurry: 'quality_blurry',
  image_too_small: 'quality_too_small',
  image_too_dark: 'quality_too_dark',
  glare: 'quality_glare',
  mrz_not_found: 'retake_mrz_not_found',
  reviewer_request: 'retake_reviewer_request',
  active_liveness_failed: 'livenessRetake',
};

/**
 * A step to do again: why, in the catalogue's words for the person (or the specific photo
 * guidance), the reviewer's own note when a reviewer asked, the attempts left, then the step.
 */
function retakeRequested(step: Step): void {
  const byReviewer = step.resubmissionReason === 'reviewer_request';
  const guidance = RETAKE_GUIDANCE[step.resubmissionReason ?? ''];
  const sentence =
    (byReviewer ? reasonSentence(step.retakeMessage) : null) ??
    (guidance && !byReviewer ? t(guidance) : null) ??
    reasonSentence(step.retakeMessage) ??
    t(guidance ?? 'reviewHint');
  show(
    'retake',
    t(byReviewer ? 'retakeStepHeading' : 'retakeHeading'),
    h('p', { className: 'error', role: 'alert' }, sentence),
    step.retakeNote
      ? h(
          'div',
          { className: 'reviewer-note' },
          h('p', {}, t('reviewerNote')),
          h('blockquote', { 'data-reviewer-note': '' }, step.retakeNote),
        )
      : null,
    byReviewer ? null : h('p', {}, t('attemptsLeft', { count: step.attemptsRemaining ?? 0 })),
    h(
      'button',
      { type: 'button', className: 'primary', onclick: () => openStep(step.nodeType, step.retakeMessage) },
      t(byReviewer ? 'retakeStep' : 'retake'),
    ),
  );
  app.dataset.reason = step.resubmissionReason ?? '';
}

/** Seconds before the way back opens by itself (announced, and the person can stay instead). */
const REDIRECT_SECONDS = 5;

/** The end: what happened (and, for a decline, why, in the catalogue's words), then the way back to the integrator's app. */
function done(): void {
  const status = FINAL_STATUSES.includes(state.flow.status) ? state.flow.status : 'in_progress';
  const content: Child[] = [h('p', {}, t(`doneText_${status}` as MessageKey, { name: state.flow.displayName }))];
  const why = status === 'declined' ? reasonSentence(state.flow.outcomeMessage) : null;
  if (why)
    content.unshift(
      h('p', { className: 'reason', 'data-outcome': state.flow.outcomeMessage ?? '' }, h('strong', {}, t('declinedWhy')), ' ', why),
    );
  if (state.flow.redirectUrl) {
    const back = new URL(state.flow.redirectUrl);
    back.searchParams.set('session_id', sessionId);
    back.searchParams.set('status', state.flow.status);
    content.push(h('a', { className: 'button primary', href: back.href, target: '_top' }, t('backTo', { name: state.flow.displayName })));
    content.push(...redirectCountdown(back.href));
  }
  show('done', t(`doneHeading_${status}` as MessageKey), ...content);
  void state.following?.dispose();
  state.following = null;
  app.dataset.status = state.flow.status;
  notifyParent({ type: 'completed', status: state.flow.status });
}

/**
 * Goes back to the integrator by itself after {@link REDIRECT_SECONDS}: announced in a polite live
 * region once (not every second), with a button to stay. Inside a frame the parent decides.
 */
function redirectCountdown(href: string): Child[] {
  if (window.parent !== window) return [];
  const notice = h(
    'p',
    { className: 'hint', role: 'status', id: 'redirect-notice' },
    t('redirectIn', { name: state.flow.displayName, seconds: REDIRECT_SECONDS }),
  );
  const timer = window.setTimeout(() => window.location.assign(href), REDIRECT_SECONDS * 1000);
  const stay = h(
    'button',
    {
      type: 'button',
      className: 'secondary',
      'data-stay': '',
      onclick: () => {
        window.clearTimeout(timer);
        notice.textContent = t('redirectCancelled');
        stay.remove();
      },
    },
    t('stayHere'),
  );
  app.dataset.redirect = 'pending';
  return [notice, stay];
}

/** A link that cannot be used, or a failure we cannot recover from here. */
function failure(message: string): void {
  show(
    'error',
    t('errorHeading'),
    h('p', {}, message),
    h('button', { type: 'button', className: 'secondary', onclick: () => location.reload() }, t('tryAgain')),
  );
}

/** Takes the token out of the address bar (no leak by history or Referer), then starts. */
async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const fromLink = params.get('token');
  const stored = `idv:token:${sessionId}`;
  if (fromLink) {
    keep(stored, fromLink);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : ''));
  }
  state.token = fromLink ?? readKept(stored) ?? '';
  state.language = pickLanguage([params.get('lang'), ...navigator.languages], 'en');
  state.t = translator(state.language);
  document.documentElement.lang = state.language;
  if (!state.token) return failure(t('invalidLink'));
  try {
    state.flow = (await graphql<{ hostedFlow: HostedFlow }>(state.token, HOSTED_FLOW, { sessionId })).hostedFlow;
  } catch (error) {
    return failure(error instanceof ApiError ? t('invalidLink') : t('errorHeading'));
  }
  state.language = pickLanguage([state.flow.language, params.get('lang'), ...navigator.languages], state.flow.defaultLanguage as Language);
  state.t = translator(state.language);
  document.documentElement.lang = state.language;
  document.documentElement.style.setProperty('--primary', state.flow.primaryColor);
  route();
}

state.route = route;
void start();
