/**
 * The hosted verification flow: walks the end user through the session's steps at its `url`,
 * with the session token of the link, on the public GraphQL API. Plain DOM, no framework: ten
 * screens do not need one, and the whole flow stays far under its 150 KB budget.
 */
import { createClient, type Client } from 'graphql-ws';
import { AsYouType } from 'libphonenumber-js/min';
import { renderSVG } from 'uqr';
import { ApiError, graphql, HOSTED_FLOW, SUBMIT, type HostedFlow, type Step } from './api.js';
import { pickLanguage, translator, type Language, type MessageKey } from './i18n.js';
import { assessQuality, toJpegDataUri, type QualityReport } from './quality.js';

/** ISO 3166-1 alpha-2 codes of the countries a document may come from. */
const COUNTRIES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'.split(
    ' ',
  );
/** Largest file the end user may upload, in bytes (the server takes 10 MB decoded). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Seconds before a new phone code may be asked for. */
const RESEND_SECONDS = 30;
/** Session statuses after which nothing is left to do here. */
const FINAL_STATUSES = ['approved', 'declined', 'in_review', 'expired'];

type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;
type Child = Node | string | null | undefined | false;

const app = document.getElementById('app')!;
const announcer = document.getElementById('announcer')!;
const sessionId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
let token = '';
let flow: HostedFlow;
let language: Language = 'en';
let t: Translate = translator('en');
let stream: MediaStream | null = null;
/** The live connection that follows the session while another device completes it. */
let following: Client | null = null;

/** Builds an element: `h('button', { type: 'button', onclick }, 'Start')`. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, any> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
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
function notifyParent(message: Record<string, unknown>): void {
  if (window.parent === window) return;
  const parentOrigin = location.ancestorOrigins?.[0];
  if (!parentOrigin || !flow?.allowedEmbedOrigins.includes(parentOrigin)) return;
  window.parent.postMessage({ source: 'idv-hosted-flow', sessionId, ...message }, parentOrigin);
}

/** Stops the camera, if it runs. */
function stopCamera(): void {
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
}

/** The steps left to do, in the workflow's order. */
function pendingSteps(): Step[] {
  return flow.steps.filter((step) => step.status === 'pending' || step.status === 'resubmission_requested');
}

/** Replaces the screen: one h1 (focused, so screen readers start there), progress, content. */
function show(screen: string, heading: string, ...content: Child[]): void {
  stopCameraUnlessCapture(screen);
  const total = flow?.steps.length ?? 0;
  const done = total - (flow ? pendingSteps().length : 0);
  const title = h('h1', { tabIndex: -1 }, heading);
  const progress =
    flow && total > 0 && !['welcome', 'done', 'error'].includes(screen)
      ? h('p', { className: 'progress' }, t('stepOf', { current: Math.min(done + 1, total), total }))
      : null;
  const logo = flow?.logo ? h('img', { className: 'logo', src: flow.logo, alt: flow.displayName }) : null;
  app.replaceChildren(h('header', {}, logo, progress), title, ...content.filter((child): child is Node | string => Boolean(child)));
  app.dataset.screen = screen;
  document.title = `${heading} · ${flow?.displayName ?? t('title')}`;
  title.focus();
  notifyParent({ type: 'step_changed', step: screen });
}

function stopCameraUnlessCapture(screen: string): void {
  if (screen !== 'document' && screen !== 'selfie') stopCamera();
}

/** A field error shown under its input and read out. */
function fieldError(input: HTMLElement, message: string): void {
  const id = `${input.id}-error`;
  document.getElementById(id)?.remove();
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', id);
  input.after(h('p', { id, className: 'error' }, message));
  input.focus();
  announce(message);
}

/** Shows a refusal of the server on the current screen. */
function showProblem(error: unknown): void {
  const message = error instanceof ApiError ? (error.problem.fieldErrors?.[0]?.message ?? error.problem.message) : t('errorHeading');
  app.querySelector('.problem')?.remove();
  app.append(h('p', { className: 'problem error', role: 'alert' }, message));
}

/** Reads the session again and goes to the screen its state asks for. */
async function refresh(): Promise<void> {
  flow = (await graphql<{ hostedFlow: HostedFlow }>(token, HOSTED_FLOW, { sessionId })).hostedFlow;
  route();
}

/** The screen for the session's state: done when decided, else the first pending step. */
function route(): void {
  if (FINAL_STATUSES.includes(flow.status)) return done();
  const next = pendingSteps()[0];
  if (!next) return done();
  if (sessionStorage.getItem(`idv:consent:${sessionId}`) !== 'yes') return welcome();
  if (next.status === 'resubmission_requested') return retakeRequested(next);
  openStep(next.nodeType);
}

