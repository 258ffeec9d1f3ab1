/**
 * Retakes instead of dead ends (issue 12 point 4): a photo that cannot be read puts its step in
 * `resubmission_requested` with the reason, the end user submits it again, and only after the
 * workflow's `max_attempts` submissions does the step fail. Substantive failures decline at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideVerdict } from '../../src/domain/verdict.js';
import { resubmissionReasonOf, statusAfterSubmission } from '../../src/domain/resubmission.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, tokenOf } from './support.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';

let testApp: TestApp;
let tenant: TestTenant;
let receiver: Receiver;

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  tenant = await testApp.tenant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await testApp.close();
  await receiver.close();
});

/** A new sandbox session and a caller of its step routes with its token. */
async function session(workflowId: string, vendorData: string) {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflowId, vendor_data: vendorData });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.session_id as string;
  const token = tokenOf(created.body.url);
  const step = (path: string, body?: unknown) =>
    testApp.rest(body === undefined ? 'GET' : 'POST', `/v1/sessions/${id}/steps${path}`, { body, headers: { 'x-session-token': token } });
  const document = (image: string) => step('/document', { country: 'GB', id_type: 'PASSPORT', image_front: image });
  return { id, token, step, document };
}

describe('retakes: the rules', () => {
  it('given each kind of result, when a submission is judged, then only a failure the person can fix, with submissions left, asks for a retake', () => {
    const blurred = { status: 'failed' as const, details: { result_code: 'image_blurry' } };
    const tampered = { status: 'failed' as const, details: { result_code: 'document_tampered' } };
    expect(resubmissionReasonOf(blurred)).toBe('image_blurry');
    expect(resubmissionReasonOf({ status: 'failed', details: { result_code: 'document_expired' } })).toBe('document_expired');
    expect(resubmissionReasonOf({ status: 'failed', details: { result_code: 'liveness_failed' } })).toBe('liveness_failed');
    expect(resubmissionReasonOf({ status: 'failed', details: { result_code: 'face_mismatch' } })).toBeNull();
    expect(resubmissionReasonOf(tampered)).toBeNull();
    expect(resubmissionReasonOf({ status: 'passed', details: { result_code: 'image_blurry' } })).toBeNull();
    expect(statusAfterSubmission(blurred, 1, 3)).toEqual({ status: 'resubmission_requested', resubmissionReason: 'image_blurry' });
    expect(statusAfterSubmission(blurred, 2, 3)).toEqual({ status: 'resubmission_requested', resubmissionReason: 'image_blurry' });
    expect(statusAfterSubmission(blurred, 3, 3)).toEqual({ status: 'failed', resubmissionReason: null });
    expect(statusAfterSubmission(blurred, 1, 1)).toEqual({ status: 'failed', resubmissionReason: null });
    expect(statusAfterSubmission(tampered, 1, 3)).toEqual({ status: 'failed', resubmissionReason: null });
  });

  it('given a required node waiting for a retake, when the verdict is decided, then none is given yet; an optional one holds nothing', () => {
    const workflow = {
      complianceLevel: 'standard',
      nodes: [
        { type: 'document_verification' as const, required: true, provider: 'p' },
        { type: 'phone_verification' as const, required: false, provider: 'p' },
      ],
    };
    const waiting = decideVerdict({
      workflow,
      nodeResults: {
        document_verification: { status: 'resubmission_requested', required: true, provider: 'p', warnings: [], details: {} },
      },
      listHits: [],
      amlScore: null,
      sessionWarnings: [],
    });
    expect(waiting.status).toBeNull();
    expect(waiting.reasons[0]).toMatchObject({ code: 'required_node_pending', nodeType: 'document_verification' });
    const optional = decideVerdict({
      workflow,
      nodeResults: {
        document_verification: { status: 'passed', required: true, provider: 'p', warnings: [], details: {} },
        phone_verification: { status: 'resubmission_requested', required: false, provider: 'p', warnings: [], details: {} },
      },
      listHits: [],
      amlScore: null,
      sessionWarnings: [],
    });
    expect(optional.status).toBe('approved');
  });
});

