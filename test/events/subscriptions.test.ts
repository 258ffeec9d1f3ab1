import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatusChangedPayload } from '../../src/domain/events.js';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { transactionWithEvents } from '../../src/events/outbox.js';
import { revokeApiKey } from '../../src/tenants/tenant.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession } from '../sessions/support.js';
import { recordStatusEvents, transitions, waitForSubscribers } from './support.js';

describe('sessionStatusChanged subscription', () => {
  let testApp: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    [tenantA, tenantB] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  /** Sockets of the running test; closed after it, pass or fail, so no subscription leaks into the next. */
  const sockets: Client[] = [];
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.dispose()));
    await waitForSubscribers(testApp.app.services.live, 0);
  });

  /** Opens a graphql-ws connection authenticated with `key`. */
  function connect(key: string): Client {
    const socket = testApp.ws({ 'x-api-key': key });
    sockets.push(socket);
    return socket;
  }

  /** Creates a standard_kyc sandbox session and returns its id. */
  async function newSession(key: string, vendorData: string): Promise<string> {
    const created = await createSession(testApp, key, { workflow_id: 'standard_kyc', vendor_data: vendorData });
    expect(created.status).toBe(201);
    return created.body.session_id as string;
  }

  describe('given a sandbox subscriber of tenant A, tenant B, and tenant A live', () => {
    it('when a sandbox session of A is driven to a decision, then A sees pending → in_progress → approved with ids, and the others see none of it', async () => {
      const consoleA = connect(tenantA.sandboxKey);
      const consoleB = connect(tenantB.sandboxKey);
      const consoleALive = connect(tenantA.liveKey);
      const a = recordStatusEvents(consoleA);
      const b = recordStatusEvents(consoleB);
      const aLive = recordStatusEvents(consoleALive);
      await waitForSubscribers(testApp.app.services.live, 3);

      const sessionId = await newSession(tenantA.sandboxKey, 'console-kyc');
      expect(await completeStandardKyc(testApp, { key: tenantA.sandboxKey }, sessionId)).toBe('approved');

      const events = await a.take(3);
      expect(transitions(events)).toEqual(['null→pending', 'pending→in_progress', 'in_progress→approved']);
      for (const event of events) {
        expect(event).toMatchObject({ sessionId, vendorData: 'console-kyc', environment: 'sandbox' });
        expect(event.changedAt).toBeGreaterThan(1_700_000_000);
      }
      // The ids are the outbox ids: stable, distinct, the dedupe key a console (and a webhook) shares.
      const rows = await testApp.app.orm.em.fork().find(OutboxEventSchema, { sessionId }, { orderBy: { seq: 'asc' } });
      expect(events.map((event) => event.id)).toEqual(rows.map((row) => row.id));
      expect(new Set(events.map((event) => event.id)).size).toBe(3);
      expect(events.map((event) => event.workflowId)).toEqual(rows.map((row) => (row.payload as StatusChangedPayload).workflow_id));

      // Positive controls: each other subscriber does receive its own tenant's and environment's change,
      // and it is the first thing it receives, so nothing of A's sandbox session reached it before.
      const sessionB = await newSession(tenantB.sandboxKey, 'tenant-b');
      const sessionALive = await newSession(tenantA.liveKey, 'a-live');
      expect((await b.take(1))[0]).toMatchObject({ sessionId: sessionB, status: 'pending' });
      expect((await aLive.take(1))[0]).toMatchObject({ sessionId: sessionALive, status: 'pending', environment: 'live' });
      expect((await a.take(3)).length).toBe(3);
      expect(a.events.map((event) => event.sessionId)).not.toContain(sessionB);
      expect(a.events.map((event) => event.sessionId)).not.toContain(sessionALive);
    });
  });

  describe('given subscribers with filters', () => {
    it('when two sessions are decided, then each filter receives exactly the matching changes', async () => {
      const socket = connect(tenantA.sandboxKey);
      const all = recordStatusEvents(socket);
      const decided = recordStatusEvents(socket, { statuses: ['approved', 'declined'] });
      const byVendor = recordStatusEvents(socket, { vendorData: 'filter-2' });
      const otherWorkflow = recordStatusEvents(socket, { workflowId: randomUUID() });
      await waitForSubscribers(testApp.app.services.live, 4);

      const first = await newSession(tenantA.sandboxKey, 'filter-1');
      const second = await newSession(tenantA.sandboxKey, 'filter-2');
      const createdEvents = await all.take(2);
      const workflowId = createdEvents[0]!.workflowId;
      const bySession = recordStatusEvents(socket, { sessionId: first });
      const byWorkflow = recordStatusEvents(socket, { workflowId });
      await waitForSubscribers(testApp.app.services.live, 6);

      expect(await completeStandardKyc(testApp, { key: tenantA.sandboxKey }, first)).toBe('approved');
      expect(await completeStandardKyc(testApp, { key: tenantA.sandboxKey }, second, { fullName: 'Sandbox Pep' })).not.toBe('approved');
      const everything = await all.take(6);
      // A last change every open subscription would have been sent before: once `all` has it, the rest arrived.
      const sentinel = await newSession(tenantA.sandboxKey, 'filter-sentinel');
      expect((await all.take(7))[6]).toMatchObject({ sessionId: sentinel });

      const secondFinal = everything.filter((event) => event.sessionId === second).at(-1)!.status;
      expect(decided.events.map((event) => [event.sessionId, event.status])).toEqual([
        [first, 'approved'],
        ...(['approved', 'declined'].includes(secondFinal) ? [[second, secondFinal]] : []),
      ]);
      expect(transitions(bySession.events)).toEqual(['pending→in_progress', 'in_progress→approved']);
      expect(bySession.events.every((event) => event.sessionId === first)).toBe(true);
      expect(byVendor.events.map((event) => event.sessionId)).toEqual(
        everything.filter((event) => event.sessionId === second).map((e) => e.sessionId),
      );
      expect(byVendor.events[0]).toMatchObject({ status: 'pending', previousStatus: null });
      expect(byWorkflow.events.map((event) => event.id)).toEqual(all.events.slice(2).map((event) => event.id));
      expect(otherWorkflow.events).toEqual([]);
    });
  });

  describe('given a rolled-back transaction that recorded a status change', () => {
    it('when a later change commits, then the subscriber receives only the committed one', async () => {
      const socket = connect(tenantA.sandboxKey);
      const subscriber = recordStatusEvents(socket);
      await waitForSubscribers(testApp.app.services.live, 1);
      const ghostSessionId = randomUUID();
      let ghostEventId = '';

      await expect(
        transactionWithEvents(testApp.app.orm.em.fork() as EntityManager, testApp.app.services.bus, async (tx, events) => {
          ghostEventId = events.record(tx, {
            tenantId: tenantA.id,
            environment: 'sandbox',
            type: 'session.status_changed',
            sessionId: ghostSessionId,
            payload: {
              session_id: ghostSessionId,
              status: 'approved',
              previous_status: 'in_progress',
              workflow_id: randomUUID(),
              vendor_data: 'ghost',
              environment: 'sandbox',
              actor: 'decision_engine',
              changed_at: Math.floor(Date.now() / 1000),
            },
          }).id;
          await tx.flush();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');

      const committed = await newSession(tenantA.sandboxKey, 'after-rollback');
      const [first] = await subscriber.take(1);
      expect(first).toMatchObject({ sessionId: committed, status: 'pending' });
      expect(subscriber.events.map((event) => event.id)).not.toContain(ghostEventId);
      expect(await testApp.app.orm.em.fork().count(OutboxEventSchema, { id: ghostEventId })).toBe(0);
    });
  });

  describe('given open subscriptions', () => {
    it('when one completes and then the socket closes, then the server drops exactly those listeners', async () => {
      const hub = testApp.app.services.live;
      const socket = connect(tenantA.sandboxKey);
      const kept = recordStatusEvents(socket);
      const ended = recordStatusEvents(socket);
      await waitForSubscribers(hub, 2);

      ended.unsubscribe();
      await waitForSubscribers(hub, 1);
      const sessionId = await newSession(tenantA.sandboxKey, 'after-complete');
      expect((await kept.take(1))[0]).toMatchObject({ sessionId });
      expect(ended.events).toEqual([]);

      await socket.dispose();
      await waitForSubscribers(hub, 0);
    });
  });

  describe('given subscribers that share a selection and one that selects less', () => {
    it('when one status change is published, then each gets exactly its own selection (results are shared only between equal selections)', async () => {
      const first = connect(tenantA.sandboxKey);
      const second = connect(tenantA.sandboxKey);
      const narrow = connect(tenantA.sandboxKey);
      const full = [recordStatusEvents(first), recordStatusEvents(second)];
      const statuses: unknown[] = [];
      narrow.subscribe(
        { query: 'subscription { sessionStatusChanged { status } }' },
        { next: (message) => statuses.push(message.data), error: () => undefined, complete: () => undefined },
      );
      await waitForSubscribers(testApp.app.services.live, 3);

      const sessionId = await newSession(tenantA.sandboxKey, 'shared-selection');
      const [[fromFirst], [fromSecond]] = await Promise.all(full.map((subscription) => subscription.take(1)));
      expect(fromFirst).toMatchObject({ sessionId, status: 'pending', previousStatus: null });
      expect(fromSecond).toEqual(fromFirst);
      await expect.poll(() => statuses).toEqual([{ sessionStatusChanged: { status: 'pending' } }]);
    });
  });

  describe('given a socket whose key is revoked after connection_init', () => {
    it('when the key is revoked before subscribing, then the subscription is refused', async () => {
      const extra = await testApp.issueKey(tenantA.id, 'sandbox');
      const socket = connect(extra.key);
      await new Promise<void>((resolve) => socket.on('connected', () => resolve()));
      // Revoked through this server's own path (applies at once); a revocation made elsewhere
      // reaches the key cache with its next epoch poll (test/foundation/key-cache.test.ts).
      await revokeApiKey(testApp.app.orm.em.fork(), extra.id, testApp.app.services.apiKeys);
      const refused = recordStatusEvents(socket);
      await expect(refused.take(1)).rejects.toThrow(/no longer valid/);
      expect(testApp.app.services.live.subscriberCount).toBe(0);
    });
  });
});
