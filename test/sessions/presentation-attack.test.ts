/**
 * Passive presentation-attack detection through the real API with a live key and the real engines
 * (docs/fraud.md): a real photo of a person (../shared/realdata/face) passes the selfie's liveness,
 * and the same photo shown on a screen and re-captured (bench/attacks/generate.ts) fails it as
 * `presentation_attack`, with every named signal in the decision's node details. Skipped on
 * machines without the shared data set.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeScreen } from '../../bench/attacks/generate.js';
import { renderDocument, toDataUri, unlistedHolder } from '../id-verification/support/synthetic-document.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SUBMIT_DOCUMENT, SUBMIT_SELFIE } from './support.js';

const FACE_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/face');

describe.skipIf(!existsSync(FACE_DIR))('presentation attacks on the live face step', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let workflowId: string;
  let passport: string;
  const genuine = () => readFileSync(path.join(FACE_DIR, 'obama__tests_test_images_obama.jpg'));

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.liveKey,
      body: {
        name: 'Live document and selfie',
        nodes: [
          { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
          { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
        ],
      },
    });
    expect(workflow.status).toBe(201);
    workflowId = workflow.body.workflow_id;
    // A synthetic passport whose portrait is another real photo of the same man.
    const portrait = await sharp(readFileSync(path.join(FACE_DIR, 'obama__tests_test_images_obama2.jpg')))
      .resize({ width: 300, height: 380, fit: 'cover', position: 'top' })
      .png()
      .toBuffer();
    passport = toDataUri(
      await sharp(await renderDocument(unlistedHolder()))
        .composite([{ input: portrait, left: 30, top: 120 }])
        .png()
        .toBuffer(),
      'image/png',
    );
  }, 180_000);
  afterAll(() => testApp?.close());

  /** Submits the passport and `selfie` (JPEG) in a new live session; returns the decision. */
  async function decide(vendor: string, selfie: Buffer) {
    const created = await createSession(testApp, tenant.liveKey, { workflow_id: workflowId, vendor_data: vendor });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id;
    const document = await gql(testApp, { key: tenant.liveKey }, SUBMIT_DOCUMENT, {
      sessionId,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: passport },
    });
    expect(document.body.errors).toBeUndefined();
    const face = await gql(testApp, { key: tenant.liveKey }, SUBMIT_SELFIE, {
      sessionId,
      input: { selfie: toDataUri(selfie, 'image/jpeg') },
    });
    expect(face.body.errors).toBeUndefined();
    const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.liveKey });
    expect(decision.status).toBe(200);
    return decision.body;
  }

  it('given a real photo of the passport holder, when submitted as the selfie, then liveness passes and every PAD signal is reported', async () => {
    const decision = await decide('pad-genuine', genuine());
    const face = decision.node_results.biometric_kyc;
    expect(face.details.result_code).not.toBe('presentation_attack');
    expect(face.details.checks.liveness).toBe('passed');
    expect(face.details.presentation_attack.outcome).toBe('passed');
    expect(face.details.presentation_attack.signals.map((signal: { name: string }) => signal.name)).toEqual([
      'periodic_pattern',
      'face_periodic_pattern',
      'frame_edge',
      'cutout_rim',
      'skin_colour',
      'black_level',
      'antispoof_model',
      'liveness_model',
      'recapture_model',
      'camera_metadata',
    ]);
    // The original carries its camera's EXIF (a Canon EOS 5D Mark III).
    expect(face.details.presentation_attack.signals.at(-1)).toMatchObject({ name: 'camera_metadata', outcome: 'passed', value: true });
  }, 240_000);

  it('given the same photo shown on a phone screen and re-captured, when submitted as the selfie, then the face step fails as presentation_attack, says why and asks for a new selfie', async () => {
    const scene = readFileSync(path.join(FACE_DIR, 'biden__tests_test_images_biden.jpg'));
    const decision = await decide('pad-screen', await makeScreen(genuine(), 'A', scene, 11));
    const face = decision.node_results.biometric_kyc;
    // A presentation attack is retryable in the reason catalogue: the step is sent back while
    // attempts remain (a real person may retry with the camera), never passed.
    expect(face.status).toBe('resubmission_requested');
    expect(face.details.result_code).toBe('presentation_attack');
    expect(face.details.checks.liveness).toBe('failed');
    expect(face.details.presentation_attack.outcome).toBe('failed');
    const failed = face.details.presentation_attack.signals.filter((signal: { outcome: string }) => signal.outcome === 'failed');
    expect(failed.map((signal: { name: string }) => signal.name)).toContain('frame_edge');
    expect(face.warnings).toEqual([expect.objectContaining({ code: 'presentation_attack' })]);
    expect(decision.status).toBe('in_progress');
  }, 240_000);
});
