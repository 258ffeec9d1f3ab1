/**
 * A reviewer asks for a retake of one step (issue 16.3): the step becomes resubmission_requested
 * (`reviewer_request`), the session goes back to in_progress audited with the reviewer's name and
 * reason, the integrator's webhook hears `session.resubmission_requested`, and the end user's new
 * submission decides the session. Only reviewers, admins and the session's own keys may ask; only
 * an in-review session can be sent back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, SUBMIT_AML, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';
import { codeOf, consoleGql, makeOperator, signIn, type ConsoleCredential } from './support.js';
import { expiryForRetake } from '../../src/sessions/retake.js';

const RETAKE = /* GraphQL */ `
  mutation ($sessionId: String!, $nodeType: NodeType!, $reason: String!) {
    requestRetake(sessionId: $sessionId, nodeType: $nodeType, reason: $reason) {
      id
      status
      expiresAt
    }
  }
`;
const HOSTED_STEPS = /* GraphQL */ `
  query ($sessionId: String!) {
    hostedFlow(sessionId: $sessionId) {
      status
      steps {
        nodeType
        status
        resubmissionReason
      }
    }
  }
`;
const TTL_SECONDS = 3600;

let testApp: TestApp;
let receiver: Receiver;
let tenant: TestTenant;
let other: TestTenant;
let reviewer: ConsoleCredential;
let viewer: ConsoleCredential;
let stranger: ConsoleCredential;
let colleague: ConsoleCredential;

/** A sandbox aml_only session sent to in_review by the sandbox's PEP name; with its end-user token. */
async function inReview(key: string): Promise<{ id: string; token: string }> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `retake-${Math.random()}` },
  });
  expect(created.status).toBe(201);
  const token = tokenOf(created.body.url);
  const submitted = await gql(testApp, { sessionToken: token }, SUBMIT_AML, {
    sessionId: created.body.session_id,
    input: { fullName: 'Sandbox Pep', country: 'GB' },
  });
  expect(submitted.body.data?.submitAmlData.status, JSON.stringify(submitted.body)).toBe('in_review');
  return { id: created.body.session_id, token };
}

beforeAll(async () => {
  [testApp, receiver] = await Promise.all([
    startTestApp({ ...WEBHOOK_TEST_ENV, SESSION_TTL_SECONDS: String(TTL_SECONDS) }),
    startReceiver(),
  ]);
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.sandboxKey,
    body: { url: receiver.url, events: ['session.resubmission_requested', 'session.status_changed'] },
  });
  expect(destination.status).toBe(201);
  receiver.secret = destination.body.secret;
  [reviewer, viewer, stranger, colleague] = await Promise.all([
    makeOperator(testApp, tenant.id, 'reviewer', 'Ada Lovelace').then((email) => signIn(testApp, email)),
    makeOperator(testApp, tenant.id, 'viewer', 'Vera Viewer').then((email) => signIn(testApp, email)),
    makeOperator(testApp, other.id, 'admin', 'Other Admin').then((email) => signIn(testApp, email)),
    makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper').then((email) => signIn(testApp, email)),
  ]);
}, 60_000);
afterAll(async () => {
  await testApp?.close();
  await receiver?.close();
});

