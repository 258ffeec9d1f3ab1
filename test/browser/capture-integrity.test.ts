/**
 * Capture integrity in a real browser (docs/capture-integrity.md): Chromium's fake camera plays a
 * real photo of a person (../shared/realdata/face, from ageitgey/face_recognition, MIT licence);
 * the hosted flow takes the selfie through the camera API with the server's nonce, and the
 * decision says `camera` with the device label, its frame rate and the nonce's state. The same
 * page with a camera that calls itself "OBS Virtual Camera" goes to review with `virtual_camera`;
 * a phone without a camera, uploading in a workflow that asks for the camera, goes to review with
 * `upload_where_camera_required`. Screenshots go to test-artifacts/screens.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES } from '../../src/web/shared/i18n.js';
import { createSession } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, launchChromium, screenshot, writeFakeVideo } from './support.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
/** A browser run through a few screens on a loaded 2-core machine. */
const FLOW_MS = 120_000;
/** A real photo of one person (the shared real-data set, see its README). */
const FACE_PHOTO = path.resolve(
  fileURLToPath(import.meta.url),
  '../../../../shared/realdata/face/obama__examples_knn_examples_test_obama1.jpg',
);

const enabled = chromiumAvailable() && existsSync(FACE_PHOTO);
if (!existsSync(FACE_PHOTO))
  console.warn(`test/browser/capture-integrity.test.ts skipped: ${FACE_PHOTO} is absent (the shared real-data set).`);

let testApp: TestApp;
let tenant: TestTenant;
let camera: Browser;
let noCamera: Browser;
let anyWorkflowId: string;
let cameraWorkflowId: string;
let activeWorkflowId: string;
const files = mkdtempSync(join(tmpdir(), 'capture-integrity-'));

