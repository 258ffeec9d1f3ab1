/** The photo steps: camera (or file) capture, the review of what the checks found, and the accepted photo. */
import { type MessageKey } from '../shared/i18n.js';
import { app, fieldError, h, show } from './dom.js';
import { submit } from './flow.js';
import { assessQuality, toJpegDataUri, type QualityReport } from './quality.js';
import { state, stopCamera, t } from './state.js';
import { cameraEvidence, frameMeter, UPLOADED, type CaptureEvidence } from './capture-evidence.js';
import { activeLiveness, needsActiveLiveness } from './liveness.js';

/** Largest file the end user may upload, in bytes (the server takes 10 MB decoded). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** What is being photographed. */
type Target =
  | { kind: 'selfie' }
  | {
      kind: 'document';
      side: 'front' | 'back';
      document: { idType: string; country: string; sides: number; front?: string; frontCapture?: CaptureEvidence };
    };

/** Camera (or file) capture for a document side or the selfie. */
export async function capture(target: Target): Promise<void> {
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
        review(target, image, image.naturalWidth, image.naturalHeight, UPLOADED);
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
      onclick: async () => {
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        canvas.getContext('2d')!.drawImage(video, 0, 0);
        shoot.disabled = true;
        const evidence = await cameraEvidence(selfie ? 'biometric_kyc' : 'document_verification', measureFrames?.());
        review(target, canvas, canvas.width, canvas.height, evidence);
      },
    },
    t('takePhoto'),
  );
  const hint = h('p', {}, selfie ? t('selfieHint') : t('captureHint'));
  show(selfie ? 'selfie' : 'document', heading, hint, frame, shoot, upload, uploadLabel, file);
  let measureFrames: (() => number | undefined) | undefined;
  try {
    stopCamera();
    state.stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: selfie ? 'user' : { ideal: 'environment' }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
    video.srcObject = state.stream;
    await video.play();
    measureFrames = frameMeter(video);
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
export function loadImage(file: Blob): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = reject;
    image.src = url;
  });
}

/** Shows the photo with what the checks found: use it, or retake it. */
function review(target: Target, source: CanvasImageSource, width: number, height: number, evidence: CaptureEvidence): void {
  stopCamera();
  const report: QualityReport = assessQuality(source, width, height, target.kind === 'selfie' ? 'selfie' : 'document');
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
      onclick: () => usePhoto(target, dataUri, evidence),
    },
    t('usePhoto'),
  );
  show(
    target.kind === 'selfie' ? 'selfie-review' : 'document-review',
    t('reviewHeading'),
    h('img', { className: 'preview', src: dataUri, alt: '' }),
    // The live region wraps the list: a role on the <ul> itself would strip its list semantics (axe `listitem`).
    report.problems.length
      ? h('div', { role: 'alert' }, h('ul', { className: 'error' }, ...messages))
      : h('p', { className: 'ok' }, t('qualityOk')),
    h('p', {}, t('reviewHint')),
    report.problems.length ? retake : use,
    report.problems.length ? use : retake,
  );
}

/** Keeps an accepted photo: the next side, or the step's submission. */
function usePhoto(target: Target, dataUri: string, evidence: CaptureEvidence): void {
  if (target.kind === 'selfie') return void submitSelfie(dataUri, evidence);
  const document = { ...target.document };
  if (target.side === 'front') {
    document.front = dataUri;
    document.frontCapture = evidence;
    if (document.sides === 2) return void capture({ kind: 'document', side: 'back', document });
  }
  void submit(
    'document_verification',
    {
      country: document.country,
      idType: document.idType,
      imageFront: document.front,
      ...(target.side === 'back' ? { imageBack: dataUri } : {}),
      captures: target.side === 'back' ? [document.frontCapture, evidence] : [evidence],
    },
    () => capture({ kind: 'document', side: 'front', document: { ...document, front: undefined, frontCapture: undefined } }),
  );
}

/** Submits the selfie, after the head-turn challenge when the workflow asks for active liveness. */
async function submitSelfie(dataUri: string, evidence: CaptureEvidence): Promise<void> {
  if (await needsActiveLiveness()) return activeLiveness(dataUri, [evidence]);
  await submit('biometric_kyc', { selfie: dataUri, captures: [evidence] }, () => capture({ kind: 'selfie' }));
}