describe('asking for a retake', () => {
  it('given an in-review case whose expiry passed, when a reviewer asks for a retake, then the step waits for the end user, the session is in_progress with a renewed expiry, audited by name, the webhook hears it, and the resubmission decides', async () => {
    const { id, token } = await inReview(tenant.sandboxKey);
    // A case can wait in review past its expires_at; the end user must still have time to act.
    await testApp.app.orm.em.fork().execute(`update session set expires_at = now() - interval '1 hour' where id = ?`, [id]);
    const before = Math.floor(Date.now() / 1000);

    const asked = await consoleGql(testApp, reviewer, RETAKE, {
      sessionId: id,
      nodeType: 'aml_screening',
      reason: 'Date of birth differs from our file',
    });

    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data.requestRetake).toMatchObject({ id, status: 'in_progress' });
    expect(asked.body.data.requestRetake.expiresAt).toBeGreaterThanOrEqual(before + TTL_SECONDS);
    const seen = await gql(testApp, { sessionToken: token }, HOSTED_STEPS, { sessionId: id });
    expect(seen.body.data.hostedFlow).toEqual({
      status: 'in_progress',
      steps: [{ nodeType: 'aml_screening', status: 'resubmission_requested', resubmissionReason: 'reviewer_request' }],
    });
    const audit = await testApp.app.orm.em
      .fork()
      .execute(
        'select from_status, to_status, actor, actor_name, reason from session_status_change where session_id = ? order by created_at',
        [id],
      );
    expect(audit.at(-1)).toEqual({
      from_status: 'in_review',
      to_status: 'in_progress',
      actor: 'reviewer',
      actor_name: 'Ada Lovelace',
      reason: 'Date of birth differs from our file',
    });
    const [retake] = (
      await receiver.waitFor((all) =>
        all.some((item) => item.body.type === 'session.resubmission_requested' && item.body.data.session_id === id),
      )
    ).filter((item) => item.body.type === 'session.resubmission_requested' && item.body.data.session_id === id);
    expect(retake!.verified).toBe(true);
    expect(retake!.body.data).toMatchObject({
      node_type: 'aml_screening',
      resubmission_reason: 'reviewer_request',
      reason: 'Date of birth differs from our file',
      attempts: 1,
    });

    const resubmitted = await gql(testApp, { sessionToken: token }, SUBMIT_AML, {
      sessionId: id,
      input: { fullName: 'Jane Doe', country: 'GB' },
    });

    expect(resubmitted.body.data?.submitAmlData.status, JSON.stringify(resubmitted.body)).toBe('approved');
    const decision = await testApp.rest('GET', `/v1/sessions/${id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body).toMatchObject({ status: 'approved', node_results: { aml_screening: { status: 'passed' } } });
  });

  it('given the tenant API key, when it asks for a retake over REST, then the step is sent back as through the console', async () => {
    const { id } = await inReview(tenant.sandboxKey);

    const asked = await testApp.rest('POST', `/v1/sessions/${id}/retake`, {
      key: tenant.sandboxKey,
      body: { node_type: 'aml_screening', reason: 'Please type your full name as on your passport' },
    });

    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'in_progress', node_results: { aml_screening: { status: 'resubmission_requested' } } });
  });

  it('given another tenant or the other environment, when they ask for a retake, then it is NOT_FOUND and the case stays in review', async () => {
    const { id } = await inReview(tenant.sandboxKey);
    const variables = { sessionId: id, nodeType: 'aml_screening', reason: 'not mine' };

    const foreignOperator = await consoleGql(testApp, stranger, RETAKE, variables);
    const otherEnvironment = await gql(testApp, { key: tenant.liveKey }, RETAKE, variables);
    const otherTenant = await testApp.rest('POST', `/v1/sessions/${id}/retake`, {
      key: other.sandboxKey,
      body: { node_type: 'aml_screening', reason: 'not mine' },
    });

    expect(codeOf(foreignOperator)).toBe('NOT_FOUND');
    expect(codeOf(otherEnvironment)).toBe('NOT_FOUND');
    expect(otherTenant.status).toBe(404);
    expect((await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })).body.status).toBe('in_review');
  });

  it('given a viewer, when they ask for a retake, then it is FORBIDDEN and the case stays in review', async () => {
    const { id } = await inReview(tenant.sandboxKey);

    const asked = await consoleGql(testApp, viewer, RETAKE, { sessionId: id, nodeType: 'aml_screening', reason: 'viewers cannot' });

    expect(codeOf(asked)).toBe('FORBIDDEN');
    expect((await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })).body.status).toBe('in_review');
  });

  it('given a case a colleague claimed, when a reviewer asks for a retake, then it is SESSION_CLAIMED; the holder may, and the claim is gone', async () => {
    const { id } = await inReview(tenant.sandboxKey);
    await consoleGql(testApp, colleague, 'mutation ($id: String!) { claimSession(id: $id) { sessionId } }', { id });
    const variables = { sessionId: id, nodeType: 'aml_screening', reason: 'name again' };

    const refused = await consoleGql(testApp, reviewer, RETAKE, variables);
    const held = await consoleGql(testApp, colleague, RETAKE, variables);

    expect(codeOf(refused)).toBe('SESSION_CLAIMED');
    expect(held.body.data?.requestRetake.status).toBe('in_progress');
    const claims = await testApp.app.orm.em.fork().execute('select 1 from session_claim where session_id = ?', [id]);
    expect(claims).toEqual([]);
  });

  it('given a decided case, a step outside the workflow or a blank reason, when a reviewer asks for a retake, then each is refused and nothing changes', async () => {
    const { id } = await inReview(tenant.sandboxKey);
    const noStep = await consoleGql(testApp, reviewer, RETAKE, { sessionId: id, nodeType: 'biometric_kyc', reason: 'selfie again' });
    const blank = await consoleGql(testApp, reviewer, RETAKE, { sessionId: id, nodeType: 'aml_screening', reason: '   ' });
    expect(codeOf(noStep)).toBe('VALIDATION_FAILED');
    expect(noStep.body.errors[0].extensions.fieldErrors).toEqual([expect.objectContaining({ field: 'nodeType', code: 'not_in_workflow' })]);
    expect(codeOf(blank)).toBe('VALIDATION_FAILED');
    expect((await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })).body.status).toBe('in_review');

    await testApp.rest('POST', `/v1/sessions/${id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'declined', reason: 'sanctioned' },
    });
    const late = await consoleGql(testApp, reviewer, RETAKE, { sessionId: id, nodeType: 'aml_screening', reason: 'too late' });

    expect(codeOf(late)).toBe('INVALID_TRANSITION');
    expect((await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })).body.status).toBe('declined');
  });
});

describe('the expiry of a case sent back', () => {
  const now = new Date('2026-11-25T12:00:00Z');

  it('given less than a session lifetime left (or none), then the end user gets a whole lifetime from now', () => {
    expect(expiryForRetake(new Date('2026-11-25T11:00:00Z'), TTL_SECONDS, now)).toEqual(new Date('2026-11-25T13:00:00Z'));
    expect(expiryForRetake(new Date('2026-11-25T12:30:00Z'), TTL_SECONDS, now)).toEqual(new Date('2026-11-25T13:00:00Z'));
  });

  it('given more than a session lifetime left, then expires_at stays', () => {
    expect(expiryForRetake(new Date('2026-11-26T12:00:00Z'), TTL_SECONDS, now)).toEqual(new Date('2026-11-26T12:00:00Z'));
  });
});
