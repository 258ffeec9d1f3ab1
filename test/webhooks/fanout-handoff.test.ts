/**
 * The fan-out hands due destination deliveries straight to its emitter (issue 29.3): they are
 * inserted leased, as a claim would lease them, and handed over only once committed; what the
 * emitter's caps have no room for, and what is not due yet, is inserted unleased for the claim.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentRevoked } from '../../src/domain/events.js';
import { transactionWithEvents } from '../../src/events/outbox.js';
import type { ClaimedDelivery } from '../../src/webhooks/dispatch.js';
import { fanOutOnce, type FanOutHandOff, type FanOutOptions, type FanOutProgress } from '../../src/webhooks/delivery-fanout.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { WEBHOOK_TEST_ENV } from './support.js';

const DESTINATIONS = 3;
const LEASE_SECONDS = 60;

let testApp: TestApp;
let tenant: TestTenant;
let options: FanOutOptions;
const progress: FanOutProgress = { fannedOutThrough: null };

beforeAll(async () => {
  // No emitter in the app: the test runs the fan-out itself.
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' });
  tenant = await testApp.tenant();
  for (let index = 0; index < DESTINATIONS; index += 1) {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `http://127.0.0.1:9/hooks/${index}` },
    });
    expect(created.status).toBe(201);
  }
  options = { secrets: testApp.app.services.secrets, retryScheduleSeconds: [0] };
});
afterAll(() => testApp?.close());

/** Records and commits an `agent.revoked` of the tenant's sandbox; returns its event id. */
async function recordEvent(): Promise<string> {
  const jti = `handoff-${randomUUID()}`;
  await transactionWithEvents(testApp.app.orm.em.fork(), testApp.app.services.bus, async (tx, events) => {
    events.record(tx, {
      tenantId: tenant.id,
      environment: 'sandbox',
      ...agentRevoked({ jti, sessionId: randomUUID(), vendorData: 'h' }, 'h', new Date()),
    });
  });
  const [row] = await testApp.app.orm.em
    .fork()
    .execute<{ id: string }[]>(`select id from outbox_event where payload->>'jti' = ?`, [jti], 'all');
  return row!.id;
}

/** An emitter's side of the hand-off that takes at most `room` deliveries; `deliver` records what it got. */
function handOffWithRoom(room: number, accepted: string[] = []) {
  const delivered: ClaimedDelivery[][] = [];
  const handOff: FanOutHandOff = {
    leaseSeconds: LEASE_SECONDS,
    accept(_tenantId, targetKey) {
      if (accepted.length >= room) return false;
      accepted.push(targetKey);
      return true;
    },
    deliver: (deliveries) => delivered.push(deliveries),
  };
  return { handOff, delivered };
}

/** The event's delivery rows: target, lease in seconds from now (null when unleased), due time. */
async function rowsOf(eventId: string) {
  return testApp.app.orm.em.fork().execute<{ id: string; target: string; lease_seconds: number | null; due: boolean }[]>(
    `select id, target, extract(epoch from claimed_until - now())::float as lease_seconds, next_attempt_at <= now() as due
     from webhook_delivery where event_id = ? order by target`,
    [eventId],
    'all',
  );
}

describe('fan-out hand-off', () => {
  it('given room for two of three deliveries, when an event is fanned out, then two are inserted leased and handed over once committed, and the third is left unleased for the claim', async () => {
    const eventId = await recordEvent();
    const { handOff, delivered } = handOffWithRoom(2);
    while ((await fanOutOnce(testApp.app.orm.em.fork(), options, progress, handOff)) > 0);

    const rows = await rowsOf(eventId);
    expect(rows).toHaveLength(DESTINATIONS);
    const leased = rows.filter((row) => row.lease_seconds !== null);
    expect(leased).toHaveLength(2);
    for (const row of leased) expect(row.lease_seconds).toBeGreaterThan(LEASE_SECONDS - 10);
    expect(rows.filter((row) => row.lease_seconds === null && row.due)).toHaveLength(1);

    expect(delivered).toHaveLength(1);
    const handed = delivered[0]!;
    expect(handed.map((delivery) => delivery.id).sort()).toEqual(leased.map((row) => row.id).sort());
    for (const delivery of handed) {
      // What sending needs, as a claim returns it: the destination's URL and sealed secret, the sealed body.
      expect(delivery.destination_url).toMatch(/^http:\/\/127\.0\.0\.1:9\/hooks\/\d$/);
      expect(delivery.secret_encrypted).toBeTruthy();
      expect(JSON.parse(testApp.app.services.secrets.decrypt(delivery.body)).type).toBe('agent.revoked');
      expect(delivery.schedule_position).toBe(0);
    }
  });

  it('given a first attempt that is not due at once, when an event is fanned out, then nothing is handed over or leased', async () => {
    const eventId = await recordEvent();
    const accepted: string[] = [];
    const { handOff, delivered } = handOffWithRoom(DESTINATIONS, accepted);
    while ((await fanOutOnce(testApp.app.orm.em.fork(), { ...options, retryScheduleSeconds: [30] }, progress, handOff)) > 0);

    expect(accepted).toEqual([]);
    expect(delivered).toEqual([]);
    const rows = await rowsOf(eventId);
    expect(rows).toHaveLength(DESTINATIONS);
    expect(rows.every((row) => row.lease_seconds === null && !row.due)).toBe(true);
  });

  it('given a batch that rolls back, when it is fanned out, then nothing is handed over and the event is fanned out again later', async () => {
    const eventId = await recordEvent();
    const failing: FanOutHandOff = {
      leaseSeconds: LEASE_SECONDS,
      accept: () => {
        throw new Error('emitter gone');
      },
      deliver: () => expect.unreachable('a rolled-back batch is never handed over'),
    };
    await expect(fanOutOnce(testApp.app.orm.em.fork(), options, progress, failing)).rejects.toThrow('emitter gone');
    expect(await rowsOf(eventId)).toEqual([]);

    const { handOff, delivered } = handOffWithRoom(DESTINATIONS);
    while ((await fanOutOnce(testApp.app.orm.em.fork(), options, progress, handOff)) > 0);
    expect(await rowsOf(eventId)).toHaveLength(DESTINATIONS);
    expect(delivered.flat()).toHaveLength(DESTINATIONS);
  });
});
