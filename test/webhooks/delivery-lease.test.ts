/**
 * The delivery lease (issue 29.3): a claim holds a delivery in `claimed_until` and leaves its due
 * time and the queue's indexes as they are. A delivery whose lease runs is not claimed again; one
 * whose lease ran out (its emitter died before recording the try) is; a recorded try or a replay
 * ends the lease. No emitter runs in the app: the test claims with the real dispatcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { AttemptLog } from '../../src/webhooks/attempt-log.js';
import { DeliveryDispatcher, type ClaimFairness } from '../../src/webhooks/dispatch.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

/** Seconds a claim holds a delivery here: long enough to claim twice within it, short enough to wait out. */
const LEASE_SECONDS = 1;
/** No caps in the way: the lease alone decides what is claimable. */
const NO_CAPS: ClaimFairness = { maxPerTenant: 100, maxPerTarget: 100, inFlightByTenant: new Map(), inFlightByTarget: new Map() };

let testApp: TestApp;
let receiver: Receiver;
let dispatcher: DeliveryDispatcher;

beforeAll(async () => {
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' });
  receiver = await startReceiver();
  dispatcher = new DeliveryDispatcher({
    orm: testApp.app.orm,
    secrets: testApp.app.services.secrets,
    allowLoopback: true,
    retryScheduleSeconds: [0, 0, 60],
    claimLeaseSeconds: LEASE_SECONDS,
  });
});
afterAll(() => Promise.all([dispatcher?.close(), testApp?.close(), receiver?.close()]));

/** Queues a `webhook.test` delivery to a new destination of a new tenant; returns its id and the tenant's key. */
async function queuedDelivery(): Promise<{ id: string; key: string }> {
  const tenant = await testApp.tenant();
  const created = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.sandboxKey,
    body: { url: `${receiver.url}/lease` },
  });
  expect(created.status).toBe(201);
  const sent = await testApp.rest('POST', `/v1/webhook-destinations/${created.body.uuid}/test`, { key: tenant.sandboxKey });
  expect(sent.status).toBe(202);
  return { id: sent.body.id, key: tenant.sandboxKey };
}

/** The delivery's due time and lease as stored. */
async function storedTimes(id: string): Promise<{ nextAttemptAt: Date | null; claimedUntil: Date | null }> {
  const [row] = await testApp.app.orm.em
    .fork()
    .execute<{ next_attempt_at: Date | string | null; claimed_until: Date | string | null }[]>(
      `select next_attempt_at, claimed_until from webhook_delivery where id = ?`,
      [id],
      'all',
    );
  // PGlite answers timestamps as strings, the server's driver as Dates.
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return { nextAttemptAt: date(row!.next_attempt_at), claimedUntil: date(row!.claimed_until) };
}

/** Which of `ids` a claim takes now (it takes due deliveries of other tests too, which none of them waits on). */
async function claimedIds(ids: string[]): Promise<string[]> {
  return (await dispatcher.claim(100, NO_CAPS)).map((delivery) => delivery.id).filter((id) => ids.includes(id));
}

describe('webhook delivery lease', () => {
  it('given a claimed delivery, when claimed again within its lease, then it is not taken; its due time is unchanged and the API shows the lease end', async () => {
    const { id, key } = await queuedDelivery();
    const before = await storedTimes(id);

    expect(await claimedIds([id])).toEqual([id]);

    const leased = await storedTimes(id);
    expect(leased.nextAttemptAt).toEqual(before.nextAttemptAt);
    expect(leased.claimedUntil!.getTime()).toBeGreaterThan(before.nextAttemptAt!.getTime());
    expect(await claimedIds([id])).toEqual([]);
    // As when the claim moved the due time: a held delivery is tried next when its lease ends.
    const shown = await testApp.rest('GET', `/v1/webhook-deliveries/${id}`, { key });
    expect(shown.body.next_attempt_at).toBe(Math.floor(leased.claimedUntil!.getTime() / 1000));
  });

  it('given a claimed delivery whose emitter died, when its lease runs out, then it is claimed again with the same id', async () => {
    const { id } = await queuedDelivery();
    expect(await claimedIds([id])).toEqual([id]);

    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 1000 + 200));

    expect(await claimedIds([id])).toEqual([id]);
    expect(await claimedIds([id])).toEqual([]);
  });

  it('given a claimed delivery, when its failed try is recorded with a retry due at once, then the lease ends and it is claimable again before the lease would have run out', async () => {
    const { id } = await queuedDelivery();
    const [claimed] = await dispatcher.claim(100, NO_CAPS).then((all) => all.filter((delivery) => delivery.id === id));
    expect(claimed).toBeDefined();
    receiver.respond = () => ({ status: 503 });
    const result = await dispatcher.attempt(claimed!);
    receiver.respond = () => ({ status: 204 });
    expect(result).toMatchObject({ deliveryStatus: 'pending', status: 'failed', statusCode: 503 });

    const log = new AttemptLog(testApp.app.orm, pino({ level: 'silent' }));
    log.queue(result);
    await log.flush();

    expect((await storedTimes(id)).claimedUntil).toBeNull();
    expect(await claimedIds([id])).toEqual([id]);
  });

  it('given a delivery held by an emitter, when it is replayed, then it is claimable at once', async () => {
    const { id, key } = await queuedDelivery();
    expect(await claimedIds([id])).toEqual([id]);

    const replayed = await testApp.rest('POST', `/v1/webhook-deliveries/${id}/replay`, { key });

    expect(replayed.status).toBe(202);
    expect((await storedTimes(id)).claimedUntil).toBeNull();
    expect(await claimedIds([id])).toEqual([id]);
  });
});
