/**
 * Capture integrity through the real API (docs/capture-integrity.md): the end user asks for a
 * capture nonce with the session token, sends it back with the camera's evidence, and the step's
 * details say which path the photo took (`capture`: camera or upload) with each signal named. A
 * virtual camera, frames faster than the camera's rate, a missing, forged, foreign or reused
 * nonce, and an upload where the workflow asks for the camera each send the session to review
 * with a `capture_integrity` warning; an API integrator's plain upload stays as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, SUBMIT_SELFIE, tokenOf } from './support.js';

const ISSUE_NONCE = /* GraphQL */ `
  mutation ($sessionId: String!, $nodeType: NodeType!) {
    issueCaptureNonce(sessionId: $sessionId, nodeType: $nodeType) {
      nonce
      expiresAt
    }
  }
`;
const HONEST_CAMERA = { deviceLabel: 'Integrated Camera (04f2:b6d9)', frameRate: 30, measuredFrameRate: 29.6 };

let testApp: TestApp;
let tenant: TestTenant;
let cameraWorkflowId: string;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant('Capture Shop');
  const workflow = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.sandboxKey,
    body: {
      name: 'Camera only',
      capture: 'camera',
      nodes: [
        { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
        { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
      ],
    },
  });
  expect(workflow.status).toBe(201);
  expect(workflow.body).toMatchObject({ capture: 'camera', liveness: 'passive' });
  cameraWorkflowId = workflow.body.workflow_id;
});

afterAll(async () => {
  await testApp?.close();
});

/** A new session of a workflow, with its end-user token. */
async function newSession(workflowId = 'standard_kyc') {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflowId, vendor_data: `capture-${Math.random()}` });
  expect(created.status).toBe(201);
  return { sessionId: created.body.session_id as string, token: tokenOf(created.body.url) };
}

/** Asks for a nonce as the hosted page does. */
async function nonceFor(session: { sessionId: string; token: string }, nodeType = 'biometric_kyc'): Promise<string> {
  const issued = await gql(testApp, { sessionToken: session.token }, ISSUE_NONCE, { sessionId: session.sessionId, nodeType });
  expect(issued.body.errors).toBeUndefined();
  expect(issued.body.data.issueCaptureNonce.expiresAt).toBeGreaterThan(Date.now() / 1000);
  return issued.body.data.issueCaptureNonce.nonce;
}

/** Submits the document (uploaded, as an API integrator would) and then the selfie with `captures`. */
async function submitSteps(session: { sessionId: string; token: string }, selfieCaptures?: unknown[], documentCaptures?: unknown[]) {
  const credential = { sessionToken: session.token };
  const document = await gql(testApp, credential, SUBMIT_DOCUMENT, {
    sessionId: session.sessionId,
    input: {
      country: 'GB',
      idType: 'PASSPORT',
      imageFront: SANDBOX_IMAGE,
      firstName: 'Jane',
      lastName: 'Example',
      captures: documentCaptures,
    },
  });
  expect(document.body.errors).toBeUndefined();
  const selfie = await gql(testApp, credential, SUBMIT_SELFIE, {
    sessionId: session.sessionId,
    input: { selfie: SANDBOX_IMAGE, captures: selfieCaptures },
  });
  return selfie;
}

/** The session's decision over REST with the tenant's key. */
async function decisionOf(sessionId: string) {
  const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
  expect(decision.status).toBe(200);
  return decision.body;
}

/** Completes the AML step of a standard_kyc session and returns the session's status. */
async function finishAml(session: { sessionId: string; token: string }): Promise<string> {
  const aml = await gql(testApp, { sessionToken: session.token }, SUBMIT_AML, {
    sessionId: session.sessionId,
    input: { fullName: 'Jane Example' },
  });
  expect(aml.body.errors).toBeUndefined();
  return aml.body.data.submitAmlData.status;
}

describe('capture path in the decision', () => {
  it('given an API integrator uploading with no capture evidence, when decided, then the steps say upload, no signal, and it approves as before', async () => {
    const session = await newSession();
    const selfie = await submitSteps(session);
    expect(selfie.body.errors).toBeUndefined();
    expect(await finishAml(session)).toBe('approved');
    const decision = await decisionOf(session.sessionId);
    const face = decision.node_results.biometric_kyc;
    expect(face.details.capture).toBe('upload');
    expect(face.details.capture_integrity).toEqual({ signals: [], images: [{ source: 'upload', signals: [] }] });
    expect(face.warnings).toEqual([]);
    expect(decision.node_results.document_verification.details.capture).toBe('upload');
  });

  it('given a camera capture with its fresh nonce and an honest camera, when decided, then the step says camera with the device and timing, and it approves', async () => {
    const session = await newSession();
    const nonce = await nonceFor(session);
    const selfie = await submitSteps(session, [{ source: 'camera', nonce, ...HONEST_CAMERA }]);
    expect(selfie.body.errors).toBeUndefined();
    expect(await finishAml(session)).toBe('approved');
    const face = (await decisionOf(session.sessionId)).node_results.biometric_kyc;
    expect(face.details.capture).toBe('camera');
    const [image] = face.details.capture_integrity.images;
    expect(image).toMatchObject({ source: 'camera', device_label: HONEST_CAMERA.deviceLabel, frame_rate: 30, measured_frame_rate: 29.6 });
    expect(image.nonce).toBe('valid');
    expect(image.nonce_age_ms).toBeGreaterThanOrEqual(0);
    expect(image.nonce_age_ms).toBeLessThan(300_000);
    expect(face.details.capture_integrity.signals).toEqual([]);
    expect(face.warnings).toEqual([]);
  });
});

