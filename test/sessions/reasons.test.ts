/**
 * Every verdict explains itself (issue 24), through the real API: the decision's reasons carry the
 * catalogue's cause, category, severity and retryable in REST, GraphQL and every webhook version;
 * the person reads a short honest sentence (never the fraud signal); reviewers decline and ask for
 * retakes with a catalogue code and a note the person reads; tenants add their own codes, each
 * tenant and environment seeing only its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession, gql, SANDBOX_IMAGE, tokenOf } from './support.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';

let testApp: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let counter = 0;

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  tenant = await testApp.tenant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await testApp.close();
  await receiver.close();
});

const HOSTED_FLOW = `query ($sessionId: String!) { hostedFlow(sessionId: $sessionId) {
  status outcomeMessage steps { nodeType status resubmissionReason retakeMessage retakeNote } } }`;

/** A new sandbox standard_kyc session of `key`, with its end-user token. */
async function newSession(key = tenant.sandboxKey): Promise<{ id: string; token: string }> {
  counter += 1;
  const created = await createSession(testApp, key, { workflow_id: 'standard_kyc', vendor_data: `reasons-${counter}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session_id, token: tokenOf(created.body.url) };
}

/** A standard_kyc session sent to review by its selfie. */
async function inReview(key = tenant.sandboxKey): Promise<{ id: string; token: string }> {
  const session = await newSession(key);
  expect(await completeStandardKyc(testApp, { sessionToken: session.token }, session.id, { selfie: 'sandbox:review' })).toBe('in_review');
  return session;
}

describe('the decision says why', () => {
  it('given a tampered document, when declined, then REST and GraphQL name the cause (fraud, final) and the person reads only "we could not verify your document"', async () => {
    const session = await newSession();
    expect(await completeStandardKyc(testApp, { sessionToken: session.token }, session.id, { imageFront: 'sandbox:tampered' })).toBe(
      'declined',
    );
    const decision = await testApp.rest('GET', `/v1/sessions/${session.id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.reasons[0]).toEqual({
      code: 'required_node_failed',
      message: 'Required node document_verification failed.',
      node_type: 'document_verification',
      cause: 'document_tampered',
      category: 'fraud',
      severity: 'critical',
      retryable: false,
    });
    // The spec's fields are unchanged.
    expect(decision.body).toMatchObject({ session_id: session.id, status: 'declined', workflow_id: 'standard_kyc' });
    expect(decision.body.service_token).toBeUndefined();
    const graphql = await gql(
      testApp,
      { key: tenant.sandboxKey },
      'query ($id: String!) { session(id: $id) { decision { reasons { code cause category severity retryable nodeType } } } }',
      {
        id: session.id,
      },
    );
    expect(graphql.body.data.session.decision.reasons[0]).toEqual({
      code: 'required_node_failed',
      cause: 'document_tampered',
      category: 'fraud',
      severity: 'critical',
      retryable: false,
      nodeType: 'document_verification',
    });
    const hosted = await gql(testApp, { sessionToken: session.token }, HOSTED_FLOW, { sessionId: session.id });
    expect(hosted.body.data.hostedFlow).toMatchObject({ status: 'declined', outcomeMessage: 'document_not_verified' });
    expect(JSON.stringify(hosted.body)).not.toContain('tamper');
  });

  it('given destinations of each payload version, when a session is declined, then v1, v2 and v3 bodies all carry the reasons', async () => {
    for (const version of ['v1', 'v2', 'v3']) {
      const created = await testApp.rest('POST', '/v1/webhook-destinations', {
        key: tenant.sandboxKey,
        body: { url: `${receiver.url}/${version}`, events: ['session.status_changed'], version },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const session = await newSession();
    expect(await completeStandardKyc(testApp, { sessionToken: session.token }, session.id, { imageFront: 'sandbox:tampered' })).toBe(
      'declined',
    );
    const decision = await testApp.rest('GET', `/v1/sessions/${session.id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.reasons[0]).toMatchObject({ cause: 'document_tampered' });
    const changed = (body: any) =>
      (body.type === 'session.status_changed' ? body.data.session_id : body.session_id) === session.id &&
      (body.type === 'session.status_changed' ? body.data.status : body.status) === decision.body.status;
    const all = await receiver.waitFor((received) => received.filter((item) => changed(item.body)).length >= 3);
    const bodies = all.filter((item) => changed(item.body)).map((item) => item.body);
    const v3 = bodies.find((body) => body.type === 'session.status_changed');
    const v2 = bodies.find((body) => body.event && body.created_at !== undefined);
    const v1 = bodies.find((body) => body.event && body.created_at === undefined);
    for (const body of [v3.data, v2, v1]) expect(body.reasons).toEqual(decision.body.reasons);
  });
});

describe('reviewers speak the catalogue', () => {
  it('given an in-review case, when a reviewer declines with a code and a note, then the decision lists it first, the audit keeps it and the person reads its sentence', async () => {
    const session = await inReview();
    const declined = await testApp.rest('POST', `/v1/sessions/${session.id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'declined', reason_code: 'face_mismatch', note: 'Different person from the passport.' },
    });
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(declined.body.reasons[0]).toEqual({
      code: 'reviewer_decision',
      message: 'Different person from the passport.',
      cause: 'face_mismatch',
      category: 'face',
      severity: 'high',
      retryable: false,
    });
    const hosted = await gql(testApp, { sessionToken: session.token }, HOSTED_FLOW, { sessionId: session.id });
    expect(hosted.body.data.hostedFlow.outcomeMessage).toBe('face_mismatch');
    const timeline = await gql(
      testApp,
      { key: tenant.sandboxKey },
      'query ($id: String!) { session(id: $id) { reviewHistory { toStatus reason } } }',
      {
        id: session.id,
      },
    );
    expect(timeline.body.data.session.reviewHistory.at(-1)).toEqual({
      toStatus: 'declined',
      reason: 'face_mismatch: The selfie does not match the document portrait. — Different person from the passport.',
    });
  });

  it('given an in-review case, when a reviewer gives an unknown code or no reason at all, then 400 and nothing changes; the free-text reason still works', async () => {
    const session = await inReview();
    const unknown = await testApp.rest('POST', `/v1/sessions/${session.id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'declined', reason_code: 'no_such_code' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'reason_code', code: 'unknown_reason_code' });
    const none = await testApp.rest('POST', `/v1/sessions/${session.id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'declined' },
    });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].field).toBe('reason');
    expect((await testApp.rest('GET', `/v1/sessions/${session.id}/decision`, { key: tenant.sandboxKey })).body.status).toBe('in_review');
    const freeText = await testApp.rest('POST', `/v1/sessions/${session.id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'approved', reason: 'Checked by hand.' },
    });
    expect(freeText.status).toBe(200);
    expect(freeText.body.status).toBe('approved');
  });

  it('given an in-review case, when a reviewer asks for a retake with a code and a note, then the person reads its sentence and the note, and the next submission spends them', async () => {
    const session = await inReview();
    const retake = await testApp.rest('POST', `/v1/sessions/${session.id}/retake`, {
      key: tenant.sandboxKey,
      body: {
        node_type: 'document_verification',
        reason_code: 'document_expired',
        note: 'Photograph your own passport, the one valid until 2031.',
      },
    });
    expect(retake.status, JSON.stringify(retake.body)).toBe(200);
    const hosted = await gql(testApp, { sessionToken: session.token }, HOSTED_FLOW, { sessionId: session.id });
    expect(hosted.body.data.hostedFlow.steps.find((step: { nodeType: string }) => step.nodeType === 'document_verification')).toEqual({
      nodeType: 'document_verification',
      status: 'resubmission_requested',
      resubmissionReason: 'reviewer_request',
      retakeMessage: 'document_expired',
      retakeNote: 'Photograph your own passport, the one valid until 2031.',
    });
    const resubmitted = await testApp.rest('POST', `/v1/sessions/${session.id}/steps/document`, {
      headers: { 'x-session-token': session.token },
      body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE, first_name: 'Jane', last_name: 'Example' },
    });
    expect(resubmitted.status, JSON.stringify(resubmitted.body)).toBe(200);
    const after = await gql(testApp, { sessionToken: session.token }, HOSTED_FLOW, { sessionId: session.id });
    const document = after.body.data.hostedFlow.steps.find((step: { nodeType: string }) => step.nodeType === 'document_verification');
    expect(document).toMatchObject({ status: 'passed', retakeMessage: null, retakeNote: null });
  });

  it('given an engine retake, when the person opens the flow, then the step says which sentence to show (an expired document: use a valid one)', async () => {
    const session = await newSession();
    const expired = await testApp.rest('POST', `/v1/sessions/${session.id}/steps/document`, {
      headers: { 'x-session-token': session.token },
      body: { country: 'GB', id_type: 'PASSPORT', image_front: 'sandbox:expired' },
    });
    expect(expired.body.steps[0]).toMatchObject({ status: 'resubmission_requested', resubmission_reason: 'document_expired' });
    const hosted = await gql(testApp, { sessionToken: session.token }, HOSTED_FLOW, { sessionId: session.id });
    expect(hosted.body.data.hostedFlow.steps[0]).toMatchObject({ retakeMessage: 'document_expired', retakeNote: null });
  });
});

describe("a tenant's own codes", () => {
  const OWN = {
    code: 'acme_outside_service_area',
    category: 'data',
    severity: 'medium',
    retryable: false,
    reviewer_text: 'The customer lives outside the countries Acme serves.',
    end_user_message: 'not_verified',
  };

  it('given a new code, when added, listed, used in a decline and removed, then it reads like a built-in one and the decline keeps its category', async () => {
    const own = await testApp.tenant();
    const created = await testApp.rest('POST', '/v1/reason-codes', { key: own.sandboxKey, body: OWN });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({ ...OWN, built_in: false });
    const listed = await testApp.rest('GET', '/v1/reason-codes', { key: own.sandboxKey });
    expect(listed.body.reason_codes.at(-1)).toEqual({ ...OWN, built_in: false });
    expect(listed.body.reason_codes.find((code: { code: string }) => code.code === 'document_expired')).toMatchObject({
      category: 'document',
      retryable: true,
      built_in: true,
    });
    const session = await inReview(own.sandboxKey);
    const declined = await testApp.rest('POST', `/v1/sessions/${session.id}/review`, {
      key: own.sandboxKey,
      body: { decision: 'declined', reason_code: OWN.code },
    });
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(declined.body.reasons[0]).toMatchObject({ cause: OWN.code, category: 'data', severity: 'medium', retryable: false });
    expect((await testApp.rest('DELETE', `/v1/reason-codes/${OWN.code}`, { key: own.sandboxKey })).status).toBe(204);
    expect((await testApp.rest('DELETE', `/v1/reason-codes/${OWN.code}`, { key: own.sandboxKey })).status).toBe(404);
    const kept = await testApp.rest('GET', `/v1/sessions/${session.id}/decision`, { key: own.sandboxKey });
    expect(kept.body.reasons[0]).toMatchObject({ cause: OWN.code, category: 'data' });
  });

  it('given bad codes, when added, then 400 naming the field (built-in, shape, category, theme), 409 for a second copy, and nothing is added', async () => {
    const own = await testApp.tenant();
    const bad: [Record<string, unknown>, string][] = [
      [{ ...OWN, code: 'document_expired' }, 'code'],
      [{ ...OWN, code: 'Not Snake' }, 'code'],
      [{ ...OWN, category: 'vibes' }, 'category'],
      [{ ...OWN, severity: 'extreme' }, 'severity'],
      [{ ...OWN, end_user_message: 'You are a fraudster.' }, 'end_user_message'],
      [{ ...OWN, reviewer_text: '   ' }, 'reviewer_text'],
    ];
    for (const [body, field] of bad) {
      const refused = await testApp.rest('POST', '/v1/reason-codes', { key: own.sandboxKey, body });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
    expect((await testApp.rest('POST', '/v1/reason-codes', { key: own.sandboxKey, body: OWN })).status).toBe(201);
    expect((await testApp.rest('POST', '/v1/reason-codes', { key: own.sandboxKey, body: OWN })).status).toBe(409);
    const listed = await testApp.rest('GET', '/v1/reason-codes', { key: own.sandboxKey });
    expect(listed.body.reason_codes.filter((code: { built_in: boolean }) => !code.built_in)).toHaveLength(1);
  });

  it("given a code of one tenant's sandbox, when its live key or another tenant uses it, then it is unknown there: not listed, not deletable, refused in a decline", async () => {
    const own = await testApp.tenant();
    const other = await testApp.tenant();
    expect((await testApp.rest('POST', '/v1/reason-codes', { key: own.sandboxKey, body: OWN })).status).toBe(201);
    for (const key of [own.liveKey, other.sandboxKey]) {
      const listed = await testApp.rest('GET', '/v1/reason-codes', { key });
      expect(JSON.stringify(listed.body)).not.toContain(OWN.code);
      expect((await testApp.rest('DELETE', `/v1/reason-codes/${OWN.code}`, { key })).status).toBe(404);
    }
    const foreignCase = await inReview(other.sandboxKey);
    const refused = await testApp.rest('POST', `/v1/sessions/${foreignCase.id}/review`, {
      key: other.sandboxKey,
      body: { decision: 'declined', reason_code: OWN.code },
    });
    expect(refused.status).toBe(400);
    expect((await testApp.rest('GET', '/v1/reason-codes', { key: own.sandboxKey })).body.reason_codes.at(-1).code).toBe(OWN.code);
  });
});
