/**
 * The head-turn challenge of a workflow with active liveness (docs/hosted-flow.md "Active
 * liveness"): after the selfie, the server's challenge asks for head turns in a random order; each
 * instruction is announced to screen readers (aria-live) and shown, and a few camera frames are
 * taken while it stands. A person who cannot turn their head takes the non-motion alternative,
 * which sends the selfie to a reviewer instead.
 */
import { graphql } from './api.js';
import { capture } from './camera.js';
import type { CaptureEvidence } from './capture-evidence.js';
import { app, h, show, showProblem } from './dom.js';
import { submit } from './flow.js';
import type { MessageKey } from '../shared/i18n.js';
import { sessionId, state, stopCamera, t } from './state.js';

const LIVENESS_MODE = `query ($sessionId: String!) { hostedFlow(sessionId: $sessionId) { liveness } }`;
const START = `mutation ($sessionId: String!) { startLivenessChallenge(sessionId: $sessionId) { nonce moves } }`;
/** When the neutral frame is taken after the start, in milliseconds. */
const NEUTRAL_FRAME_MS = 600;
/** When the frames of a move are taken after its instruction, in milliseconds: a head takes about a second to turn. */
const MOVE_FRAMES_MS = [1300, 1900];
/** Longest side of a challenge frame, in pixels: enough for the landmarks, small to send. */
const FRAME_SIDE_PX = 640;

/** Whether the session's workflow asks for the head-turn challenge. */
export async function needsActiveLiveness(): Promise<boolean> {
  try {
    return (
      (await graphql<{ hostedFlow: { liveness: string } }>(state.token, LIVENESS_MODE, { sessionId })).hostedFlow.liveness === 'active'
    );
  } catch {
    return false;
  }
}

/** Waits, for the person to follow an instruction. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The challenge screen: the camera, the announced instructions, the start and the alternative. */
export async function activeLiveness(selfie: string, captures: CaptureEvidence[]): Promise<void> {
  const retry = () => void capture({ kind: 'selfie' });
  const video = h('video', { autoplay: true, muted: true, playsInline: true, 'aria-hidden': 'true' });
  const instruction = h('p', { className: 'instruction', id: 'liveness-instruction', role: 'status', 'aria-live': 'assertive' }, '');
  const start = h('button', { type: 'button', className: 'primary', disabled: true }, t('livenessStart'));
  const alternative = h('button', { type: 'button', className: 'secondary' }, t('livenessAlternative'));
  show(
    'liveness',
    t('livenessHeading'),
    h('p', {}, t('livenessIntro')),
    h('div', { className: 'viewfinder oval' }, video, h('div', { className: 'frame' })),
    instruction,
    start,
    h('p', { id: 'liveness-alternative-hint' }, t('livenessAlternativeHint')),
    alternative,
  );
  alternative.setAttribute('aria-describedby', 'liveness-alternative-hint');
  const challenge = async () =>
    (await graphql<{ startLivenessChallenge: { nonce: string; moves: string[] } }>(state.token, START, { sessionId }))
      .startLivenessChallenge;

  alternative.onclick = async () => {
    start.disabled = alternative.disabled = true;
    try {
      const { nonce } = await challenge();
      await submit('biometric_kyc', { selfie, captures, liveness: { nonce, alternative: true } }, retry);
    } catch (error) {
      showProblem(error);
    }
  };
  start.onclick = async () => {
    start.disabled = alternative.disabled = true;
    try {
      const { nonce, moves } = await challenge();
      const startedAt = performance.now();
      const frames: { image: string; phase: string; atMs: number }[] = [];
      const grab = (phase: string) => {
        const scale = Math.min(1, FRAME_SIDE_PX / Math.max(video.videoWidth, video.videoHeight));
        const canvas = document.createElement('canvas');
        canvas.width = Math.round(video.videoWidth * scale);
        canvas.height = Math.round(video.videoHeight * scale);
        canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
        frames.push({ image: canvas.toDataURL('image/jpeg', 0.85), phase, atMs: Math.round(performance.now() - startedAt) });
      };
      instruction.textContent = t('livenessLookAhead');
      app.dataset.move = 'neutral';
      await pause(NEUTRAL_FRAME_MS);
      grab('neutral');
      for (const move of moves) {
        instruction.textContent = t(`livenessMove_${move}` as MessageKey);
        app.dataset.move = move;
        let waited = 0;
        for (const at of MOVE_FRAMES_MS) {
          await pause(at - waited);
          waited = at;
          grab(move);
        }
      }
      instruction.textContent = t('livenessDone');
      app.dataset.move = 'done';
      stopCamera();
      await submit('biometric_kyc', { selfie, captures, liveness: { nonce, frames } }, retry);
    } catch (error) {
      showProblem(error);
    }
  };

  try {
    stopCamera();
    state.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 1280 } }, audio: false });
    video.srcObject = state.stream;
    await video.play();
    start.disabled = false;
    app.dataset.camera = 'ready';
  } catch {
    // No camera for the challenge: only the alternative is left.
    start.remove();
    app.dataset.camera = 'none';
  }
}