describe('capture_integrity signals', () => {
  /** Runs a standard_kyc session whose selfie carries `captures` (made with a fresh nonce) and returns its face step and status. */
  async function selfieWith(
    makeCaptures: (nonce: string, session: { sessionId: string; token: string }) => Promise<unknown[]> | unknown[],
  ) {
    const session = await newSession();
    const nonce = await nonceFor(session);
    const selfie = await submitSteps(session, await makeCaptures(nonce, session));
    expect(selfie.body.errors).toBeUndefined();
    const status = await finishAml(session);
    const decision = await decisionOf(session.sessionId);
    return { status, face: decision.node_results.biometric_kyc, decision };
  }

  it.each([
    ['OBS Virtual Camera'],
    ['ManyCam Virtual Webcam'],
    ['Snap Camera'],
    ['XSplit VCam'],
    ['Dummy video device (0x0000)'],
    ['v4l2loopback'],
  ])('given the virtual camera %s, when decided, then virtual_camera sends it to review', async (deviceLabel) => {
    const { status, face } = await selfieWith((nonce) => [{ source: 'camera', nonce, deviceLabel, frameRate: 30, measuredFrameRate: 30 }]);
    expect(status).toBe('in_review');
    expect(face.details.capture_integrity.signals).toEqual(['virtual_camera']);
    expect(face.warnings).toEqual([expect.objectContaining({ code: 'capture_integrity' })]);
    expect(face.warnings[0].message).toContain('virtual camera');
  });

  it('given frames arriving at 90 per second from a 30 fps camera, when decided, then frames_faster_than_camera', async () => {
    const { status, face } = await selfieWith((nonce) => [{ source: 'camera', nonce, ...HONEST_CAMERA, measuredFrameRate: 90 }]);
    expect(status).toBe('in_review');
    expect(face.details.capture_integrity.signals).toEqual(['frames_faster_than_camera']);
  });

  it('given a camera capture without a nonce, when decided, then nonce_missing', async () => {
    const { status, face } = await selfieWith(() => [{ source: 'camera', ...HONEST_CAMERA }]);
    expect(status).toBe('in_review');
    expect(face.details.capture_integrity.signals).toEqual(['nonce_missing']);
    expect(face.details.capture_integrity.images[0].nonce).toBe('missing');
  });

  it('given a forged nonce (a changed expiry), when decided, then nonce_invalid', async () => {
    const { face } = await selfieWith((nonce) => {
      const [id, expires, signature] = nonce.split('.');
      return [{ source: 'camera', nonce: `${id}.${Number(expires) + 3600}.${signature}`, ...HONEST_CAMERA }];
    });
    expect(face.details.capture_integrity.signals).toEqual(['nonce_invalid']);
  });

  it("given another session's nonce, when decided, then nonce_invalid (a nonce is bound to its session)", async () => {
    const { face } = await selfieWith(async () => [{ source: 'camera', nonce: await nonceFor(await newSession()), ...HONEST_CAMERA }]);
    expect(face.details.capture_integrity.signals).toEqual(['nonce_invalid']);
  });

  it("given the document step's nonce on the selfie, when decided, then nonce_invalid (a nonce is bound to its step)", async () => {
    const { face } = await selfieWith(async (_nonce, session) => [
      { source: 'camera', nonce: await nonceFor(session, 'document_verification'), ...HONEST_CAMERA },
    ]);
    expect(face.details.capture_integrity.signals).toEqual(['nonce_invalid']);
  });

  it('given one nonce used for both sides of a document and then again for a retake, when decided, then nonce_reused each time', async () => {
    const session = await newSession();
    const credential = { sessionToken: session.token };
    const nonce = await nonceFor(session, 'document_verification');
    const camera = { source: 'camera', nonce, ...HONEST_CAMERA };
    // A blurred photo asks for a retake, which uses the same nonce again.
    const first = await gql(testApp, credential, SUBMIT_DOCUMENT, {
      sessionId: session.sessionId,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:blurry', captures: [camera] },
    });
    expect(first.body.data.submitDocument.steps[0]).toMatchObject({ nodeType: 'document_verification', status: 'resubmission_requested' });
    const second = await gql(testApp, credential, SUBMIT_DOCUMENT, {
      sessionId: session.sessionId,
      input: { country: 'GB', idType: 'NATIONAL_ID', imageFront: SANDBOX_IMAGE, imageBack: SANDBOX_IMAGE, captures: [camera, camera] },
    });
    expect(second.body.errors).toBeUndefined();
    const document = (await decisionOf(session.sessionId)).node_results.document_verification;
    expect(document.details.capture_integrity.images.map((image: { nonce: string }) => image.nonce)).toEqual(['reused', 'reused']);
    expect(document.details.capture_integrity.signals).toEqual(['nonce_reused']);
  });

  it('given a camera-only workflow, when the selfie is uploaded, then upload_where_camera_required; an honest camera capture of the document raises nothing', async () => {
    const session = await newSession(cameraWorkflowId);
    const documentNonce = await nonceFor(session, 'document_verification');
    const selfie = await submitSteps(session, undefined, [{ source: 'camera', nonce: documentNonce, ...HONEST_CAMERA }]);
    expect(selfie.body.errors).toBeUndefined();
    expect(selfie.body.data.submitSelfie.status).toBe('in_review');
    const decision = await decisionOf(session.sessionId);
    expect(decision.node_results.document_verification.details).toMatchObject({ capture: 'camera', capture_integrity: { signals: [] } });
    expect(decision.node_results.biometric_kyc.details).toMatchObject({
      capture: 'upload',
      capture_integrity: { signals: ['upload_where_camera_required'] },
    });
  });
});

