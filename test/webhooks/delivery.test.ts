import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

let testApp: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  await testApp?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.respond = () => ({ status: 204 });
});

/** A tenant with one destination pointing at the receiver under its own path. */
async function tenantWithDestination(
  body: Record<string, unknown> = {},
): Promise<{ tenant: TestTenant; id: string; secret: string; url: string }> {
  const tenant = await testApp.tenant();
  const url = `${receiver.url}/${tenant.id}`;
  const created = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url, ...body } });
  expect(created.status).toBe(201);
  receiver.secret = created.body.secret;
  return { tenant, id: created.body.uuid, secret: created.body.secret, url };
}

/** Creates a session (which emits session.status_changed) and returns its id. */
async function createSession(tenant: TestTenant, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'standard_kyc', vendor_data: `user-${Math.random()}`, ...extra },
  });
  expect(response.status).toBe(201);
  return response.body.session_id;
}

describe('delivery', () => {
  it('given a v3 destination, when a session is created, then the receiver gets a signed session.status_changed verified by standardwebhooks', async () => {
    const { tenant } = await tenantWithDestination();
    const sessionId = await createSession(tenant);
    const [item] = (await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId))).filter(
      (r) => r.body?.data?.session_id === sessionId,
    );
    expect(item!.verified).toBe(true);
    expect(item!.body).toMatchObject({
      type: 'session.status_changed',
      data: { session_id: sessionId, status: 'pending', previous_status: null },
    });
    expect(item!.body.data).toMatchObject({ session_id: sessionId, status: 'pending', workflow_id: 'standard_kyc' });
    expect(Number(item!.timestamp)).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(item!.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('given a receiver that fails three times, when the event is retried, then the fourth try succeeds with the same webhook-id and four attempts are recorded', async () => {
    const { tenant, id } = await tenantWithDestination();
    receiver.respond = (attempt) => (attempt <= 3 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const sessionId = await createSession(tenant);
    const mine = (all: typeof receiver.received) => all.filter((r) => r.body?.data?.session_id === sessionId);
    await receiver.waitFor((all) => mine(all).some((r) => r.answered === 200));
    const tries = mine(receiver.received);
    expect(tries).toHaveLength(4);
    expect(new Set(tries.map((r) => r.id)).size).toBe(1);
    expect(tries.every((r) => r.verified)).toBe(true);
    expect(new Set(tries.map((r) => r.rawBody)).size).toBe(1);

    const deliveryId = tries[0]!.id;
    const attempts = await pollAttempts(tenant, deliveryId, 4);
    expect(attempts.map((a: any) => a.response_status_code)).toEqual([503, 503, 503, 200]);
    expect(attempts.map((a: any) => a.status)).toEqual(['failed', 'failed', 'failed', 'succeeded']);
    expect(attempts[0].response_body).toBe('busy');
    expect(attempts[0].next_attempt_at).toBeTypeOf('number');
    expect(attempts[3].next_attempt_at).toBeUndefined();
    expect(attempts.every((a: any) => typeof a.duration_ms === 'number')).toBe(true);
    const listed = await testApp.rest('GET', `/v1/webhook-destinations/${id}/deliveries`, { key: tenant.sandboxKey });
    expect(listed.body.deliveries[0]).toMatchObject({ id: deliveryId, status: 'succeeded', attempt_count: 4, last_status_code: 200 });
  });

  it('given an inactive destination, when events happen, then it receives nothing and no delivery is created', async () => {
    const { tenant, id } = await tenantWithDestination();
    await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey, body: { active: false } });
    const active = await tenantWithDestination();
    const quiet = await createSession(tenant);
    const marker = await createSession(active.tenant);
    // Events are fanned out in order: once a later event arrived, the earlier one was processed.
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === marker));
    expect(receiver.received.some((r) => r.body?.data?.session_id === quiet)).toBe(false);
    const listed = await testApp.rest('GET', `/v1/webhook-destinations/${id}/deliveries`, { key: tenant.sandboxKey });
    expect(listed.body.deliveries).toHaveLength(0);
  });

  it('given an events filter without session.status_changed, when a session is created, then that destination gets nothing', async () => {
    const filtered = await tenantWithDestination({ events: ['agent.revoked'] });
    const active = await tenantWithDestination();
    const quiet = await createSession(filtered.tenant);
    const marker = await createSession(active.tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === marker));
    expect(receiver.received.some((r) => r.body?.data?.session_id === quiet)).toBe(false);
  });

  it("given two tenants' destinations, when one tenant's session changes, then only its destination receives it", async () => {
    const first = await tenantWithDestination();
    const second = await tenantWithDestination();
    const sessionId = await createSession(first.tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const hits = receiver.received.filter((r) => r.body?.data?.session_id === sessionId);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.headers.host).toBeDefined();
    const secondList = await testApp.rest('GET', `/v1/webhook-destinations/${second.id}/deliveries`, { key: second.tenant.sandboxKey });
    expect(secondList.body.deliveries.some((d: any) => d.session_id === sessionId)).toBe(false);
  });

  it('given v1 and v2 destinations, when a session is created, then each gets its payload shape', async () => {
    const tenant = await testApp.tenant();
    const v1 = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/v1`, version: 'v1' },
    });
    const v2 = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/v2`, version: 'v2' },
    });
    receiver.secret = null;
    const sessionId = await createSession(tenant);
    await receiver.waitFor((all) => all.filter((r) => r.body?.session_id === sessionId).length === 2);
    const bodies = receiver.received.filter((r) => r.body?.session_id === sessionId);
    const v1Body = bodies.find((r) => !('created_at' in r.body))!;
    const v2Body = bodies.find((r) => 'created_at' in r.body)!;
    expect(v1Body.body).toEqual({ event: 'session.status_changed', session_id: sessionId, status: 'pending' });
    expect(Object.keys(v2Body.body).sort()).toEqual([
      'created_at',
      'event',
      'previous_status',
      'session_id',
      'status',
      'vendor_data',
      'workflow_id',
    ]);
    expect(() => new Webhook(v1.body.secret).verify(v1Body.rawBody, headersOf(v1Body.headers))).not.toThrow();
    expect(() => new Webhook(v2.body.secret).verify(v2Body.rawBody, headersOf(v2Body.headers))).not.toThrow();
    expect(() => new Webhook(v1.body.secret).verify(v2Body.rawBody, headersOf(v2Body.headers))).toThrow();
  });

  it('given a rotated secret, when a message is sent, then it verifies with the new secret and not with the old one', async () => {
    const { tenant, id, secret: oldSecret } = await tenantWithDestination();
    const rotated = await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, {
      key: tenant.sandboxKey,
      body: { rotate_secret: true },
    });
    receiver.secret = rotated.body.secret;
    const sessionId = await createSession(tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const item = receiver.received.find((r) => r.body?.data?.session_id === sessionId)!;
    expect(item.verified).toBe(true);
    expect(() => new Webhook(oldSecret).verify(item.rawBody, headersOf(item.headers))).toThrow();
  });

  it('given a session callback URL, when the session is created, then the callback gets v3 signed with the tenant callback secret', async () => {
    const tenant = await testApp.tenant();
    const rotated = await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey });
    receiver.secret = rotated.body.secret;
    const sessionId = await createSession(tenant, { callback: `${receiver.url}/callback` });
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const item = receiver.received.find((r) => r.body?.data?.session_id === sessionId)!;
    expect(item.verified).toBe(true);
    expect(item.body.type).toBe('session.status_changed');
    const listed = await testApp.graphql(
      `query ($sessionId: String) { webhookDeliveries(sessionId: $sessionId) { deliveries { callbackUrl status attempts { responseStatusCode } } } }`,
      { sessionId },
      tenant.sandboxKey,
    );
    expect(listed.body.data.webhookDeliveries.deliveries[0].callbackUrl).toBe(`${receiver.url}/callback`);
  });

  it('given a receiver answering 410, when delivered, then the delivery is dead and the destination deactivated', async () => {
    const { tenant, id } = await tenantWithDestination();
    receiver.respond = () => ({ status: 410 });
    const sessionId = await createSession(tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const destination = await pollUntil(
      () => testApp.rest('GET', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey }),
      (response) => response.body.active === false,
    );
    expect(destination.body.active).toBe(false);
    const listed = await testApp.rest('GET', `/v1/webhook-destinations/${id}/deliveries`, { key: tenant.sandboxKey });
    expect(listed.body.deliveries[0]).toMatchObject({ status: 'dead', last_status_code: 410 });
  });

  it('given a receiver answering 429 with Retry-After, when delivered, then the next attempt waits at least that long', async () => {
    const { tenant } = await tenantWithDestination();
    receiver.respond = () => ({ status: 429, headers: { 'retry-after': '120' } });
    const sessionId = await createSession(tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const deliveryId = receiver.received.find((r) => r.body?.data?.session_id === sessionId)!.id;
    const [attempt] = await pollAttempts(tenant, deliveryId, 1);
    expect(attempt.response_status_code).toBe(429);
    expect(attempt.next_attempt_at - attempt.attempted_at).toBeGreaterThanOrEqual(119);
  });

  it('given a delivered message, when replayed, then it is sent again with the same webhook-id and body', async () => {
    const { tenant } = await tenantWithDestination();
    const sessionId = await createSession(tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId));
    const first = receiver.received.find((r) => r.body?.data?.session_id === sessionId)!;
    await pollAttempts(tenant, first.id, 1);
    const replay = await testApp.rest('POST', `/v1/webhook-deliveries/${first.id}/replay`, { key: tenant.sandboxKey });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: first.id, status: 'pending' });
    await receiver.waitFor((all) => all.filter((r) => r.id === first.id).length === 2);
    const again = receiver.received.filter((r) => r.id === first.id)[1]!;
    expect(again.rawBody).toBe(first.rawBody);
    expect(again.verified).toBe(true);
    const other = await testApp.tenant();
    expect((await testApp.rest('POST', `/v1/webhook-deliveries/${first.id}/replay`, { key: other.sandboxKey })).status).toBe(404);
    expect((await testApp.rest('GET', `/v1/webhook-deliveries/${first.id}/attempts`, { key: other.sandboxKey })).status).toBe(404);
  });

  it('given a destination, when a test event is sent, then the receiver gets a signed webhook.test; an inactive one answers 409', async () => {
    const { tenant, id } = await tenantWithDestination();
    const sent = await testApp.rest('POST', `/v1/webhook-destinations/${id}/test`, { key: tenant.sandboxKey });
    expect(sent.status).toBe(202);
    await receiver.waitFor((all) => all.some((r) => r.id === sent.body.id));
    const item = receiver.received.find((r) => r.id === sent.body.id)!;
    expect(item.verified).toBe(true);
    expect(item.body).toMatchObject({ type: 'webhook.test', data: { destination_id: id } });
    await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey, body: { active: false } });
    expect((await testApp.rest('POST', `/v1/webhook-destinations/${id}/test`, { key: tenant.sandboxKey })).status).toBe(409);
  });
});

