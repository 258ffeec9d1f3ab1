import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { OTP_MAX_ATTEMPTS } from '../../src/engines/phone/otp.js';
import { createSmsProvider, DevelopmentSmsProvider, HttpSmsGatewayProvider } from '../../src/engines/phone/sms.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, tokenOf } from '../sessions/support.js';

const GATEWAY_TOKEN = 'gateway-token-for-tests';

const REQUEST_CODE = /* GraphQL */ `
  mutation ($sessionId: String!, $phone: String) {
    requestPhoneCode(sessionId: $sessionId, phone: $phone) {
      sentTo
      expiresAt
    }
  }
`;
const CONFIRM_CODE = /* GraphQL */ `
  mutation ($sessionId: String!, $input: PhoneConfirmStepInput!) {
    confirmPhoneCode(sessionId: $sessionId, input: $input) {
      status
      steps {
        nodeType
        status
      }
    }
  }
`;

/** One message the fake SMS gateway received. */
interface GatewayMessage {
  to: string;
  text: string;
  authorization: string | undefined;
}

/** A real HTTP SMS gateway on 127.0.0.1:0 that records messages and answers a chosen status. */
class FakeGateway {
  readonly messages: GatewayMessage[] = [];
  /** Status of the next answers; 202 accepts. */
  answerStatus = 202;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (this.answerStatus < 300) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; text: string };
          this.messages.push({ to: body.to, text: body.text, authorization: request.headers.authorization });
        }
        response.writeHead(this.answerStatus, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/messages`;
  }

  /** The code in the last message sent to `phone`. */
  codeFor(phone: string): string {
    const message = this.messages.filter((candidate) => candidate.to === phone).at(-1);
    const code = message?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code was sent to ${phone}`);
    return code;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A valid UK mobile number no other run is likely to use (the per-number limit spans sessions and runs). */
function freshPhone(): string {
  return `+447400${randomInt(100_000, 1_000_000)}`;
}

/** A wrong code that differs from `code`. */
function wrongCode(code: string): string {
  return code === '999999' ? '999998' : '999999';
}