describe('workflow options', () => {
  it('given a workflow, when capture and liveness are patched, then they are kept; an unknown value is a 400 naming the field and changes nothing', async () => {
    const created = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: { name: 'Options', nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }] },
    });
    expect(created.body).toMatchObject({ capture: 'any', liveness: 'passive' });
    const path = `/v1/workflows/${created.body.workflow_id}`;
    const patched = await testApp.rest('PATCH', path, { key: tenant.sandboxKey, body: { capture: 'camera', liveness: 'active' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ capture: 'camera', liveness: 'active' });
    const bad = await testApp.rest('PATCH', path, { key: tenant.sandboxKey, body: { liveness: 'blink' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('liveness');
    const read = await testApp.graphql(
      'query ($id: String!) { workflow(id: $id) { capture liveness } }',
      { id: created.body.workflow_id },
      tenant.sandboxKey,
    );
    expect(read.body.data).toEqual({ workflow: { capture: 'camera', liveness: 'active' } });
  });
});

describe('refusals', () => {
  it('given a step that takes no photo, when a nonce is asked for, then 400 not_a_photo_step and nothing is issued', async () => {
    const session = await newSession();
    const issued = await gql(testApp, { sessionToken: session.token }, ISSUE_NONCE, {
      sessionId: session.sessionId,
      nodeType: 'aml_screening',
    });
    expect(issued.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(issued.body.errors[0].extensions.fieldErrors[0]).toMatchObject({ code: 'not_a_photo_step' });
  });

  it("given another session's token, when a nonce is asked for, then NOT_FOUND", async () => {
    const [mine, theirs] = [await newSession(), await newSession()];
    const issued = await gql(testApp, { sessionToken: theirs.token }, ISSUE_NONCE, {
      sessionId: mine.sessionId,
      nodeType: 'biometric_kyc',
    });
    expect(issued.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('given captures that do not match the images, when submitted, then 400 count_mismatch and the step stays pending', async () => {
    const session = await newSession();
    const nonce = await nonceFor(session);
    const selfie = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
      sessionId: session.sessionId,
      input: { selfie: SANDBOX_IMAGE, captures: [{ source: 'camera', nonce }, { source: 'upload' }] },
    });
    expect(selfie.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(selfie.body.errors[0].extensions.fieldErrors[0]).toMatchObject({ code: 'count_mismatch' });
    // The nonce was not used up by the refused submission.
    const again = await submitSteps(session, [{ source: 'camera', nonce, ...HONEST_CAMERA }]);
    expect(again.body.errors).toBeUndefined();
    expect(await finishAml(session)).toBe('approved');
  });

  it('given a label longer than 200 characters, when submitted, then 400 naming the field', async () => {
    const session = await newSession();
    const selfie = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
      sessionId: session.sessionId,
      input: { selfie: SANDBOX_IMAGE, captures: [{ source: 'camera', deviceLabel: 'x'.repeat(201) }] },
    });
    expect(selfie.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});