/** A sandbox workflow with only a selfie step. */
async function selfieWorkflow(capture: 'any' | 'camera', liveness: 'passive' | 'active' = 'passive'): Promise<string> {
  const created = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.sandboxKey,
    body: {
      name: `Selfie (${capture}, ${liveness})`,
      capture,
      liveness,
      nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.workflow_id;
}

beforeAll(async () => {
  if (!enabled) return;
  testApp = await startTestApp();
  tenant = await testApp.tenant('Capture Browser Shop');
  anyWorkflowId = await selfieWorkflow('any');
  cameraWorkflowId = await selfieWorkflow('camera');
  activeWorkflowId = await selfieWorkflow('any', 'active');
  camera = await launchChromium({ fakeVideo: await writeFakeVideo(readFileSync(FACE_PHOTO), join(files, 'face.y4m'), { width: 640 }) });
  noCamera = await launchChromium({ camera: false });
}, FLOW_MS);

afterAll(async () => {
  await camera?.close();
  await noCamera?.close();
  await testApp?.close();
});

/** A sandbox session of a workflow; returns its id and url. */
async function newSession(workflowId: string): Promise<{ sessionId: string; url: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflowId, vendor_data: `browser-${Math.random()}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { sessionId: created.body.session_id, url: created.body.url };
}

/** Waits for a screen of the flow. */
async function screen(page: Page, name: string): Promise<void> {
  await page.locator(`#app[data-screen="${name}"]`).waitFor();
}

/** Opens the link, agrees and starts: the selfie screen follows. */
async function openSelfie(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await screen(page, 'welcome');
  await page.getByLabel(CATALOGUES.en.consent).check();
  await page.getByRole('button', { name: CATALOGUES.en.start }).click();
  await screen(page, 'selfie');
}

/** Takes the selfie with the camera once it runs, uses it, and waits for the end. */
async function shootSelfie(page: Page, name: string): Promise<void> {
  await page.locator('#app[data-camera="ready"]').waitFor();
  // Let the camera deliver frames for a second so the page can measure their rate.
  await page.waitForFunction(
    () => ((globalThis as any).document.querySelector('video')?.getVideoPlaybackQuality().totalVideoFrames ?? 0) >= 20,
  );
  await screenshot(page, `${name}-selfie`);
  await page.getByRole('button', { name: CATALOGUES.en.takePhoto }).click();
  await screen(page, 'selfie-review');
  await page.getByRole('button', { name: CATALOGUES.en.usePhoto }).click();
  await screen(page, 'done');
  await screenshot(page, `${name}-done`);
}

/** The selfie step of a session's decision. */
async function faceStep(sessionId: string) {
  const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
  expect(decision.status).toBe(200);
  return { status: decision.body.status, face: decision.body.node_results.biometric_kyc };
}

describe.skipIf(!enabled)('capture integrity in Chromium', () => {
  it(
    'given a phone camera showing a real face, when the selfie is taken in the hosted flow, then the decision says camera with the device, its rate and a valid nonce, and approves',
    async () => {
      const { sessionId, url } = await newSession(anyWorkflowId);
      const context = await camera.newContext(PHONE);
      const page = await context.newPage();
      await openSelfie(page, url);
      await expectNoSeriousA11yViolations(page, 'selfie screen');
      await shootSelfie(page, 'capture-camera');
      await context.close();
      const { status, face } = await faceStep(sessionId);
      expect(status).toBe('approved');
      expect(face.details.capture).toBe('camera');
      const [image] = face.details.capture_integrity.images;
      expect(image.source).toBe('camera');
      // Chromium's fake camera is labelled with the file it plays.
      expect(image.device_label).toMatch(/face\.y4m$/);
      expect(image.nonce).toBe('valid');
      expect(image.frame_rate).toBeGreaterThan(0);
      // The fake camera plays at its 30 fps; the page measured a rate, never faster than the
      // tolerance (only faster is a signal: a starved CI browser delivers fewer frames, not more).
      expect(image.measured_frame_rate).toBeGreaterThan(0);
      expect(image.measured_frame_rate).toBeLessThanOrEqual(image.frame_rate * 1.5);
      expect(face.details.capture_integrity.signals).toEqual([]);
    },
    FLOW_MS,
  );

  it(
    'given a camera whose label is a virtual camera (OBS), when the selfie is taken, then the session goes to review with virtual_camera and the label kept',
    async () => {
      const { sessionId, url } = await newSession(anyWorkflowId);
      const context = await camera.newContext(PHONE);
      // What OBS's virtual camera looks like to a page: a video track with its label.
      await context.addInitScript(() => {
        Object.defineProperty((globalThis as any).MediaStreamTrack.prototype, 'label', {
          get: () => 'OBS Virtual Camera',
          configurable: true,
        });
      });
      const page = await context.newPage();
      await openSelfie(page, url);
      await shootSelfie(page, 'capture-obs');
      await context.close();
      const { status, face } = await faceStep(sessionId);
      expect(status).toBe('in_review');
      expect(face.details.capture).toBe('camera');
      expect(face.details.capture_integrity.images[0]).toMatchObject({ device_label: 'OBS Virtual Camera', nonce: 'valid' });
      expect(face.details.capture_integrity.signals).toEqual(['virtual_camera']);
      expect(face.warnings).toEqual([expect.objectContaining({ code: 'capture_integrity' })]);
    },
    FLOW_MS,
  );

  it(
    'given a phone without a camera and a workflow that asks for the camera, when the selfie is uploaded, then the session goes to review with upload_where_camera_required',
    async () => {
      const { sessionId, url } = await newSession(cameraWorkflowId);
      const context = await noCamera.newContext(PHONE);
      const page = await context.newPage();
      await openSelfie(page, url);
      await page.locator('#app[data-camera="none"]').waitFor();
      await page.locator('#file').setInputFiles({ name: 'selfie.jpg', mimeType: 'image/jpeg', buffer: readFileSync(FACE_PHOTO) });
      await screen(page, 'selfie-review');
      await page.getByRole('button', { name: CATALOGUES.en.usePhoto }).click();
      await screen(page, 'done');
      await screenshot(page, 'capture-upload-done');
      await context.close();
      const { status, face } = await faceStep(sessionId);
      expect(status).toBe('in_review');
      expect(face.details.capture).toBe('upload');
      expect(face.details.capture_integrity.signals).toEqual(['upload_where_camera_required']);
    },
    FLOW_MS,
  );
});

describe.skipIf(!enabled)('active liveness in Chromium', () => {
  /** Takes the selfie and waits for the head-turn challenge screen. */
  async function reachChallenge(page: Page, url: string): Promise<void> {
    await openSelfie(page, url);
    await page.locator('#app[data-camera="ready"]').waitFor();
    await page.getByRole('button', { name: CATALOGUES.en.takePhoto }).click();
    await screen(page, 'selfie-review');
    await page.getByRole('button', { name: CATALOGUES.en.usePhoto }).click();
    await screen(page, 'liveness');
    await page.locator('#app[data-screen="liveness"][data-camera="ready"]').waitFor();
  }

  it(
    'given a camera that shows a still photo, when the challenge runs, then each move is announced in an aria-live region, the still fails with active_liveness_failed and the page asks for a retake',
    async () => {
      const { sessionId, url } = await newSession(activeWorkflowId);
      const context = await camera.newContext(PHONE);
      const page = await context.newPage();
      await reachChallenge(page, url);
      await expectNoSeriousA11yViolations(page, 'liveness screen');
      await screenshot(page, 'liveness-start');
      const instruction = page.locator('#liveness-instruction');
      expect(await instruction.getAttribute('aria-live')).toBe('assertive');
      // Records each move the page shows with what it announces, as a screen reader would hear it.
      await page.evaluate(() => {
        const doc = (globalThis as any).document;
        const app = doc.querySelector('#app');
        const log: [string, string][] = ((globalThis as any).movesSeen = []);
        new (globalThis as any).MutationObserver(() => {
          const move = app.dataset.move;
          if (move && log[log.length - 1]?.[0] !== move) log.push([move, doc.querySelector('#liveness-instruction')?.textContent ?? '']);
        }).observe(app, { attributes: true, attributeFilter: ['data-move'] });
      });
      await page.getByRole('button', { name: CATALOGUES.en.livenessStart }).click();
      await page.locator('#app[data-move="neutral"]').waitFor();
      await page.locator('#app[data-screen="liveness"]:not([data-move="neutral"])').waitFor();
      await screenshot(page, 'liveness-move');
      // The first analysis in this process loads the face models: allow for it on a loaded machine.
      await page.locator('#app[data-screen="retake"]').waitFor({ timeout: 100_000 });
      await screenshot(page, 'liveness-still-retake');
      expect(await page.locator('#app p[role="alert"]').textContent()).toBe(CATALOGUES.en.livenessRetake);
      const { face } = await faceStep(sessionId);
      expect(face.status).toBe('resubmission_requested');
      expect(face.details.result_code).toBe('active_liveness_failed');
      expect(face.details.active_liveness.reasons).toEqual(expect.arrayContaining(['no_left_turn', 'no_right_turn', 'no_up_turn']));
      expect(face.details.active_liveness.frames).toHaveLength(7);
      // The last record ('done') is read after the processing screen replaced the instruction.
      const seen: [string, string][] = (await page.evaluate(() => (globalThis as any).movesSeen)).slice(0, 4);
      const moves: ('left' | 'right' | 'up')[] = face.details.active_liveness.moves;
      expect(seen).toEqual([
        ['neutral', CATALOGUES.en.livenessLookAhead],
        ...moves.map((move) => [move, CATALOGUES.en[`livenessMove_${move}`]]),
      ]);
      await context.close();
    },
    FLOW_MS,
  );

  it(
    'given a person who cannot turn their head, when they take the non-motion alternative, then the session goes to review with active_liveness_alternative',
    async () => {
      const { sessionId, url } = await newSession(activeWorkflowId);
      const context = await camera.newContext(PHONE);
      const page = await context.newPage();
      await reachChallenge(page, url);
      await page.getByRole('button', { name: CATALOGUES.en.livenessAlternative }).click();
      await screen(page, 'done');
      await screenshot(page, 'liveness-alternative-done');
      await context.close();
      const { status, face } = await faceStep(sessionId);
      expect(status).toBe('in_review');
      expect(face.warnings).toEqual([expect.objectContaining({ code: 'active_liveness_alternative' })]);
      expect(face.details.capture).toBe('camera');
    },
    FLOW_MS,
  );
});
