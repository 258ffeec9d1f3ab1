/**
 * Fair webhook delivery (issue 13.6, audit M6): one tenant's slow endpoints hold at most its own
 * in-flight caps (per destination and per tenant), so another tenant's deliveries go out at once.
 * Tenant B's receiver holds every request open until the test releases it, so "slow" is not a
 * guess at a delay: A's delivery must arrive while every one of B's is still unanswered.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

const WINDOW = 8;
const PER_DESTINATION = 2;
const PER_TENANT = 6;
const SLOW_DESTINATIONS = 5;
const SLOW_SESSIONS = 4;

/** A receiver that answers nothing until released, and counts what it holds per path. */
interface HoldingReceiver {
  url: string;
  /** Requests open now, per path. */
  open: Map<string, number>;
  /** Most requests open at once, in all and per path. */
  peak: { all: number; perPath: Map<string, number> };
  answered: number;
  /** Requests the emitter closed unanswered. */
  abandoned: number;
  /** Answers every held request (only those whose path starts with `prefix`, if given) with 204, and every later one at once. */
  release(prefix?: string): void;
  /** Requests open now under a path prefix. */
  openUnder(prefix: string): number;
  /** Resolves when `predicate` holds (checked on every request and answer). */
  until(predicate: () => boolean): Promise<void>;
  close(): Promise<void>;
}

