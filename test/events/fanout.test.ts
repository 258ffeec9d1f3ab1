import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { NOTIFY_PAYLOAD_MAX_BYTES, startEventFanout, type EventFanout } from '../../src/events/live-fanout.js';
import {
  LiveStatusHub,
  SubscriberTooSlowError,
  SUBSCRIBER_QUEUE_MAX_EVENTS,
  type SessionStatusEvent,
} from '../../src/events/live-status.js';
import { EventBus, transactionWithEvents } from '../../src/events/outbox.js';

/** LISTEN/NOTIFY needs a PostgreSQL server; the embedded run covers the hub alone. */
const DATABASE_URL = process.env.DATABASE_URL;

/** A status event of `tenantId`'s sandbox, as the hub routes it. */
function statusEvent(tenantId: string, overrides: Partial<SessionStatusEvent> = {}): SessionStatusEvent {
  return {
    id: randomUUID(),
    seq: 1,
    tenantId,
    environment: 'sandbox',
    sessionId: randomUUID(),
    workflowId: randomUUID(),
    vendorData: 'v',
    status: 'pending',
    previousStatus: null,
    actor: 'api',
    reason: null,
    changedAt: 1_800_000_000,
    ...overrides,
  };
}

describe('LiveStatusHub', () => {
  it('given subscribers of two tenants and environments, when an event is published, then only the matching scope receives it', async () => {
    const hub = new LiveStatusHub();
    const tenant = randomUUID();
    const mine = hub.subscribe({ tenantId: tenant, environment: 'sandbox' });
    const live = hub.subscribe({ tenantId: tenant, environment: 'live' });
    const other = hub.subscribe({ tenantId: randomUUID(), environment: 'sandbox' });
    const event = statusEvent(tenant);
    hub.publish(event);
    const control = statusEvent(tenant, { environment: 'live' });
    hub.publish(control);
    expect((await mine.next()).value).toBe(event);
    expect((await live.next()).value).toBe(control);
    await other.return!();
    expect(await other.next()).toEqual({ value: undefined, done: true });
    await mine.return!();
    await live.return!();
    expect(hub.subscriberCount).toBe(0);
  });

  it('given a reader waiting, when the subscription returns, then the read ends and the listener is gone', async () => {
    const hub = new LiveStatusHub();
    const subscription = hub.subscribe({ tenantId: randomUUID(), environment: 'sandbox' });
    const pending = subscription.next();
    await subscription.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(hub.subscriberCount).toBe(0);
  });

  it('given a subscriber that never reads, when more events than its queue holds arrive, then it gets what was queued and then an error', async () => {
    const hub = new LiveStatusHub();
    const tenant = randomUUID();
    const slow = hub.subscribe({ tenantId: tenant, environment: 'sandbox' });
    for (let i = 0; i <= SUBSCRIBER_QUEUE_MAX_EVENTS; i += 1) hub.publish(statusEvent(tenant, { seq: i }));
    expect(hub.subscriberCount).toBe(0);
    for (let i = 0; i < SUBSCRIBER_QUEUE_MAX_EVENTS; i += 1) expect((await slow.next()).value?.seq).toBe(i);
    await expect(slow.next()).rejects.toBeInstanceOf(SubscriberTooSlowError);
    expect(await slow.next()).toEqual({ value: undefined, done: true });
  });

  it('given events queued before a consumer is named, when it is pushed to, then it takes them and every later one in order, synchronously', async () => {
    const hub = new LiveStatusHub();
    const tenant = randomUUID();
    const subscription = hub.subscribe({ tenantId: tenant, environment: 'sandbox' });
    hub.publish(statusEvent(tenant, { seq: 1 }));
    hub.publish(statusEvent(tenant, { seq: 2 }));
    const taken: number[] = [];
    expect(subscription.pushTo({ accept: (event) => taken.push(event.seq) > 0 })).toBe(true);
    expect(taken).toEqual([1, 2]);
    hub.publish(statusEvent(tenant, { seq: 3 }));
    hub.publish(statusEvent(randomUUID(), { seq: 4 }));
    expect(taken).toEqual([1, 2, 3]);
    // Read and pushed at once would split the events between the two.
    expect(subscription.pushTo({ accept: () => true })).toBe(false);
    const end = subscription.next();
    await subscription.return();
    expect(await end).toEqual({ value: undefined, done: true });
    expect(hub.subscriberCount).toBe(0);
  });

  it('given a pushed subscription, when its consumer reports it fell behind, then the subscription ends and its reader gets the error', async () => {
    const hub = new LiveStatusHub();
    const tenant = randomUUID();
    const subscription = hub.subscribe({ tenantId: tenant, environment: 'sandbox' });
    const taken: number[] = [];
    subscription.pushTo({ accept: (event) => taken.push(event.seq) < 2 });
    const end = subscription.next();
    for (let seq = 1; seq <= 3; seq += 1) hub.publish(statusEvent(tenant, { seq }));
    expect(taken).toEqual([1, 2]);
    expect(hub.subscriberCount).toBe(0);
    await expect(end).rejects.toBeInstanceOf(SubscriberTooSlowError);
    expect(await subscription.next()).toEqual({ value: undefined, done: true });
  });
});

