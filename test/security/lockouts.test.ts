/**
 * Lock-outs that only stop the guilty (issue 28 point 2; audit N2, N3, N4, N6; shaped like
 * m4_rate_limits.mjs `xff`/`wrongkeys`, ws_proxy_block.mjs and console_signin.mjs). The service
 * sits behind one trusted proxy (TRUSTED_PROXIES=127.0.0.1, the test client's own address), which
 * appends the client's address to X-Forwarded-For; anything before it is the client's to invent.
 * Each test uses client addresses of its own, so counters never meet across tests or runs.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { consoleGql, makeOperator, OPERATOR_PASSWORD, signIn } from '../console/support.js';

const AUTH_FAILURES = 3;
const SIGN_IN_FAILURES = 3;
const ACCOUNT_SLOW_AFTER = 4;

/** Where {@link freshAddress} goes on: a random start, so reruns on one server database do not meet earlier runs' counters. */
let nextAddress = randomInt(0, 1 << 17);
/** A client address no other test of this file used (198.18.0.0/15, RFC 2544): random draws met a blocked one now and then. */
const freshAddress = () => {
  const n = nextAddress++ % (1 << 17);
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
};

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({
    RATE_LIMIT_ENABLED: 'true',
    TRUSTED_PROXIES: '127.0.0.1',
    RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES),
    RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: '60',
    RATE_LIMIT_AUTH_FAILURE_BLOCK_SECONDS: '120',
    SIGN_IN_MAX_FAILURES: String(SIGN_IN_FAILURES),
    SIGN_IN_ACCOUNT_SLOW_AFTER: String(ACCOUNT_SLOW_AFTER),
    SIGN_IN_ACCOUNT_DELAY_MS: '50',
  });
  tenant = await testApp.tenant();
});
afterAll(() => testApp?.close());

/** A REST call as the proxy forwards it: whatever the client sent in X-Forwarded-For, then the client's address. */
const restVia = (forwarded: string, key: string) =>
  testApp.rest('GET', '/v1/workflows', { key, headers: { 'x-forwarded-for': forwarded } });