/**
 * Whether the creation event of a session has its fan-out marker from the create's own
 * transaction (the marker's `processed_at` default is that transaction's `now()`, as is the
 * session's `updated_at`): true when the create recorded "no webhook target", false when an
 * emitter wrote the marker later, null when no marker exists yet.
 */
async function doneAtCreate(sessionId: string): Promise<boolean | null> {
  const [row] = await testApp.app.orm.em.fork().execute<{ same: boolean | null }[]>(
    `select f.processed_at = s.updated_at as same from outbox_event e join session s on s.id = e.session_id
     left join webhook_fanout f on f.event_seq = e.seq where e.session_id = ? and e.type = 'session.status_changed'`,
    [sessionId],
    'all',
  );
  return row!.same;
}

describe('fan-out of a creation without webhook targets', () => {
  it('given a tenant without destinations and no callback, when a session is created, then its fan-out is recorded done in the same transaction and no delivery exists', async () => {
    const tenant = await testApp.tenant();
    const sessionId = await createSession(tenant);
    expect(await doneAtCreate(sessionId)).toBe(true);
    const [row] = await testApp.app.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from webhook_delivery where session_id = ?', [sessionId]);
    expect(Number(row!.n)).toBe(0);
  });

  it('given only an inactive destination or one subscribed to other events, when a session is created, then its fan-out is done at creation too', async () => {
    const filtered = await tenantWithDestination({ events: ['agent.revoked'] });
    expect(await doneAtCreate(await createSession(filtered.tenant))).toBe(true);
    const paused = await tenantWithDestination();
    const patched = await testApp.rest('PATCH', `/v1/webhook-destinations/${paused.id}`, {
      key: paused.tenant.sandboxKey,
      body: { active: false },
    });
    expect(patched.status).toBe(200);
    expect(await doneAtCreate(await createSession(paused.tenant))).toBe(true);
  });

  it('given a subscribed destination or a callback, when a session is created, then the emitter fans it out and delivers', async () => {
    const { tenant } = await tenantWithDestination();
    const toDestination = await createSession(tenant);
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === toDestination));
    expect(await doneAtCreate(toDestination)).toBe(false);

    const bare = await testApp.tenant();
    const withCallback = await createSession(bare, { callback: `${receiver.url}/callback` });
    await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === withCallback));
    expect(await doneAtCreate(withCallback)).toBe(false);
  });
});

/** The three Standard Webhooks headers of a received request. */
function headersOf(headers: Record<string, unknown>): Record<string, string> {
  return {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
}

/** Calls `read` every 20 ms until `done` holds (attempt rows are written just after the response). */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The attempts of a delivery once at least `count` are recorded. */
async function pollAttempts(tenant: TestTenant, deliveryId: string, count: number): Promise<any[]> {
  const response = await pollUntil(
    () => testApp.rest('GET', `/v1/webhook-deliveries/${deliveryId}/attempts`, { key: tenant.sandboxKey }),
    (r) => r.status === 200 && r.body.attempts.length >= count,
  );
  expect(response.status).toBe(200);
  return response.body.attempts;
}
