/**
 * The end user's steps over REST (`/v1/sessions/{id}/steps…`): the same operations as GraphQL's
 * `verificationSteps` and `submit…`, with the session token of the session `url` or the API key,
 * validated like every REST body, and one session's token reaching that session only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, SANDBOX_IMAGE, tokenOf } from './support.js';

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
});
afterAll(() => testApp.close());

/** A new sandbox session of a workflow, with its id and the token of its `url`. */
async function newSession(workflowId: string, vendorData: string): Promise<{ id: string; token: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflowId, vendor_data: vendorData });
  expect(created.status).toBe(201);
  return { id: created.body.session_id, token: tokenOf(created.body.url) };
}

/** Calls a step route with the end user's session token. */
function asEndUser(token: string, method: string, path: string, body?: unknown) {
  return testApp.rest(method, path, { body, headers: { 'x-session-token': token } });
}

describe('end-user steps over REST', () => {
  it('given a standard_kyc session, when the end user submits every step with the session token, then each answer shows the steps in workflow order and the session is approved', async () => {
    const session = await newSession('standard_kyc', 'rest-steps-approved');
    const steps = await asEndUser(session.token, 'GET', `/v1/sessions/${session.id}/steps`);
    expect(steps.status).toBe(200);
    expect(steps.body.session_id).toBe(session.id);
    expect(steps.body.steps.map((step: { node_type: string }) => step.node_type)).toEqual([
      'document_verification',
      'biometric_kyc',
      'aml_screening',
      'phone_verification',
    ]);
    expect(steps.body.steps.every((step: { status: string }) => step.status === 'pending')).toBe(true);

    const document = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/document`, {
      country: 'GB',
      id_type: 'PASSPORT',
      image_front: SANDBOX_IMAGE,
      first_name: 'Jane',
      last_name: 'Example',
    });
    expect(document.status).toBe(200);
    expect(document.body.steps[0]).toMatchObject({ node_type: 'document_verification', status: 'passed', required: true });
    const selfie = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/selfie`, { selfie: SANDBOX_IMAGE });
    expect(selfie.body.steps[1].status).toBe('passed');
    const aml = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/aml`, { full_name: 'Jane Example' });
    expect(aml.status).toBe(200);
    expect(aml.body.status).toBe('approved');

    const decision = await testApp.rest('GET', `/v1/sessions/${session.id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.status).toBe('approved');
  });

  it('given a phone step, when the end user asks for a code and confirms it over REST, then the step passes', async () => {
    const session = await newSession('standard_kyc', 'rest-steps-phone');
    const sent = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/phone/code`, { phone: '+447911123456' });
    expect(sent.status).toBe(200);
    expect(sent.body.sent_to).toMatch(/^\+44/);
    expect(sent.body.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    const confirmed = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/phone/confirm`, {
      code: '000000',
      phone: '+447911123456',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.steps.find((step: { node_type: string }) => step.node_type === 'phone_verification').status).toBe('passed');
  });

  it('given the API key instead of the session token, when it submits a step, then it is accepted like the GraphQL operation', async () => {
    const session = await newSession('aml_only', 'rest-steps-api-key');
    const aml = await testApp.rest('POST', `/v1/sessions/${session.id}/steps/aml`, {
      key: tenant.sandboxKey,
      body: { full_name: 'Jane Example' },
    });
    expect(aml.status).toBe(200);
    expect(aml.body.status).toBe('approved');
  });

  it("given one session's token, when it reads or submits another session's steps, then 404 and the other session is unchanged", async () => {
    const mine = await newSession('aml_only', 'rest-steps-mine');
    const theirs = await newSession('aml_only', 'rest-steps-theirs');
    expect((await asEndUser(mine.token, 'GET', `/v1/sessions/${theirs.id}/steps`)).status).toBe(404);
    const submitted = await asEndUser(mine.token, 'POST', `/v1/sessions/${theirs.id}/steps/aml`, { full_name: 'Jane Example' });
    expect(submitted.status).toBe(404);
    expect(submitted.headers.get('content-type')).toContain('application/problem+json');
    const after = await asEndUser(theirs.token, 'GET', `/v1/sessions/${theirs.id}/steps`);
    expect(after.body.steps[0].status).toBe('pending');
  });

  it('given a session token, when it calls a tenant route, then 401: the token opens the step routes only', async () => {
    const session = await newSession('aml_only', 'rest-steps-tenant-route');
    const read = await asEndUser(session.token, 'GET', `/v1/sessions/${session.id}`);
    expect(read.status).toBe(401);
    expect(read.body.detail).toBe('A valid x-api-key header is required.');
    const anonymous = await testApp.rest('GET', `/v1/sessions/${session.id}/steps`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.detail).toBe('A valid x-api-key or x-session-token header is required.');
  });

  it('given bad step bodies, when submitted, then 400 naming the REST field and nothing changes', async () => {
    const session = await newSession('standard_kyc', 'rest-steps-invalid');
    const alpha3 = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/document`, {
      country: 'GBR',
      id_type: 'PASSPORT',
      image_front: SANDBOX_IMAGE,
    });
    expect(alpha3.status).toBe(400);
    expect(alpha3.body.errors).toContainEqual(
      expect.objectContaining({ field: 'country', message: expect.stringContaining('did you mean GB?') }),
    );
    const unknownField = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/selfie`, {
      selfie: SANDBOX_IMAGE,
      extra: true,
    });
    expect(unknownField.status).toBe(400);
    const badCode = await asEndUser(session.token, 'POST', `/v1/sessions/${session.id}/steps/phone/confirm`, { code: '12' });
    expect(badCode.status).toBe(400);
    expect(badCode.body.errors).toContainEqual(expect.objectContaining({ field: 'code' }));
    const steps = await asEndUser(session.token, 'GET', `/v1/sessions/${session.id}/steps`);
    expect(steps.body.status).toBe('pending');
    expect(steps.body.steps.every((step: { status: string }) => step.status === 'pending')).toBe(true);
  });
});