describe('retakes: over the API', () => {
  it('given a blurred document, when submitted, then the step asks for a retake with the reason and the count; the retake passes and the session goes on to approved', async () => {
    const s = await session('standard_kyc', 'retake-then-pass');
    const first = await s.document('sandbox:blurry');
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('in_progress');
    expect(first.body.steps[0]).toEqual({
      node_type: 'document_verification',
      description: expect.any(String),
      required: true,
      status: 'resubmission_requested',
      resubmission_reason: 'image_blurry',
      attempts: 1,
      attempts_remaining: 2,
    });
    const viaGraphql = await gql(
      testApp,
      { sessionToken: s.token },
      'query ($id: String!) { verificationSteps(sessionId: $id) { steps { nodeType status resubmissionReason attempts attemptsRemaining } } }',
      { id: s.id },
    );
    expect(viaGraphql.body.data.verificationSteps.steps[0]).toEqual({
      nodeType: 'document_verification',
      status: 'resubmission_requested',
      resubmissionReason: 'image_blurry',
      attempts: 1,
      attemptsRemaining: 2,
    });
    const retake = await s.document(SANDBOX_IMAGE);
    expect(retake.status).toBe(200);
    expect(retake.body.steps[0]).toMatchObject({ status: 'passed', attempts: 2, attempts_remaining: 1 });
    expect(retake.body.steps[0].resubmission_reason).toBeUndefined();
    await s.step('/selfie', { selfie: SANDBOX_IMAGE });
    const aml = await s.step('/aml', { full_name: 'Sandbox User' });
    expect(aml.body.status).toBe('approved');
    const read = await testApp.rest('GET', `/v1/sessions/${s.id}`, { key: tenant.sandboxKey });
    expect(read.body.node_results.document_verification.status).toBe('passed');
  });

  it('given three blurred documents, when submitted, then the third fails the step and declines the session; a fourth is refused', async () => {
    const s = await session('standard_kyc', 'retake-exhausted');
    expect((await s.document('sandbox:blurry')).body.steps[0].status).toBe('resubmission_requested');
    expect((await s.document('sandbox:blurry')).body.steps[0]).toMatchObject({ status: 'resubmission_requested', attempts_remaining: 1 });
    const third = await s.document('sandbox:blurry');
    expect(third.body.steps[0]).toMatchObject({ status: 'failed', attempts: 3, attempts_remaining: 0 });
    expect(third.body.status).toBe('declined');
    const fourth = await s.document(SANDBOX_IMAGE);
    expect(fourth.status).toBe(409);
  });

  it('given a workflow allowing one attempt, when a blurred document is submitted, then the step fails at once', async () => {
    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: { name: 'one shot', nodes: [{ type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' }], max_attempts: 1 },
    });
    expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
    expect(workflow.body.max_attempts).toBe(1);
    const s = await session(workflow.body.workflow_id, 'retake-one-shot');
    const first = await s.document('sandbox:blurry');
    expect(first.body.steps[0]).toMatchObject({ status: 'failed', attempts: 1, attempts_remaining: 0 });
    expect(first.body.status).toBe('declined');
  });

  it('given max_attempts out of 1–10, when a workflow is created or changed, then 400 naming max_attempts; built-ins allow 3', async () => {
    for (const maxAttempts of [0, 11, 2.5]) {
      const refused = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.sandboxKey,
        body: {
          name: 'bad',
          nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }],
          max_attempts: maxAttempts,
        },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].field).toBe('max_attempts');
    }
    const builtIn = await testApp.rest('GET', '/v1/workflows/standard_kyc', { key: tenant.sandboxKey });
    expect(builtIn.body.max_attempts).toBe(3);
  });

  it('given a tampered document, when submitted, then the step fails at once: final failures are no retake', async () => {
    const s = await session('standard_kyc', 'retake-tampered');
    const tampered = await s.document('sandbox:tampered');
    expect(tampered.body.steps[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(tampered.body.status).toBe('declined');
  });

  it('given an expired document, when submitted, then the person may use another one (a retake), and a valid one then passes', async () => {
    const s = await session('standard_kyc', 'retake-expired');
    const expired = await s.document('sandbox:expired');
    expect(expired.body.steps[0]).toMatchObject({ status: 'resubmission_requested', resubmission_reason: 'document_expired', attempts: 1 });
    expect(expired.body.status).toBe('in_progress');
    const valid = await s.document(SANDBOX_IMAGE);
    expect(valid.body.steps[0]).toMatchObject({ status: 'passed', attempts: 2 });
  });

  it('given expired documents until no attempt is left, when the last is submitted, then the session declines saying why: document_expired, retryable', async () => {
    const s = await session('standard_kyc', 'retake-expired-out');
    for (let attempt = 1; attempt <= 3; attempt++) await s.document('sandbox:expired');
    const decision = await testApp.rest('GET', `/v1/sessions/${s.id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.status).toBe('declined');
    expect(decision.body.reasons[0]).toMatchObject({
      code: 'required_node_failed',
      node_type: 'document_verification',
      cause: 'document_expired',
      category: 'document',
      retryable: true,
    });
  });

  it('given a step waiting for a retake, when two retakes arrive at once, then one is applied and the other refused, never a 500', async () => {
    const s = await session('standard_kyc', 'retake-concurrent');
    await s.document('sandbox:blurry');
    const answers = await Promise.all([s.document(SANDBOX_IMAGE), s.document(SANDBOX_IMAGE)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const steps = await s.step('');
    expect(steps.body.steps[0]).toMatchObject({ status: 'passed', attempts: 2 });
  });

  it('given a webhook destination, when a step asks for a retake, then it receives a signed session.resubmission_requested with the reason and the counts', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/retakes`, events: ['session.resubmission_requested'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.secret = created.body.secret;
    const s = await session('standard_kyc', 'retake-webhook');
    await s.document('sandbox:blurry');
    const [delivery] = await receiver.waitFor((received) => received.some((item) => item.body.type === 'session.resubmission_requested'));
    expect(delivery.verified).toBe(true);
    expect(delivery.body).toMatchObject({
      type: 'session.resubmission_requested',
      data: {
        session_id: s.id,
        workflow_id: 'standard_kyc',
        node_type: 'document_verification',
        resubmission_reason: 'image_blurry',
        attempts: 1,
        attempts_remaining: 2,
      },
    });
    expect(receiver.received.every((item) => item.body.type === 'session.resubmission_requested')).toBe(true);
  });
});