/** The screen that takes a step's input (a retake the reviewer asked for may be any step). */
function openStep(nodeType: string): void {
  const screens: Record<string, () => void> = {
    document_verification: chooseDocument,
    biometric_kyc: () => capture({ kind: 'selfie' }),
    aml_screening: details,
    phone_verification: phone,
    proof_of_address: proofOfAddress,
    business_registry: business,
  };
  screens[nodeType]();
}

/** Runs a submission behind the processing screen, then follows the session's new state. */
async function submit(step: keyof typeof SUBMIT, input: Record<string, unknown>, back: () => void): Promise<void> {
  show('processing', t('processingHeading'), h('p', {}, t('processingHint')), h('div', { className: 'spinner', 'aria-hidden': 'true' }));
  try {
    await graphql(token, SUBMIT[step], { sessionId, input });
    await refresh();
  } catch (error) {
    back();
    showProblem(error);
  }
}

function welcome(): void {
  const consent = h('input', { type: 'checkbox', id: 'consent' });
  const needs = h('ul', {}, ...flow.steps.map((step) => h('li', {}, t(`step_${step.nodeType}` as MessageKey))));
  const start = h('button', { type: 'submit', className: 'primary' }, t('start'));
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!consent.checked) return fieldError(consent, t('consentRequired'));
        sessionStorage.setItem(`idv:consent:${sessionId}`, 'yes');
        route();
      },
    },
    h('div', { className: 'check' }, consent, h('label', { htmlFor: 'consent' }, t('consent'))),
    flow.privacyUrl ? h('p', {}, h('a', { href: flow.privacyUrl, target: '_blank', rel: 'noopener' }, t('privacy'))) : null,
    start,
  );
  show(
    'welcome',
    t('welcomeHeading'),
    h('p', {}, t('welcomeIntro', { name: flow.displayName })),
    h('p', {}, t('welcomeNeeds')),
    needs,
    form,
    handoff(),
  );
}

/** On a computer, a QR code of this link so the photos can be taken with a phone. */
function handoff(): Child {
  if (!matchMedia('(pointer: fine)').matches || matchMedia('(max-width: 700px)').matches) return null;
  const link = new URL(location.href);
  link.search = '';
  link.searchParams.set('token', token);
  const svg = new DOMParser().parseFromString(renderSVG(link.href, { border: 2 }), 'image/svg+xml').documentElement;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('handoffHeading'));
  follow();
  return h('section', { className: 'handoff', 'data-handoff': '' }, h('h2', {}, t('handoffHeading')), h('p', {}, t('handoffText')), svg);
}

/**
 * Follows the session's status over graphql-ws (the session token in connection_init), so this
 * page shows the final screen as soon as the phone has finished, without a reload.
 */
function follow(): void {
  if (following) return;
  following = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { 'x-session-token': token },
    retryAttempts: 5,
    on: { connected: () => (app.dataset.following = 'live') },
  });
  following.subscribe(
    { query: 'subscription ($sessionId: String!) { hostedFlowChanged(sessionId: $sessionId) { status } }', variables: { sessionId } },
    {
      next: (event) => {
        const status = (event.data as { hostedFlowChanged?: { status: string } } | undefined)?.hostedFlowChanged?.status;
        if (status && FINAL_STATUSES.includes(status)) void refresh();
      },
      error: () => undefined,
      complete: () => undefined,
    },
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
};

/**
 * The server could not read the photo: say why and how many tries are left, then capture again.
 * A retake a reviewer asked for (any step) says so instead, without the reviewer's own words.
 */
function retakeRequested(step: Step): void {
  const byReviewer = step.resubmissionReason === 'reviewer_request';
  const guidance = RETAKE_GUIDANCE[step.resubmissionReason ?? ''] ?? 'reviewHint';
  show(
    'retake',
    t(byReviewer ? 'retakeStepHeading' : 'retakeHeading'),
    h('p', { className: 'error', role: 'alert' }, t(guidance)),
    byReviewer ? null : h('p', {}, t('attemptsLeft', { count: step.attemptsRemaining ?? 0 })),
    h('button', { type: 'button', className: 'primary', onclick: () => openStep(step.nodeType) }, t(byReviewer ? 'retakeStep' : 'retake')),
  );
  app.dataset.reason = step.resubmissionReason ?? '';
}