describe('event fan-out over LISTEN/NOTIFY', () => {
  let database: Database | undefined;
  const fanouts: EventFanout[] = [];
  const busA = new EventBus();
  const busB = new EventBus();
  const hubA = new LiveStatusHub();
  const hubB = new LiveStatusHub();
  const tenantId = randomUUID();

  beforeAll(async () => {
    if (!DATABASE_URL) return;
    database = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }), { migrate: false });
    const logger = pino({ level: 'silent' });
    fanouts.push(await startEventFanout({ bus: busA, hub: hubA, databaseUrl: DATABASE_URL, logger }));
    fanouts.push(await startEventFanout({ bus: busB, hub: hubB, databaseUrl: DATABASE_URL, logger }));
  });

  afterAll(async () => {
    await Promise.all(fanouts.map((fanout) => fanout.stop()));
    await database?.close();
  });

  /** Commits one status change of `tenantId` through instance A's bus (or `bus`); returns its event id. */
  async function commitOnA(reason: string | null = null, bus: EventBus = busA): Promise<string> {
    return transactionWithEvents(database!.orm.em.fork() as EntityManager, bus, async (tx, events) => {
      const sessionId = randomUUID();
      return events.record(tx, {
        tenantId,
        environment: 'sandbox',
        type: 'session.status_changed',
        sessionId,
        payload: {
          session_id: sessionId,
          status: 'in_review',
          previous_status: 'in_progress',
          workflow_id: randomUUID(),
          vendor_data: 'fanout',
          environment: 'sandbox',
          actor: 'decision_engine',
          ...(reason ? { reason } : {}),
          changed_at: 1_800_000_000,
        },
      }).id;
    });
  }

  it.runIf(DATABASE_URL)(
    'given two fan-outs on one PostgreSQL (runs only with DATABASE_URL), when A commits a small and an oversized event, then B delivers both once, the big one read back from the outbox',
    async () => {
      const onA = hubA.subscribe({ tenantId, environment: 'sandbox' });
      const onB = hubB.subscribe({ tenantId, environment: 'sandbox' });
      const small = await commitOnA();
      const big = await commitOnA('r'.repeat(NOTIFY_PAYLOAD_MAX_BYTES));
      expect((await onB.next()).value?.id).toBe(small);
      const bigOnB = (await onB.next()).value;
      expect(bigOnB?.id).toBe(big);
      expect(bigOnB?.reason?.length).toBe(NOTIFY_PAYLOAD_MAX_BYTES);
      // A delivered its own events once each: from its bus or from the trigger's announcement, whichever came first.
      expect((await onA.next()).value?.id).toBe(small);
      expect((await onA.next()).value?.id).toBe(big);
      const next = await commitOnA();
      expect((await onA.next()).value?.id).toBe(next);
      expect((await onB.next()).value?.id).toBe(next);
      await onA.return!();
      await onB.return!();
    },
  );

  it.runIf(DATABASE_URL)(
    'given a status change committed by a process whose fan-out never ran (killed right after its commit; runs only with DATABASE_URL), then B still delivers it once',
    async () => {
      const onB = hubB.subscribe({ tenantId, environment: 'sandbox' });
      // A bus nobody listens to: the committing process announces nothing itself, as when killed after COMMIT.
      const silent = await commitOnA(null, new EventBus());
      const next = await commitOnA();
      expect((await onB.next()).value?.id).toBe(silent);
      expect((await onB.next()).value?.id).toBe(next);
      await onB.return!();
    },
  );

  it.runIf(DATABASE_URL)(
    "given B's LISTEN connection is killed (runs only with DATABASE_URL), when A commits meanwhile, then B reconnects and still delivers the change once",
    async () => {
      const onB = hubB.subscribe({ tenantId, environment: 'sandbox' });
      const before = await commitOnA();
      expect((await onB.next()).value?.id).toBe(before);
      const killed = await database!.orm.em
        .fork()
        .getConnection()
        .execute<{ killed: boolean }[]>(`select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = ?`, [
          `idv-events-${fanouts[1]!.instanceId.slice(0, 8)}`,
        ]);
      expect(killed).toEqual([{ killed: true }]);
      const during = await commitOnA();
      expect((await onB.next()).value?.id).toBe(during);
      const after = await commitOnA();
      expect((await onB.next()).value?.id).toBe(after);
      await onB.return!();
    },
  );
});
