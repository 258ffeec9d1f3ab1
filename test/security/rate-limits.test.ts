/**
 * Rate limits, failed-authentication throttling and quotas (issue 13.5): 429 `rate_limited` with
 * `Retry-After`, `RateLimit` and `RateLimit-Policy`, on REST, GraphQL and graphql-ws; per key, per
 * address, per session link; engine quotas per tenant; distinct SMS numbers per session and
 * tenant; counters shared by two instances on a PostgreSQL server.
 *
 * Each test speaks from its own client address (TRUST_PROXY and X-Forwarded-For) with fresh keys,
 * so counters of other tests, files or runs on a shared server database never meet its own.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, tokenOf } from '../sessions/support.js';

const LIST_LISTS = /* GraphQL */ `
  {
    lists {
      id
    }
  }
`;
const REQUEST_CODE = /* GraphQL */ `
  mutation ($sessionId: String!, $phone: String) {
    requestPhoneCode(sessionId: $sessionId, phone: $phone) {
      sentTo
    }
  }
`;

/** A client address no other test uses (documentation range 198.18.0.0/15 is not routed anywhere). */
function freshAddress(): string {
  return `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** A UK mobile number no other run is likely to use. */
function freshPhone(): string {
  return `+447400${randomInt(100_000, 1_000_000)}`;
}

/** A REST call from one client address. */
function restFrom(testApp: TestApp, address: string, method: string, path: string, key: string | null, body?: unknown) {
  return testApp.rest(method, path, { key, body, headers: { 'x-forwarded-for': address } });
}

/** A GraphQL call over HTTP from one client address, with an API key or a session token. */
async function graphqlFrom(
  testApp: TestApp,
  address: string,
  credential: { key: string } | { sessionToken: string },
  query: string,
  variables: Record<string, unknown> = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': address };
  if ('key' in credential) headers['x-api-key'] = credential.key;
  else headers['x-session-token'] = credential.sessionToken;
  const response = await fetch(`${testApp.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Asserts the 429 every limit answers with, naming `policy` with quota `quota` per `window` seconds. */
function expectRateLimited(response: { status: number; headers: Headers }, policy: string, quota: number, window: number): void {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(window);
  expect(response.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${quota};w=${window}`);
  expect(response.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

describe('rate limits', () => {
  const KEY_REQUESTS = 5;
  const ADDRESS_REQUESTS = 12;
  const LINK_REQUESTS = 4;
  const AUTH_FAILURES = 3;
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({
      RATE_LIMIT_ENABLED: 'true',
      TRUST_PROXY: 'true',
      RATE_LIMIT_KEY_REQUESTS: String(KEY_REQUESTS),
      RATE_LIMIT_KEY_WINDOW_SECONDS: '60',
      RATE_LIMIT_ADDRESS_REQUESTS: String(ADDRESS_REQUESTS),
      RATE_LIMIT_ADDRESS_WINDOW_SECONDS: '60',
      RATE_LIMIT_SESSION_TOKEN_REQUESTS: String(LINK_REQUESTS),
      RATE_LIMIT_SESSION_TOKEN_WINDOW_SECONDS: '60',
      RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES),
      RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: '60',
      RATE_LIMIT_AUTH_FAILURE_BLOCK_SECONDS: '120',
    });
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('given a key within its limit, when it calls REST, then every answer says what remains; past it REST and GraphQL answer 429', async () => {
    const tenant = await testApp.tenant();
    const address = freshAddress();
    for (let call = 1; call <= KEY_REQUESTS; call += 1) {
      const response = await restFrom(testApp, address, 'GET', '/v1/workflows', tenant.sandboxKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"key";q=${KEY_REQUESTS};w=60`);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${KEY_REQUESTS - call};t=\\d+$`));
    }
    const refused = await restFrom(testApp, address, 'GET', '/v1/workflows', tenant.sandboxKey);
    expectRateLimited(refused, 'key', KEY_REQUESTS, 60);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited' });

    const viaGraphQL = await graphqlFrom(testApp, address, { key: tenant.sandboxKey }, LIST_LISTS);
    expectRateLimited(viaGraphQL, 'key', KEY_REQUESTS, 60);
    expect(viaGraphQL.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'key' });
    expect(viaGraphQL.body.errors[0].extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // The tenant's other key and another tenant's key have limits of their own.
    const other = await testApp.tenant();
    expect((await restFrom(testApp, address, 'GET', '/v1/workflows', tenant.liveKey)).status).toBe(200);
    expect((await restFrom(testApp, address, 'GET', '/v1/workflows', other.sandboxKey)).status).toBe(200);
  });

  it('given a refused request, when it would have changed something, then nothing changed', async () => {
    const tenant = await testApp.tenant();
    const address = freshAddress();
    for (let call = 0; call < KEY_REQUESTS; call += 1)
      expect((await restFrom(testApp, address, 'GET', '/v1/lists', tenant.sandboxKey)).status).toBe(200);
    const refused = await restFrom(testApp, address, 'POST', '/v1/lists', tenant.sandboxKey, { name: 'never made', type: 'name' });
    expectRateLimited(refused, 'key', KEY_REQUESTS, 60);
    const fresh = await testApp.issueKey(tenant.id, 'sandbox');
    const lists = await restFrom(testApp, freshAddress(), 'GET', '/v1/lists', fresh.key);
    expect(lists.body.lists.map((list: { name: string }) => list.name)).not.toContain('never made');
  });

  it('given one address with many keys, when it passes the address limit, then every key is refused from there but not from elsewhere', async () => {
    const address = freshAddress();
    const tenants: TestTenant[] = [];
    for (let index = 0; index < 3; index += 1) tenants.push(await testApp.tenant());
    let call = 0;
    for (; call < ADDRESS_REQUESTS; call += 1) {
      const response = await restFrom(testApp, address, 'GET', '/v1/workflows', tenants[call % 3]!.sandboxKey);
      expect(response.status).toBe(200);
    }
    expectRateLimited(await restFrom(testApp, address, 'GET', '/v1/workflows', tenants[0]!.liveKey), 'address', ADDRESS_REQUESTS, 60);
    expect((await restFrom(testApp, freshAddress(), 'GET', '/v1/workflows', tenants[0]!.liveKey)).status).toBe(200);
  });

  it('given an end-user link, when its page calls past the link limit, then the end-user operation is refused', async () => {
    const tenant = await testApp.tenant();
    const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: `rl-${randomUUID()}` });
    expect(created.status).toBe(201);
    const sessionToken = tokenOf(created.body.url);
    const query = 'query ($id: String!) { verificationSteps(sessionId: $id) { status } }';
    const address = freshAddress();
    for (let call = 0; call < LINK_REQUESTS; call += 1) {
      const response = await graphqlFrom(testApp, address, { sessionToken }, query, { id: created.body.session_id });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.data.verificationSteps.status).toBe('pending');
    }
    const refused = await graphqlFrom(testApp, address, { sessionToken }, query, { id: created.body.session_id });
    expectRateLimited(refused, 'session_link', LINK_REQUESTS, 60);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('given an address guessing keys, when it passes the failure limit, then its wrong keys are refused but a valid key from it is not (audit: NAT)', async () => {
    const tenant = await testApp.tenant();
    const address = freshAddress();
    let status = 401;
    let attempts = 0;
    for (; status === 401 && attempts < AUTH_FAILURES + 3; attempts += 1) {
      status = (await restFrom(testApp, address, 'GET', '/v1/workflows', `sk_sandbox_${randomUUID()}`)).status;
    }
    expect(status).toBe(429);
    // Each failure below the limit is answered as itself; the address is blocked after one more.
    expect(attempts).toBe(AUTH_FAILURES + 2);
    const blocked = await restFrom(testApp, address, 'GET', '/v1/workflows', `sk_sandbox_${randomUUID()}`);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limited');
    expect(blocked.headers.get('ratelimit-policy')).toBe(`"auth_failures";q=${AUTH_FAILURES};w=60`);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((await restFrom(testApp, address, 'GET', '/v1/workflows', tenant.sandboxKey)).status).toBe(200);
    expect((await restFrom(testApp, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey)).status).toBe(200);
  });

  it('given graphql-ws, when subscribe messages pass the key limit, then the operation gets a RATE_LIMITED error', async () => {
    const tenant = await testApp.tenant();
    const client = testApp.ws({ 'x-api-key': tenant.sandboxKey });
    const codes: string[] = [];
    // The connection itself is one request; each operation is another.
    for (let operation = 0; operation < KEY_REQUESTS; operation += 1) {
      const code = await new Promise<string>((resolve) => {
        const dispose = client.subscribe(
          { query: LIST_LISTS },
          {
            next: (result) => resolve(result.errors ? String(result.errors[0]?.extensions?.code) : 'ok'),
            error: (error) => resolve(String((error as { extensions?: { code?: string } }[])[0]?.extensions?.code ?? error)),
            complete: () => resolve('ok'),
          },
        );
        void dispose;
      });
      codes.push(code);
    }
    expect(codes.slice(0, KEY_REQUESTS - 1).every((code) => code === 'ok')).toBe(true);
    expect(codes.at(-1)).toBe('RATE_LIMITED');
  });
});

describe('engine quotas and SMS numbers', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({
      RATE_LIMIT_ENABLED: 'true',
      TRUST_PROXY: 'true',
      QUOTA_POA_PER_HOUR: '1',
      QUOTA_DOCUMENT_PER_HOUR: '1',
      OTP_MAX_NUMBERS_PER_SESSION: '1',
      OTP_MAX_NUMBERS_PER_TENANT_HOUR: '2',
    });
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('given a tenant that used its hourly proof-of-address quota, when it checks another, then 429 poa_quota; another tenant is unaffected', async () => {
    const tenant = await testApp.tenant();
    const other = await testApp.tenant();
    const body = { document_image: 'data:application/pdf;base64,JVBERi0xLjQKJSVFT0YK' };
    const first = await restFrom(testApp, freshAddress(), 'POST', '/v1/poa', tenant.liveKey, body);
    expect(first.status).not.toBe(429);
    expectRateLimited(await restFrom(testApp, freshAddress(), 'POST', '/v1/poa', tenant.liveKey, body), 'poa_quota', 1, 3600);
    expect((await restFrom(testApp, freshAddress(), 'POST', '/v1/poa', other.liveKey, body)).status).not.toBe(429);
    // The quota is per environment: sandbox runs no engine and is not counted.
    const sandbox = await restFrom(testApp, freshAddress(), 'POST', '/v1/poa', tenant.sandboxKey, { document_image: 'sandbox:approve' });
    expect(sandbox.status).not.toBe(429);
  });

  it('given a tenant that used its hourly document quota, when a live session submits a document, then the step answers RATE_LIMITED', async () => {
    const tenant = await testApp.tenant();
    const image = 'data:image/jpeg;base64,/9j/4AAQ';
    await restFrom(testApp, freshAddress(), 'POST', '/v1/id-verification', tenant.liveKey, {
      country: 'GB',
      id_type: 'PASSPORT',
      image_front: image,
    });
    const created = await createSession(testApp, tenant.liveKey, { workflow_id: 'standard_kyc', vendor_data: `q-${randomUUID()}` });
    expect(created.status).toBe(201);
    const submitted = await graphqlFrom(
      testApp,
      freshAddress(),
      { sessionToken: tokenOf(created.body.url) },
      'mutation ($id: String!, $input: DocumentStepInput!) { submitDocument(sessionId: $id, input: $input) { status } }',
      { id: created.body.session_id, input: { country: 'GB', idType: 'PASSPORT', imageFront: image } },
    );
    expect(submitted.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'document_quota' });
    const steps = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.liveKey });
    expect(steps.body.status).toBe('pending');
  });

  it('given codes sent to as many numbers as the caps allow, when another number is asked for, then 429 names the cap; a used number still passes it', async () => {
    const tenant = await testApp.tenant();
    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.liveKey,
      body: { name: 'Phone only', nodes: [{ type: 'phone_verification', required: true, provider: 'openkyc:sms_otp' }] },
    });
    expect(workflow.status).toBe(201);
    const sessions: { id: string; token: string }[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await createSession(testApp, tenant.liveKey, {
        workflow_id: workflow.body.workflow_id,
        vendor_data: `sms-${randomUUID()}`,
      });
      expect(created.status).toBe(201);
      sessions.push({ id: created.body.session_id, token: tokenOf(created.body.url) });
    }
    const ask = (session: { id: string; token: string }, phone: string) =>
      graphqlFrom(testApp, freshAddress(), { sessionToken: session.token }, REQUEST_CODE, { sessionId: session.id, phone });

    const [first, second, third] = sessions as [(typeof sessions)[0], (typeof sessions)[0], (typeof sessions)[0]];
    const firstPhone = freshPhone();
    expect((await ask(first, firstPhone)).body.data?.requestPhoneCode.sentTo).toBeDefined();
    // Per session: one number; another number is the cap (before the 30 s interval between codes).
    expectRateLimited(await ask(first, freshPhone()), 'otp_session_numbers', 1, 3600);

    expect((await ask(second, freshPhone())).body.data?.requestPhoneCode.sentTo).toBeDefined();
    // Per tenant: two numbers within the hour; a third number is refused, the first one still passes the cap.
    const thirdNumber = await ask(third, freshPhone());
    expectRateLimited(thirdNumber, 'otp_tenant_numbers', 2, 3600);
    expect(thirdNumber.body.errors[0].extensions.policy).toBe('otp_tenant_numbers');
    const usedNumber = await ask(third, firstPhone);
    expect(usedNumber.body.data?.requestPhoneCode.sentTo, JSON.stringify(usedNumber.body)).toBeDefined();
  });
});

/** Two servers on one database with the same limits, started before and closed after a describe's tests. */
function twoServers(env: Record<string, string>): { first: () => TestApp; second: () => TestApp } {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await startTestApp({ RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: 'true', RATE_LIMIT_KEY_WINDOW_SECONDS: '60', ...env });
    second = await startTestApp({ RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: 'true', RATE_LIMIT_KEY_WINDOW_SECONDS: '60', ...env });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });
  return { first: () => first, second: () => second };
}

describe.runIf(process.env.DATABASE_URL)('rate limits across instances (PostgreSQL server)', () => {
  const KEY_REQUESTS = 6;
  const servers = twoServers({ RATE_LIMIT_KEY_REQUESTS: String(KEY_REQUESTS) });

  it('given two servers on one database, when a key calls both, then they share one count', async () => {
    const [first, second] = [servers.first(), servers.second()];
    const tenant = await first.tenant();
    for (let call = 0; call < KEY_REQUESTS; call += 1) {
      const server = call % 2 === 0 ? first : second;
      expect((await restFrom(server, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey)).status).toBe(200);
    }
    expectRateLimited(await restFrom(first, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey), 'key', KEY_REQUESTS, 60);
    expectRateLimited(await restFrom(second, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey), 'key', KEY_REQUESTS, 60);
  });
});

describe.runIf(process.env.DATABASE_URL)('rate-limit counters reserved in blocks (PostgreSQL server)', () => {
  const KEY_REQUESTS = 1000;
  const CALLS = 30;
  // The key's limit is the tighter one, so the header names it.
  const servers = twoServers({ RATE_LIMIT_KEY_REQUESTS: String(KEY_REQUESTS), RATE_LIMIT_ADDRESS_REQUESTS: '100000' });

  it('given a key far from its limit, when it calls many times, then each answer counts down exactly and the database was written a block at a time', async () => {
    const [first, second] = [servers.first(), servers.second()];
    const tenant = await first.tenant();
    for (let call = 1; call <= CALLS; call += 1) {
      const response = await restFrom(first, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${KEY_REQUESTS - call};t=\\d+$`));
    }
    // The shared count holds every point this process took: what it spent and the rest of its block.
    const digest = createHash('sha256').update(tenant.sandboxKey).digest('base64url').slice(0, 24);
    const [row] = await first.app.orm.em
      .fork()
      .execute<{ points: number }[]>('select points from rate_limit where key = ?', [`rl_key:${digest}`]);
    expect(row!.points).toBeGreaterThan(CALLS);
    expect(row!.points).toBeLessThanOrEqual(CALLS + 64);
    // Another instance counts from the shared total: its first answer already knows the block the first one holds.
    const elsewhere = await restFrom(second, freshAddress(), 'GET', '/v1/workflows', tenant.sandboxKey);
    expect(elsewhere.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${KEY_REQUESTS - row!.points - 1};t=\\d+$`));
  });
});