/** Document type and issuing country. */
function chooseDocument(): void {
  const names = new Intl.DisplayNames([language], { type: 'region' });
  const countries = COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) =>
    a.name.localeCompare(b.name, language),
  );
  const preferred = flow.documentRead?.nationality ?? flow.expectedDetails?.country ?? '';
  const country = h(
    'select',
    { id: 'country', required: true },
    h('option', { value: '' }, t('chooseCountry')),
    ...countries.map(({ code, name }) => h('option', { value: code, selected: code === preferred }, name)),
  );
  const types = h(
    'fieldset',
    {},
    h('legend', {}, t('documentType')),
    ...flow.documentTypes.map((type, index) =>
      h(
        'div',
        { className: 'check' },
        h('input', { type: 'radio', name: 'idType', id: `type-${type.idType}`, value: type.idType, checked: index === 0 }),
        h('label', { htmlFor: `type-${type.idType}` }, t(`type_${type.idType}` as MessageKey)),
      ),
    ),
  );
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!country.value) return fieldError(country, t('required'));
        const idType = (form.querySelector('input[name=idType]:checked') as HTMLInputElement).value;
        const sides = flow.documentTypes.find((type) => type.idType === idType)?.sides ?? 1;
        capture({ kind: 'document', side: 'front', document: { idType, country: country.value, sides } });
      },
    },
    types,
    h('label', { htmlFor: 'country' }, t('country')),
    country,
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('document', t('documentHeading'), form);
}

/** What is being photographed. */
type Target =
  | { kind: 'selfie' }
  | { kind: 'document'; side: 'front' | 'back'; document: { idType: string; country: string; sides: number; front?: string } };

/** Camera (or file) capture for a document side or the selfie. */
async function capture(target: Target): Promise<void> {
  const selfie = target.kind === 'selfie';
  const heading = selfie
    ? t('selfieHeading')
    : target.side === 'back'
      ? t('backHeading')
      : target.document.idType === 'PASSPORT'
        ? t('pageHeading')
        : t('frontHeading');
  const file = h('input', {
    type: 'file',
    id: 'file',
    accept: 'image/jpeg,image/png,image/webp',
    capture: selfie ? 'user' : 'environment',
    className: 'visually-hidden',
    onchange: async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      if (chosen.size > MAX_FILE_BYTES) return fieldError(file, t('fileTooLarge', { size: 10 }));
      try {
        const image = await loadImage(chosen);
        review(target, image, image.naturalWidth, image.naturalHeight);
      } catch {
        fieldError(file, t('unreadableFile'));
      }
    },
  });
  const upload = h('button', { type: 'button', className: 'secondary', onclick: () => file.click() }, t('uploadInstead'));
  const uploadLabel = h('label', { htmlFor: 'file', className: 'visually-hidden' }, t('chooseFile'));
  const video = h('video', { autoplay: true, muted: true, playsInline: true, 'aria-hidden': 'true' });
  const frame = h('div', { className: selfie ? 'viewfinder oval' : 'viewfinder card' }, video, h('div', { className: 'frame' }));
  const shoot = h(
    'button',
    {
      type: 'button',
      className: 'primary',
      disabled: true,
      onclick: () => {
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        canvas.getContext('2d')!.drawImage(video, 0, 0);
        review(target, canvas, canvas.width, canvas.height);
      },
    },
    t('takePhoto'),
  );
  const hint = h('p', {}, selfie ? t('selfieHint') : t('captureHint'));
  show(selfie ? 'selfie' : 'document', heading, hint, frame, shoot, upload, uploadLabel, file);
  try {
    stopCamera();
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: selfie ? 'user' : { ideal: 'environment' }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
    video.srcObject = stream;
    await video.play();
    shoot.disabled = false;
    app.dataset.camera = 'ready';
  } catch {
    frame.remove();
    shoot.remove();
    upload.className = 'primary';
    hint.after(h('p', { className: 'notice' }, t('noCamera')));
    app.dataset.camera = 'none';
  }
}

/** An uploaded image file, decoded by the browser. */
function loadImage(file: Blob): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = reject;
    image.src = url;
  });
}