/** A console sign-in as the proxy forwards it. */
async function signInVia(forwarded: string, body: Record<string, unknown>) {
  const response = await fetch(`${testApp.url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { code?: string };
  return { status: response.status, code: json.code, retryAfter: response.headers.get('retry-after') };
}

/** Opens a graphql-ws socket as the proxy forwards it; resolves with `ack` or the close code. */
function socketVia(forwarded: string, connectionParams: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${testApp.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
      headers: { 'x-forwarded-for': forwarded },
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') {
        resolve('ack');
        socket.close();
      }
    });
    socket.on('close', (code) => resolve(String(code)));
    socket.on('error', () => resolve('error'));
  });
}

describe('client address behind a trusted proxy (audit N2)', () => {
  it('given wrong keys each with another spoofed first X-Forwarded-For, when the proxy appended the real client, then the real client is blocked after the limit', async () => {
    const client = freshAddress();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < AUTH_FAILURES + 3; attempt += 1)
      statuses.push((await restVia(`${freshAddress()}, ${client}`, `idv_sandbox_${randomUUID()}`)).status);
    expect(statuses.slice(0, AUTH_FAILURES + 1)).toEqual(Array(AUTH_FAILURES + 1).fill(401));
    expect(statuses.slice(AUTH_FAILURES + 1)).toEqual([429, 429]);
  });

  it('given a TRUSTED_PROXIES value that is neither an address, a CIDR nor a hop count, when the configuration loads, then it is refused naming it', async () => {
    await expect(startTestApp({ TRUSTED_PROXIES: '10.0.0.0/8, proxy.example' })).rejects.toThrow(/TRUSTED_PROXIES.*proxy\.example/s);
  });
});

describe('failed API keys stop only the failing credential and address', () => {
  it('given an address that passed the failure limit with wrong keys, when it sends a valid key, then 200; its next wrong key is 429', async () => {
    const client = freshAddress();
    for (let attempt = 0; attempt <= AUTH_FAILURES; attempt += 1) await restVia(client, `idv_sandbox_${randomUUID()}`);
    expect((await restVia(client, `idv_sandbox_${randomUUID()}`)).status).toBe(429);
    const valid = await restVia(client, tenant.sandboxKey);
    expect(valid.status).toBe(200);
    expect((await restVia(client, `idv_sandbox_${randomUUID()}`)).status).toBe(429);
  });

  it('given one wrong key tried from many addresses, when it passes the failure limit, then that key is refused from a new address; valid keys there are not', async () => {
    const wrongKey = `idv_live_${randomUUID()}`;
    for (let attempt = 0; attempt <= AUTH_FAILURES; attempt += 1) expect((await restVia(freshAddress(), wrongKey)).status).toBe(401);
    const refused = await restVia(freshAddress(), wrongKey);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/with this credential/);
    expect((await restVia(freshAddress(), tenant.liveKey)).status).toBe(200);
  });
});

describe('WebSockets are charged to the same client address as HTTP (audit N3)', () => {
  it("given one client's wrong-key sockets past the limit, when other clients open sockets through the same proxy, then they are acknowledged, and so is the guilty client's valid key", async () => {
    const guilty = freshAddress();
    const closes: string[] = [];
    for (let attempt = 0; attempt < AUTH_FAILURES + 2; attempt += 1)
      closes.push(await socketVia(guilty, { 'x-api-key': `idv_sandbox_${randomUUID()}` }));
    expect(closes.slice(0, AUTH_FAILURES + 1)).toEqual(Array(AUTH_FAILURES + 1).fill('4403'));
    expect(closes.at(-1)).toBe('4429');
    expect(await socketVia(freshAddress(), { 'x-api-key': tenant.sandboxKey })).toBe('ack');
    expect(await socketVia(guilty, { 'x-api-key': tenant.sandboxKey })).toBe('ack');
    expect(await socketVia(guilty, { 'x-api-key': `idv_sandbox_${randomUUID()}` })).toBe('4429');
  });
});

describe('console sign-in brake (audit N4)', () => {
  it('given wrong passwords for a real and for a made-up e-mail from one address, when repeated, then both get the same answers', async () => {
    const real = await makeOperator(testApp, tenant.id, 'viewer');
    const madeUp = `nobody-${randomUUID()}@example.com`;
    const answers = async (email: string) => {
      const client = freshAddress();
      const out: string[] = [];
      for (let attempt = 0; attempt <= SIGN_IN_FAILURES; attempt += 1) {
        const answer = await signInVia(client, { email, password: `wrong ${attempt}` });
        out.push(`${answer.status}:${answer.code}`);
      }
      return out;
    };
    const forReal = await answers(real);
    expect(forReal).toEqual([...Array(SIGN_IN_FAILURES - 1).fill('401:unauthenticated'), ...Array(2).fill('429:account_locked')]);
    expect(await answers(madeUp)).toEqual(forReal);
  });

  it('given a stranger who made the e-mail fail from their address, when the operator signs in from theirs, then 200; the stranger stays refused, right password included', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer');
    const stranger = freshAddress();
    for (let attempt = 0; attempt < SIGN_IN_FAILURES; attempt += 1) await signInVia(stranger, { email, password: `guess ${attempt}` });
    const strangerRight = await signInVia(stranger, { email, password: OPERATOR_PASSWORD });
    expect(strangerRight).toMatchObject({ status: 429, code: 'account_locked' });
    expect(Number(strangerRight.retryAfter)).toBeGreaterThan(0);
    expect((await signInVia(freshAddress(), { email, password: OPERATOR_PASSWORD })).status).toBe(200);
  });

  it('given failures on one e-mail from many addresses past the account threshold, when the operator signs in, then it is only slowed: 200', async () => {
    const email = await makeOperator(testApp, tenant.id, 'admin');
    for (let attempt = 0; attempt < ACCOUNT_SLOW_AFTER * 2; attempt += 1)
      expect((await signInVia(freshAddress(), { email, password: `spray ${attempt}` })).status).toBe(401);
    expect((await signInVia(freshAddress(), { email, password: OPERATOR_PASSWORD })).status).toBe(200);
  });
});

describe('password change ends the other sign-ins (audit N6)', () => {
  it('given two sign-ins, when the password is changed through one, then the other is signed out and the first goes on', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');
    const first = await signIn(testApp, email);
    const second = await signIn(testApp, email);
    const me = '{ currentOperator { email } }';
    expect((await consoleGql(testApp, second, me)).body.data?.currentOperator.email).toBe(email);
    const changed = await consoleGql(
      testApp,
      first,
      'mutation ($c: String!, $n: String!) { changeOwnPassword(currentPassword: $c, newPassword: $n) }',
      {
        c: OPERATOR_PASSWORD,
        n: `${OPERATOR_PASSWORD}-new-${randomUUID()}`,
      },
    );
    expect(changed.body.errors).toBeUndefined();
    expect((await consoleGql(testApp, second, me)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await consoleGql(testApp, first, me)).body.data?.currentOperator.email).toBe(email);
  });
});