describe('live phone verification (openkyc:sms_otp)', () => {
  const gateway = new FakeGateway();
  let testApp: TestApp;
  let tenant: TestTenant;
  /** The phone-only workflow, composed in each environment (workflows belong to one). */
  const workflowIds: Record<string, string> = {};

  beforeAll(async () => {
    const gatewayUrl = await gateway.start();
    testApp = await startTestApp({ SMS_PROVIDER: 'http', SMS_GATEWAY_URL: gatewayUrl, SMS_GATEWAY_TOKEN: GATEWAY_TOKEN });
    tenant = await testApp.tenant();
    for (const key of [tenant.liveKey, tenant.sandboxKey]) {
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key,
        body: { name: 'Phone only', nodes: [{ type: 'phone_verification', required: true, provider: 'openkyc:sms_otp' }] },
      });
      expect(workflow.status).toBe(201);
      workflowIds[key] = workflow.body.workflow_id;
    }
  });
  afterAll(async () => {
    await testApp?.close();
    await gateway.close();
  });
  beforeEach(() => {
    gateway.answerStatus = 202;
  });

  /** Creates a live session on the phone-only workflow; returns its id and end-user token. */
  async function liveSession(key = tenant.liveKey): Promise<{ id: string; token: string }> {
    const created = await createSession(testApp, key, { workflow_id: workflowIds[key], vendor_data: `phone-${randomUUID()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.session_id, token: tokenOf(created.body.url) };
  }

  /** Posts a GraphQL operation as the end user; returns status, headers and body. */
  async function asEndUser(token: string, query: string, variables: Record<string, unknown>) {
    const response = await fetch(`${testApp.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': token },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }

  async function requestCode(session: { id: string; token: string }, phone: string) {
    return asEndUser(session.token, REQUEST_CODE, { sessionId: session.id, phone });
  }

  async function confirm(session: { id: string; token: string }, code: string) {
    return asEndUser(session.token, CONFIRM_CODE, { sessionId: session.id, input: { code } });
  }

  async function nodeStatus(sessionId: string): Promise<{ session: string; node: string; details: any }> {
    const detail = await testApp.rest('GET', `/v1/sessions/${sessionId}`, { key: tenant.liveKey });
    const node = detail.body.node_results.phone_verification;
    return { session: detail.body.status, node: node.status, details: node.details };
  }

  /** Moves every code of a session back in time, as waiting would. */
  async function backdateCodes(sessionId: string, seconds: number): Promise<void> {
    await testApp.app.orm.em
      .fork()
      .execute(`update phone_otp set created_at = created_at - make_interval(secs => ?) where session_id = ?`, [seconds, sessionId]);
  }

  it('given a live phone-only session, when a code is requested and confirmed, then the gateway got it and the session is approved', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    const requested = await requestCode(session, phone);
    expect(requested.body.errors).toBeUndefined();
    expect(requested.body.data.requestPhoneCode.sentTo).toMatch(/^\+44•+\d{3}$/);
    const expiresIn = requested.body.data.requestPhoneCode.expiresAt - Math.floor(Date.now() / 1000);
    expect(expiresIn).toBeGreaterThan(590);
    expect(expiresIn).toBeLessThanOrEqual(600);
    const message = gateway.messages.at(-1)!;
    expect(message).toMatchObject({ to: phone, authorization: `Bearer ${GATEWAY_TOKEN}` });
    expect(message.text).toMatch(/\b\d{6}\b/);

    const confirmed = await confirm(session, gateway.codeFor(phone));
    expect(confirmed.body.errors).toBeUndefined();
    expect(confirmed.body.data.confirmPhoneCode).toEqual({
      status: 'approved',
      steps: [{ nodeType: 'phone_verification', status: 'passed' }],
    });
    const stored = await nodeStatus(session.id);
    expect(stored).toMatchObject({ session: 'approved', node: 'passed' });
    expect(stored.details).toMatchObject({ result_code: 'clear', phone, checks: { code_match: 'passed', line_risk: 'passed' } });
  });

  it('given an issued code, when reading the table, then only a keyed digest is stored, never the code', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    expect((await requestCode(session, phone)).body.errors).toBeUndefined();
    const code = gateway.codeFor(phone);
    const rows = await testApp.app.orm.em.fork().execute(`select * from phone_otp where session_id = ?`, [session.id]);
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, unknown>;
    expect(row.code_digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(String(row.code_digest)).not.toContain(code);
    expect(Object.values(row).map(String)).not.toContain(code);
    expect(row).toMatchObject({ phone: null, status: 'active', attempts: 0 });
    // The number itself is kept only as its keyed digest (audit N11).
    expect(row.phone_digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(row)).not.toContain(phone.slice(1));
  });

  it('given a wrong code, when confirming, then 422 otp_invalid with the attempts left and the step stays pending', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    await requestCode(session, phone);
    const code = gateway.codeFor(phone);
    const wrong = await confirm(session, wrongCode(code));
    expect(wrong.body.data).toBeNull();
    expect(wrong.body.errors[0].extensions).toMatchObject({
      code: 'OTP_INVALID',
      attemptsRemaining: OTP_MAX_ATTEMPTS - 1,
      fieldErrors: [{ field: 'code', code: 'mismatch' }],
    });
    expect(await nodeStatus(session.id)).toMatchObject({ session: 'pending', node: 'pending' });
    // The right code still works after a slip.
    const confirmed = await confirm(session, code);
    expect(confirmed.body.data.confirmPhoneCode.status).toBe('approved');
  });

  it('given five wrong codes, when confirming, then the code is dead, the step failed and the session declined', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    await requestCode(session, phone);
    const code = gateway.codeFor(phone);
    for (let attempt = 1; attempt < OTP_MAX_ATTEMPTS; attempt++) {
      const wrong = await confirm(session, wrongCode(code));
      expect(wrong.body.errors[0].extensions).toMatchObject({ code: 'OTP_INVALID', attemptsRemaining: OTP_MAX_ATTEMPTS - attempt });
    }
    const last = await confirm(session, wrongCode(code));
    expect(last.body.errors).toBeUndefined();
    expect(last.body.data.confirmPhoneCode).toEqual({ status: 'declined', steps: [{ nodeType: 'phone_verification', status: 'failed' }] });
    const stored = await nodeStatus(session.id);
    expect(stored).toMatchObject({ session: 'declined', node: 'failed' });
    expect(stored.details).toMatchObject({ result_code: 'attempts_exhausted', checks: { code_match: 'failed' } });
    const late = await confirm(session, code);
    expect(late.body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
  });

  it('given a code past its 10 minutes, when confirming with it, then 422 otp_expired and the step stays pending', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    await requestCode(session, phone);
    await testApp.app.orm.em
      .fork()
      .execute(`update phone_otp set expires_at = now() - interval '1 second' where session_id = ?`, [session.id]);
    const expired = await confirm(session, gateway.codeFor(phone));
    expect(expired.body.errors[0].extensions.code).toBe('OTP_EXPIRED');
    expect(await nodeStatus(session.id)).toMatchObject({ session: 'pending', node: 'pending' });
  });

  it('given a code just sent, when another is requested at once, then 429 rate_limited with Retry-After; after the window, limits per session apply', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    expect((await requestCode(session, phone)).body.errors).toBeUndefined();
    const tooSoon = await requestCode(session, phone);
    expect(tooSoon.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    const retryAfter = Number(tooSoon.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(tooSoon.body.errors[0].extensions.retryAfterSeconds).toBe(retryAfter);
    expect(tooSoon.headers.get('ratelimit-policy')).toBe('"otp_interval";q=1;w=30');

    // Two more codes, 31 s apart, fill the session's 3 per 10 minutes.
    for (let sent = 2; sent <= 3; sent++) {
      await backdateCodes(session.id, 31);
      expect((await requestCode(session, phone)).body.errors).toBeUndefined();
    }
    await backdateCodes(session.id, 31);
    const fourth = await requestCode(session, phone);
    expect(fourth.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // The oldest of the three was sent 93 s ago: it leaves the 600 s window in 507 s.
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(Number(fourth.headers.get('retry-after'))).toBeLessThanOrEqual(507);
    expect(gateway.messages.filter((message) => message.to === phone)).toHaveLength(3);
    // Only the latest code is live: the first one was superseded.
    const statuses = await testApp.app.orm.em
      .fork()
      .execute(`select status from phone_otp where session_id = ? order by created_at`, [session.id]);
    expect(statuses.map((row) => row.status)).toEqual(['superseded', 'superseded', 'active']);
  });

  it('given one number that got 5 codes this hour, when a sixth session asks for it, then 429 across sessions', async () => {
    const phone = freshPhone();
    for (let index = 0; index < 5; index++) {
      const requested = await requestCode(await liveSession(), phone);
      expect(requested.body.errors).toBeUndefined();
    }
    const sixth = await requestCode(await liveSession(), phone);
    expect(sixth.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(sixth.headers.get('ratelimit-policy')).toBe('"otp_phone";q=5;w=3600');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3500);
  });

  it('given an invalid number, when requesting a code, then 400 validation_failed and nothing is sent or stored', async () => {
    const session = await liveSession();
    const before = gateway.messages.length;
    const invalid = await requestCode(session, '+44123');
    // GraphQL execution errors answer HTTP 200; the catalogue code is the 400 validation_failed.
    expect(invalid.status).toBe(200);
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', fieldErrors: [{ field: 'phone' }] });
    expect(gateway.messages.length).toBe(before);
    const rows = await testApp.app.orm.em.fork().execute(`select id from phone_otp where session_id = ?`, [session.id]);
    expect(rows).toHaveLength(0);
  });

  it('given premium-rate, shared-cost and satellite numbers, when requesting a code, then each is refused as unsendable and nothing is sent or stored (audit N10)', async () => {
    const before = gateway.messages.length;
    // UK premium rate, US 900, UK shared cost, Iridium, Inmarsat.
    for (const phone of ['+449098790123', '+19002225555', '+448450000000', '+881631234567', '+870772112345']) {
      const session = await liveSession();
      const refused = await requestCode(session, phone);
      expect(refused.body.errors?.[0]?.extensions, phone).toMatchObject({
        code: 'VALIDATION_FAILED',
        fieldErrors: [{ field: 'phone', code: 'unsendable_number' }],
      });
      const rows = await testApp.app.orm.em.fork().execute(`select id from phone_otp where session_id = ?`, [session.id]);
      expect(rows, phone).toHaveLength(0);
    }
    expect(gateway.messages.length).toBe(before);
    // A mobile number of the same country still gets its code.
    const mobile = await requestCode(await liveSession(), '+447400123456');
    expect(mobile.body.errors).toBeUndefined();
  });

  it('given a confirmation before any request, when confirming, then 400 and the step stays pending', async () => {
    const session = await liveSession();
    const early = await asEndUser(session.token, CONFIRM_CODE, { sessionId: session.id, input: { code: '123456', phone: freshPhone() } });
    expect(early.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [{ field: 'code', code: 'not_requested' }],
    });
    expect(await nodeStatus(session.id)).toMatchObject({ node: 'pending' });
  });

  it('given a gateway answering 500, when requesting, then 503 service_unavailable and the failed send does not count', async () => {
    const session = await liveSession();
    const phone = freshPhone();
    gateway.answerStatus = 500;
    const failed = await requestCode(session, phone);
    expect(failed.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    gateway.answerStatus = 202;
    const retried = await requestCode(session, phone);
    expect(retried.body.errors).toBeUndefined();
    expect(gateway.codeFor(phone)).toMatch(/^\d{6}$/);
  });

  it('given a sandbox session on the same workflow, when requesting, then no SMS is sent and 000000 passes', async () => {
    const session = await liveSession(tenant.sandboxKey);
    const before = gateway.messages.length;
    expect((await requestCode(session, freshPhone())).body.errors).toBeUndefined();
    expect(gateway.messages.length).toBe(before);
    const confirmed = await confirm(session, '000000');
    expect(confirmed.body.data.confirmPhoneCode.status).toBe('approved');
  });
});

describe('SMS providers and configuration', () => {
  it('given SMS_PROVIDER=http without a gateway URL, when loading configuration, then start-up is refused naming the variable', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'http' })).toThrow(ConfigError);
    expect(() => loadConfig({ SMS_PROVIDER: 'http' })).toThrow(/SMS_GATEWAY_URL/);
    expect(loadConfig({}).SMS_PROVIDER).toBe('log');
  });

  it('given the development provider, when sending, then the message is logged at info and not sent', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const provider = createSmsProvider({ SMS_PROVIDER: 'log' }, logger);
    expect(provider).toBeInstanceOf(DevelopmentSmsProvider);
    await provider.send('+447911123456', 'Your verification code is 123456.');
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.to === '+447911123456');
    expect(logged).toMatchObject({ level: 30, text: 'Your verification code is 123456.' });
  });

  it('given an unreachable gateway, when sending, then the provider rejects', async () => {
    const provider = new HttpSmsGatewayProvider({ url: 'http://127.0.0.1:1/messages', timeoutMs: 2_000 });
    await expect(provider.send('+447911123456', 'x')).rejects.toThrow(/unreachable/);
  });
});