/** Shows the photo with what the checks found: use it, or retake it. */
function review(target: Target, source: CanvasImageSource, width: number, height: number): void {
  stopCamera();
  const report: QualityReport = assessQuality(source, width, height, { checkGlare: target.kind === 'document' });
  const dataUri = toJpegDataUri(source, width, height);
  app.dataset.quality = report.problems.join(' ') || 'ok';
  const messages = report.problems.map((problem) => h('li', {}, t(`quality_${problem}` as MessageKey)));
  const retake = h(
    'button',
    { type: 'button', className: report.problems.length ? 'primary' : 'secondary', onclick: () => capture(target) },
    t('retake'),
  );
  const use = h(
    'button',
    {
      type: 'button',
      className: report.problems.length ? 'secondary' : 'primary',
      disabled: report.problems.includes('too_small'),
      onclick: () => usePhoto(target, dataUri),
    },
    t('usePhoto'),
  );
  show(
    target.kind === 'selfie' ? 'selfie-review' : 'document-review',
    t('reviewHeading'),
    h('img', { className: 'preview', src: dataUri, alt: '' }),
    report.problems.length ? h('ul', { className: 'error', role: 'alert' }, ...messages) : h('p', { className: 'ok' }, t('qualityOk')),
    h('p', {}, t('reviewHint')),
    report.problems.length ? retake : use,
    report.problems.length ? use : retake,
  );
}

/** Keeps an accepted photo: the next side, or the step's submission. */
function usePhoto(target: Target, dataUri: string): void {
  if (target.kind === 'selfie') return void submit('biometric_kyc', { selfie: dataUri }, () => capture(target));
  const document = { ...target.document };
  if (target.side === 'front') {
    document.front = dataUri;
    if (document.sides === 2) return void capture({ kind: 'document', side: 'back', document });
  }
  void submit(
    'document_verification',
    {
      country: document.country,
      idType: document.idType,
      imageFront: document.front,
      ...(target.side === 'back' ? { imageBack: dataUri } : {}),
    },
    () => capture({ kind: 'document', side: 'front', document: { ...document, front: undefined } }),
  );
}

/** A labelled input. */
function field(id: string, label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  input.id = id;
  return h(
    'div',
    { className: 'field' },
    h('label', { htmlFor: id }, label),
    hint ? h('p', { className: 'hint', id: `${id}-hint` }, hint) : null,
    input,
  );
}

/** The AML step: the person's name and date of birth, prefilled from the document or the integrator. */
function details(): void {
  const read = flow.documentRead;
  const expected = flow.expectedDetails ?? {};
  const name = [read?.firstName ?? expected.first_name, read?.lastName ?? expected.last_name].filter(Boolean).join(' ');
  const fullName = h('input', { type: 'text', autocomplete: 'name', value: name, required: true });
  const birth = h('input', { type: 'date', autocomplete: 'bday', value: read?.dateOfBirth ?? expected.date_of_birth ?? '' });
  const example = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(1990, 4, 17)));
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!fullName.value.trim()) return fieldError(fullName, t('required'));
        void submit('aml_screening', { fullName: fullName.value.trim(), ...(birth.value ? { dateOfBirth: birth.value } : {}) }, details);
      },
    },
    field('full-name', t('fullName'), fullName),
    field('birth', t('dateOfBirth'), birth, t('dateHint', { example })),
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('details', t('detailsHeading'), form);
}

/** The phone step: the number, formatted as typed; then the code. */
function phone(): void {
  const number = h('input', { type: 'tel', autocomplete: 'tel', inputMode: 'tel', required: true, placeholder: '+44 7911 123456' });
  number.addEventListener('input', () => {
    const formatted = new AsYouType().input(number.value);
    if (formatted && formatted !== number.value) number.value = formatted;
  });
  const form = h(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        if (!number.value.trim()) return fieldError(number, t('required'));
        const value = number.value.replace(/[^\d+]/g, '');
        try {
          const sent = await graphql<{ requestPhoneCode: { sentTo: string } }>(token, SUBMIT.phone_request, { sessionId, phone: value });
          phoneCode(value, sent.requestPhoneCode.sentTo);
        } catch (error) {
          showProblem(error);
        }
      },
    },
    field('phone', t('phoneNumber'), number, t('phoneHint')),
    h('button', { type: 'submit', className: 'primary' }, t('sendCode')),
  );
  show('phone', t('phoneHeading'), form);
}

function phoneCode(number: string, sentTo: string): void {
  const code = h('input', { type: 'text', inputMode: 'numeric', autocomplete: 'one-time-code', maxLength: 6, pattern: '[0-9]{6}' });
  const resend = h('button', { type: 'button', className: 'secondary', disabled: true }, t('resendCode'));
  const timer = h('p', { className: 'hint', 'aria-live': 'polite' });
  let left = RESEND_SECONDS;
  const tick = () => {
    timer.textContent = left > 0 ? t('resendIn', { seconds: left }) : '';
    resend.disabled = left > 0;
    if (left-- > 0 && app.dataset.screen === 'phone-code') setTimeout(tick, 1000);
  };
  resend.addEventListener('click', async () => {
    try {
      await graphql(token, SUBMIT.phone_request, { sessionId, phone: number });
      left = RESEND_SECONDS;
      tick();
    } catch (error) {
      showProblem(error);
    }
  });
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (!/^\d{6}$/.test(code.value)) return fieldError(code, t('invalidCode'));
        void submit('phone_confirm', { code: code.value, phone: number }, () => phoneCode(number, sentTo));
      },
    },
    h('p', {}, t('codeSentTo', { phone: sentTo })),
    field('code', t('code'), code),
    h('button', { type: 'submit', className: 'primary' }, t('verifyCode')),
    resend,
    timer,
  );
  show('phone-code', t('codeHeading'), form);
  tick();
}

