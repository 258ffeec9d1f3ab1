import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/log-capture.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, SUBMIT_DOCUMENT, tokenOf } from './support.js';

const STEPS = /* GraphQL */ `
  query ($sessionId: String!) {
    verificationSteps(sessionId: $sessionId) {
      status
    }
  }
`;

const log = captureLog();

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({}, { logger: log.logger });
  tenant = await testApp.tenant();
});
afterAll(async () => {
  await testApp?.close();
});

/** A new standard_kyc sandbox session: its id and the token of its URL. */
async function newSession(vendorData = `user-${Math.random()}`): Promise<{ id: string; token: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: vendorData });
  expect(created.status).toBe(201);
  return { id: created.body.session_id, token: tokenOf(created.body.url) };
}

/** Moves a session's `expires_at` into the past, as time would. */
async function expire(sessionId: string): Promise<void> {
  await testApp.app.orm.em.fork().execute(`update session set expires_at = now() - interval '1 second' where id = ?`, [sessionId], 'run');
}

/** What the end user gets for the steps query and the /verify page with a token. */
async function endUserView(sessionId: string, token: string) {
  const steps = await gql(testApp, { sessionToken: token }, STEPS, { sessionId });
  const submit = await gql(testApp, { sessionToken: token }, SUBMIT_DOCUMENT, {
    sessionId,
    input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
  });
  const page = await fetch(`${testApp.url}/verify/${sessionId}?token=${encodeURIComponent(token)}`);
  return {
    steps: steps.body.errors?.[0]?.extensions?.code ?? 'ok',
    submit: submit.body.errors?.[0]?.extensions?.code ?? 'ok',
    page: page.status,
  };
}

describe('end-user link token lifetime', () => {
  it('given an unexpired session, when its token is used, then the steps, the submissions and the page work', async () => {
    const session = await newSession();
    expect(await endUserView(session.id, session.token)).toEqual({ steps: 'ok', submit: 'ok', page: 200 });
  });

  it('given a session past its expires_at, when its token is used, then every end-user operation and the page answer as for an invalid token', async () => {
    const session = await newSession();
    await expire(session.id);

    const expired = await endUserView(session.id, session.token);

    const invalid = await endUserView(session.id, 'not-the-token');
    expect(expired).toEqual(invalid);
    expect(expired).toEqual({ steps: 'NOT_FOUND', submit: 'NOT_FOUND', page: 404 });
  });

  it('given a decided session past its expires_at, when its token reads the status, then it is refused too, while the API key still reads it', async () => {
    const session = await newSession();
    await testApp.app.orm.em.fork().execute(`update session set status = 'approved' where id = ?`, [session.id], 'run');
    await expire(session.id);

    expect((await gql(testApp, { sessionToken: session.token }, STEPS, { sessionId: session.id })).body.errors[0].extensions.code).toBe(
      'NOT_FOUND',
    );
    expect((await testApp.rest('GET', `/v1/sessions/${session.id}`, { key: tenant.sandboxKey })).status).toBe(200);
  });
});

describe('request logs', () => {
  it('given a real server logging requests, when the token travels in the URL and the header and personal data in a filter, then the log has the requests but none of those values', async () => {
    const vendorData = `person-${Math.random().toString(36).slice(2)}`;
    const session = await newSession(vendorData);
    log.clear();

    await fetch(`${testApp.url}/verify/${session.id}?token=${encodeURIComponent(session.token)}`);
    await gql(testApp, { sessionToken: session.token }, STEPS, { sessionId: session.id });
    await testApp.rest('GET', `/v1/sessions?vendor_data=${vendorData}`, { key: tenant.sandboxKey });

    expect(log.text()).toContain(`/verify/${session.id}?token=[redacted]`);
    expect(log.text()).toContain('/v1/sessions?vendor_data=[redacted]');
    expect(log.text()).not.toContain(session.token);
    expect(log.text()).not.toContain(encodeURIComponent(session.token));
    expect(log.text()).not.toContain(vendorData);
    expect(log.text()).not.toContain(tenant.sandboxKey);
  });
});