async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const held: { path: string; response: ServerResponse }[] = [];
  const released: string[] = [];
  const waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.predicate()) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const openTotal = () => [...receiver.open.values()].reduce((sum, count) => sum + count, 0);
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    request.resume();
    request.on('end', () => {
      receiver.open.set(path, (receiver.open.get(path) ?? 0) + 1);
      receiver.peak.all = Math.max(receiver.peak.all, openTotal());
      receiver.peak.perPath.set(path, Math.max(receiver.peak.perPath.get(path) ?? 0, receiver.open.get(path)!));
      response.on('finish', () => {
        receiver.open.set(path, receiver.open.get(path)! - 1);
        receiver.answered += 1;
        check();
      });
      // The emitter gave up on it (its time-out) before an answer.
      response.on('close', () => {
        if (response.writableFinished) return;
        receiver.open.set(path, receiver.open.get(path)! - 1);
        receiver.abandoned += 1;
        check();
      });
      if (released.some((prefix) => path.startsWith(prefix))) response.writeHead(204).end();
      else held.push({ path, response });
      check();
    });
  });
  const receiver: HoldingReceiver = {
    url: '',
    open: new Map(),
    peak: { all: 0, perPath: new Map() },
    answered: 0,
    abandoned: 0,
    release(prefix = '') {
      released.push(prefix);
      for (const request of held.filter(({ path }) => path.startsWith(prefix))) {
        held.splice(held.indexOf(request), 1);
        request.response.writeHead(204).end();
      }
    },
    openUnder(prefix) {
      return [...receiver.open].filter(([path]) => path.startsWith(prefix)).reduce((sum, [, count]) => sum + count, 0);
    },
    until(predicate) {
      return new Promise<void>((resolve) => {
        waiters.push({ predicate, resolve });
        check();
      });
    },
    close() {
      receiver.release();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

// Held requests must not time out while a case runs (a loaded machine took 15 s): attempts may take 300 s here.
// A lease of 1,200 s, four such time-outs, lets the emitter claim two rounds per destination ahead (held, sent as slots free); 2 s none.
describe.each(['2', '1200'])('fair webhook delivery (claim lease %s s)', (lease) => {
  let testApp: TestApp;
  let slow: HoldingReceiver;
  let fast: Receiver;

  beforeAll(async () => {
    testApp = await startTestApp({
      ...WEBHOOK_TEST_ENV,
      // A window smaller than B's backlog: without the tenant cap, B would take every slot.
      WEBHOOK_MAX_IN_FLIGHT: String(WINDOW),
      WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION: String(PER_DESTINATION),
      WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: String(PER_TENANT),
      WEBHOOK_CLAIM_LEASE_SECONDS: lease,
      WEBHOOK_TIMEOUT_SECONDS: '300',
    });
    slow = await startHoldingReceiver();
    fast = await startReceiver();
  });
  afterAll(async () => {
    await testApp?.close();
    await slow?.close();
    await fast?.close();
  });

  /** Creates a sandbox session (which emits session.status_changed); returns its id. */
  async function createSession(tenant: TestTenant): Promise<string> {
    const response = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'aml_only', vendor_data: `fair-${Math.random()}` },
    });
    expect(response.status).toBe(201);
    return response.body.session_id;
  }

  it("given tenant B's endpoints holding every delivery, when tenant A's session changes, then A's webhook arrives while B's wait, and B never holds more than its caps", async () => {
    const tenantB = await testApp.tenant();
    for (let index = 0; index < SLOW_DESTINATIONS; index += 1) {
      const created = await testApp.rest('POST', '/v1/webhook-destinations', {
        key: tenantB.sandboxKey,
        body: { url: `${slow.url}/b/${index}` },
      });
      expect(created.status).toBe(201);
    }
    for (let index = 0; index < SLOW_SESSIONS; index += 1) await createSession(tenantB);
    // B's backlog (20 deliveries) fills B's share of the emitter and then waits.
    await slow.until(() => slow.peak.all >= PER_TENANT);

    const tenantA = await testApp.tenant();
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenantA.sandboxKey,
      body: { url: `${fast.url}/a/${tenantA.id}` },
    });
    fast.secret = destination.body.secret;
    const sessionId = await createSession(tenantA);
    const [delivered] = (await fast.waitFor((all) => all.some((item) => item.body?.data?.session_id === sessionId))).filter(
      (item) => item.body?.data?.session_id === sessionId,
    );
    expect(delivered!.verified).toBe(true);
    // Nothing of B's was answered yet: A did not wait for any of B's slow deliveries.
    expect(slow.answered).toBe(0);

    // On the embedded database this server's emitter is the only one, so its caps are the whole story.
    if (!process.env.DATABASE_URL) {
      expect(slow.peak.all).toBe(PER_TENANT);
      expect(Math.max(...slow.peak.perPath.values())).toBeLessThanOrEqual(PER_DESTINATION);
    }

    slow.release();
    await slow.until(() => slow.answered >= SLOW_DESTINATIONS * SLOW_SESSIONS);
  });

  it("given tenants B and C holding the emitter's whole window, when B's receiver answers, then C's claimed deliveries take the freed slots up to C's cap", async () => {
    const held = await startHoldingReceiver();
    try {
      const tenantB = await testApp.tenant();
      const tenantC = await testApp.tenant();
      // C's backlog is one session to as many destinations as its cap: a single claim takes all of it.
      for (const [tenant, name, destinations] of [
        [tenantB, 'b', SLOW_DESTINATIONS],
        [tenantC, 'c', PER_TENANT],
      ] as const) {
        for (let index = 0; index < destinations; index += 1) {
          const created = await testApp.rest('POST', '/v1/webhook-destinations', {
            key: tenant.sandboxKey,
            body: { url: `${held.url}/${name}/${index}` },
          });
          expect(created.status).toBe(201);
        }
      }
      for (let index = 0; index < SLOW_SESSIONS; index += 1) await createSession(tenantB);
      await held.until(() => held.openUnder('/b/') >= PER_TENANT);
      await createSession(tenantC);
      // C gets what B leaves of the window; the rest of C's backlog waits (claimed here, with a long lease, or not yet).
      await held.until(() => held.openUnder('/c/') >= WINDOW - PER_TENANT);
      if (!process.env.DATABASE_URL) expect(held.peak.all).toBe(WINDOW);

      // Only B's receiver answers: the slots B frees once its backlog is done go to C's deliveries
      // (waiting here, or claimed next), though none of C's own requests ends to make room.
      held.release('/b/');
      await held.until(() => held.answered >= SLOW_DESTINATIONS * SLOW_SESSIONS && held.openUnder('/c/') >= PER_TENANT);
      if (!process.env.DATABASE_URL) {
        expect(held.openUnder('/c/')).toBe(PER_TENANT);
        // C's requests were all still open: what started C's waiting deliveries was B's freed slots, not C's time-outs.
        expect(held.abandoned).toBe(0);
        expect(held.peak.all).toBe(WINDOW);
        expect(Math.max(...held.peak.perPath.values())).toBeLessThanOrEqual(PER_DESTINATION);
      }
      held.release();
      await held.until(() => held.answered >= SLOW_DESTINATIONS * SLOW_SESSIONS + PER_TENANT);
    } finally {
      await held.close();
    }
  });
});