/** Reads a file as a data URI. */
function readDataUri(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = reject;
    reader.readAsDataURL(file);
  });
}

/** The proof-of-address step: a PDF as it is, a photo scaled down. */
function proofOfAddress(): void {
  const file = h('input', { type: 'file', accept: 'application/pdf,image/jpeg,image/png', required: true });
  const form = h(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const chosen = file.files?.[0];
        if (!chosen) return fieldError(file, t('required'));
        if (chosen.size > MAX_FILE_BYTES) return fieldError(file, t('fileTooLarge', { size: 10 }));
        try {
          let documentImage: string;
          if (chosen.type === 'application/pdf') documentImage = await readDataUri(chosen);
          else {
            const image = await loadImage(chosen);
            documentImage = toJpegDataUri(image, image.naturalWidth, image.naturalHeight);
          }
          await submit('proof_of_address', { documentImage }, proofOfAddress);
        } catch {
          fieldError(file, t('unreadableFile'));
        }
      },
    },
    field('poa-file', t('chooseDocument'), file, t('poaHint')),
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('poa', t('poaHeading'), form);
}

/** The business registry step. */
function business(): void {
  const company = h('input', { type: 'text', autocomplete: 'organization', required: true });
  const registration = h('input', { type: 'text', required: true });
  const names = new Intl.DisplayNames([language], { type: 'region' });
  const country = h(
    'select',
    { id: 'company-country', required: true },
    h('option', { value: '' }, t('chooseCountry')),
    ...COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code }))
      .sort((a, b) => a.name.localeCompare(b.name, language))
      .map(({ code, name }) => h('option', { value: code }, name)),
  );
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        for (const input of [company, registration]) if (!input.value.trim()) return fieldError(input, t('required'));
        if (!country.value) return fieldError(country, t('required'));
        void submit(
          'business_registry',
          { companyName: company.value.trim(), registrationNumber: registration.value.trim(), country: country.value },
          business,
        );
      },
    },
    field('company', t('companyName'), company),
    field('registration', t('registrationNumber'), registration),
    h('label', { htmlFor: 'company-country' }, t('country')),
    country,
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('business', t('businessHeading'), form);
}

/** The end: what happened, and the way back to the integrator's app. */
function done(): void {
  const status = FINAL_STATUSES.includes(flow.status) ? flow.status : 'in_progress';
  const content: Child[] = [h('p', {}, t(`doneText_${status}` as MessageKey, { name: flow.displayName }))];
  if (flow.redirectUrl) {
    const back = new URL(flow.redirectUrl);
    back.searchParams.set('session_id', sessionId);
    back.searchParams.set('status', flow.status);
    content.push(h('a', { className: 'button primary', href: back.href, target: '_top' }, t('backTo', { name: flow.displayName })));
  }
  show('done', t(`doneHeading_${status}` as MessageKey), ...content);
  void following?.dispose();
  following = null;
  app.dataset.status = flow.status;
  notifyParent({ type: 'completed', status: flow.status });
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
    sessionStorage.setItem(stored, fromLink);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : ''));
  }
  token = fromLink ?? sessionStorage.getItem(stored) ?? '';
  language = pickLanguage([params.get('lang'), ...navigator.languages], 'en');
  t = translator(language);
  document.documentElement.lang = language;
  if (!token) return failure(t('invalidLink'));
  try {
    flow = (await graphql<{ hostedFlow: HostedFlow }>(token, HOSTED_FLOW, { sessionId })).hostedFlow;
  } catch (error) {
    return failure(error instanceof ApiError ? t('invalidLink') : t('errorHeading'));
  }
  language = pickLanguage([flow.language, params.get('lang'), ...navigator.languages], flow.defaultLanguage as Language);
  t = translator(language);
  document.documentElement.lang = language;
  document.documentElement.style.setProperty('--primary', flow.primaryColor);
  route();
}

void start();
