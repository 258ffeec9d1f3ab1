/**
 * Scale-out proven (issue 28.7): the production layout as real processes on one PostgreSQL
 * database (two API servers, two engine workers, the webhook emitter: test/support/topology.ts).
 * Live sessions are created on one API server and decided through the workers (a proof-of-address
 * step, a CPU engine that only the workers run); a graphql-ws subscriber on the other API server
 * and a real local webhook receiver each get every status change exactly once, by event id, also
 * across a `kill -9` of the worker running a job and, later, of the API server with requests in
 * flight (restarted; its clients retry). Every wait is for an event (a log line, an answer, a
 * delivery), never for time.
 *
 * PostgreSQL server only: the embedded database belongs to one process, so there is nothing to
 * scale out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { billPdf, daysAgo, longDate } from '../poa/fixtures.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';
import {
  demoKeys,
  startApiProcess,
  startEmitterProcess,
  startWorkerProcess,
  type ApiProcess,
  type ServiceProcess,
  type TopologyOptions,
} from '../support/topology.js';

const SUBSCRIPTION = 'subscription { sessionStatusChanged { id sessionId status previousStatus } }';
/** Statuses after which a session changes no more in this test (no reviewer acts). */
const SETTLED = new Set(['approved', 'declined', 'in_review']);
/** Sessions per phase; phases run them this many at a time. */
const PHASE_SESSIONS = 3;
/** Bearer token of the API servers' /metrics, where the subscriber's server says its subscription is open. */
const METRICS_TOKEN = 'scale-out-metrics-token-0123456789abcdef';

/** One status change as the subscriber got it. */
interface SubscribedChange {
  id: string;
  sessionId: string;
  status: string;
  previousStatus: string | null;
}

const databaseUrl = process.env.DATABASE_URL;

if (!databaseUrl) {
  describe('scale-out on real processes', () => {
    it.skip('needs a PostgreSQL server: set DATABASE_URL (the embedded database belongs to one process, so nothing scales out)', () =>
      undefined);
  });
}

describe.skipIf(!databaseUrl)('scale-out: two API servers, two engine workers and the emitter as processes on PostgreSQL', () => {
  let options: TopologyOptions;
  /** The API server sessions are created and decided on (replaced when it is killed and restarted). */
  let creator: ApiProcess;
  /** Resolves once the creator is back after its kill; clients whose request failed wait for it. */
  let creatorBack: Promise<void> = Promise.resolve();
  let subscriberApi: ApiProcess;
  let workers: ServiceProcess[];
  let emitter: ServiceProcess;
  const spare: ServiceProcess[] = [];
  let receiver: Receiver;
  let subscriber: Client;
  let liveKey: string;
  let tenantId: string;
  let workflowId: string;
  let bill: string;
  const subscribed: SubscribedChange[] = [];
  const sessions = new Map<string, string>();
  let vendorSeq = 0;

  beforeAll(async () => {
    options = { databaseUrl: databaseUrl!, env: { ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false', METRICS_TOKEN } };
    receiver = await startReceiver();
    bill = `data:application/pdf;base64,${(await billPdf({ name: 'Ada Lovelace', issued: longDate(daysAgo(10)) })).toString('base64')}`;
    // The first API server creates the demo tenant and prints its keys; the rest start beside it.
    creator = await startApiProcess(options, { seedDemoTenant: true });
    [subscriberApi, workers, emitter] = await Promise.all([
      startApiProcess(options),
      Promise.all([startWorkerProcess(options), startWorkerProcess(options)]),
      startEmitterProcess(options),
    ]);
    ({ liveKey, tenantId } = await demoKeys(creator));

    const destination = await call(creator, 'POST', '/v1/webhook-destinations', { url: `${receiver.url}/scale-out`, version: 'v3' });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    receiver.secret = destination.body.secret;
    const workflow = await call(creator, 'POST', '/v1/workflows', {
      name: 'Scale-out proof of address',
      nodes: [{ type: 'proof_of_address', required: true, provider: 'openkyc:poa_ocr' }],
    });
    expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
    workflowId = workflow.body.workflow_id;

    subscriber = createClient({
      url: `${subscriberApi.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': liveKey },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    subscriber.subscribe<{ sessionStatusChanged: SubscribedChange }>(
      { query: SUBSCRIPTION },
      {
        next: (message) => {
          if (message.data) subscribed.push(message.data.sessionStatusChanged);
        },
        error: (error) => subscribed.push({ id: `error: ${JSON.stringify(error)}`, sessionId: '', status: '', previousStatus: null }),
        complete: () => undefined,
      },
    );
    // The subscriber's server counts the subscription once it is registered; from then on nothing is missed.
    await waitForOpenSubscriptions(subscriberApi, 1);
    // A session created on one server and seen by the subscriber on the other.
    const sentinel = await createOn(creator, `sentinel-${Date.now()}`);
    await waitUntil(() => subscribed.some((change) => change.sessionId === sentinel), 'the subscriber sees the first session', 60_000);
  }, 240_000);

  afterAll(async () => {
    await subscriber?.dispose();
    const everyone = [creator, subscriberApi, emitter, ...(workers ?? []), ...spare].filter(Boolean);
    await Promise.all(everyone.map((service) => service.stop()));
    await receiver?.close();
  });

  /** A REST call with the live key; throws (fetch) when the server is gone. */
  async function call(api: ApiProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { 'x-api-key': liveKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function createOn(api: ApiProcess, vendorData: string): Promise<string> {
    const created = await call(api, 'POST', '/v1/sessions', { workflow_id: workflowId, vendor_data: vendorData });
    expect([200, 201], JSON.stringify(created.body)).toContain(created.status);
    sessions.set(vendorData, created.body.session_id);
    return created.body.session_id;
  }

  /**
   * Creates a live session on the creator and submits its proof of address there (the engine runs
   * on a worker). A request the creator's death cut off is retried once it is back: the session is
   * found again by its vendor_data, and a step that had committed is not sent twice.
   */
  async function runSession(): Promise<string> {
    const vendorData = `scale-out-${++vendorSeq}`;
    for (;;) {
      const api = creator;
      try {
        let sessionId = sessions.get(vendorData);
        if (!sessionId) {
          const found = await call(api, 'GET', `/v1/sessions?vendor_data=${vendorData}`);
          sessionId = found.body?.sessions?.[0]?.session_id ?? (await createOn(api, vendorData));
          sessions.set(vendorData, sessionId!);
        }
        const current = await call(api, 'GET', `/v1/sessions/${sessionId}`);
        if (SETTLED.has(current.body.status)) return sessionId!;
        const step = await call(api, 'POST', `/v1/sessions/${sessionId}/steps/proof-of-address`, {
          document_image: bill,
          expected_name: 'Ada Lovelace',
          country: 'GB',
        });
        // A refusal names what the servers and workers logged as errors, so a rare one can be traced.
        expect(step.status, `${JSON.stringify(step.body)}\n${loggedErrors()}`).toBe(200);
        expect(SETTLED.has(step.body.status), JSON.stringify(step.body)).toBe(true);
        return sessionId!;
      } catch (error) {
        // Only a connection the creator's death cut off (fetch failed) is retried.
        if (!(error instanceof TypeError) || !spare.includes(api)) throw error;
        await creatorBack;
      }
    }
  }

  /** The error lines (pino level 50 and above) every process of the layout has logged so far. */
  function loggedErrors(): string {
    const everyone = [creator, subscriberApi, emitter, ...(workers ?? []), ...spare].filter(Boolean);
    return everyone
      .flatMap((service) =>
        service.lines.filter((line) => Number(line.level) >= 50).map((line) => `${service.role}: ${line.text.slice(0, 2000)}`),
      )
      .join('\n');
  }

  /** Reads `idv_subscriptions_open` from a server's /metrics until it reaches `count`. */
  async function waitForOpenSubscriptions(api: ApiProcess, count: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const metrics = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((response) =>
        response.text(),
      );
      const open = Number(/^idv_subscriptions_open (\d+)/m.exec(metrics)?.[1] ?? 0);
      if (open >= count) return;
      if (Date.now() > deadline) throw new Error(`the subscription did not open on ${api.url} (idv_subscriptions_open ${open})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const runPhase = () => Promise.all(Array.from({ length: PHASE_SESSIONS }, () => runSession()));

  /** Waits for a condition over what has arrived (checked every 10 ms), failing with `what` after `timeoutMs`. */
  async function waitUntil(condition: () => boolean, what: string | (() => string), timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${typeof what === 'function' ? what() : what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Job ids the workers have started so far. */
  const startedJobs = () =>
    new Set(workers.flatMap((worker) => worker.lines.filter((line) => line.msg === 'engine job started').map((line) => line.jobId)));

  /** The first engine job started after `before` on any of `candidates`, with the worker that runs it. */
  const nextJob = (candidates: ServiceProcess[], before: Set<unknown>) =>
    Promise.race(
      candidates.map((worker) =>
        worker.next((line) => line.msg === 'engine job started' && !before.has(line.jobId)).then((line) => ({ line, worker })),
      ),
    );

  it(
    'given live sessions created on one API server and decided through the workers, across a kill -9 of a worker mid-job and of that API server mid-request, then the subscriber on the other server and the webhook receiver get every status change exactly once',
    { timeout: 420_000 },
    async () => {
      // Phase 1: the layout as started.
      await runPhase();

      // Phase 2: the worker running a job is killed; the other retries the job and the request answers.
      const beforeKill = startedJobs();
      const phase2 = runPhase();
      const victim = await nextJob(workers, beforeKill);
      await victim.worker.kill9();
      const survivor = workers.find((worker) => worker !== victim.worker)!;
      await phase2;
      const retried = await survivor.next((line) => line.msg === 'engine job finished' && line.jobId === victim.line.jobId);
      expect(retried.worker).not.toBe(victim.line.worker);

      // Phase 3: the creator is killed with requests in flight (a job running for it), restarted, and its clients retry.
      const beforeApiKill = startedJobs();
      const phase3 = runPhase();
      await nextJob([survivor], beforeApiKill);
      const killed = creator;
      spare.push(killed);
      await killed.kill9();
      creatorBack = startApiProcess(options).then((restarted) => {
        creator = restarted;
      });
      await creatorBack;
      await phase3;

      // Phase 4: the restarted server and the one remaining worker carry on.
      await runPhase();

      // Every status change the database committed for the tenant, in order.
      const database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      let committed: { id: string; session_id: string; status: string }[];
      let deliveries: { event_id: string; status: string; attempt_count: number }[];
      const webhookChanges = () => receiver.received.filter((item) => item.body?.type === 'session.status_changed');
      try {
        committed = (
          await database.query<{ id: string; session_id: string; status: string }>(
            `select id, session_id, payload->>'status' as status from outbox_event
              where tenant_id = $1 and type = 'session.status_changed' order by seq`,
            [tenantId],
          )
        ).rows;
        const missing = (ids: string[]) =>
          committed
            .filter((row) => !ids.includes(row.id))
            .map((row) => `${row.session_id.slice(0, 8)}:${row.status}`)
            .join(', ');
        await waitUntil(
          () => new Set(subscribed.map((change) => change.id)).size >= committed.length,
          () => `the subscriber has every change (missing ${missing(subscribed.map((change) => change.id))})`,
        );
        await waitUntil(
          () => new Set(webhookChanges().map((item) => item.body.id)).size >= committed.length,
          () => `the receiver has every change (missing ${missing(webhookChanges().map((item) => item.body.id))})`,
        );
        // Every delivery recorded as sent (the emitter records each after its POST): nothing is left to send again.
        const readDeliveries = async () =>
          (
            await database.query<{ event_id: string; status: string; attempt_count: number }>(
              `select event_id, status, attempt_count from webhook_delivery where tenant_id = $1 and event_type = 'session.status_changed'`,
              [tenantId],
            )
          ).rows;
        await expect
          .poll(async () => (await readDeliveries()).filter((delivery) => delivery.status === 'succeeded').length, {
            timeout: 60_000,
            interval: 100,
          })
          .toBe(committed.length);
        deliveries = await readDeliveries();
      } finally {
        await database.end();
      }
      const committedIds = committed.map((row) => row.id);

      // Each session: created (pending), started (in_progress), settled; 13 sessions beside the sentinel.
      const bySession = new Map<string, string[]>();
      for (const row of committed) bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row.status]);
      expect(sessions.size).toBe(4 * PHASE_SESSIONS + 1);
      for (const [vendorData, sessionId] of sessions) {
        const statuses = bySession.get(sessionId) ?? [];
        if (vendorData.startsWith('sentinel')) expect(statuses).toEqual(['pending']);
        else {
          expect(statuses.slice(0, 2), vendorData).toEqual(['pending', 'in_progress']);
          expect(statuses).toHaveLength(3);
          expect(SETTLED.has(statuses[2]!)).toBe(true);
        }
      }
      // Exactly once, by event id, on both channels: the same ids as committed, none twice, none else.
      const subscribedIds = subscribed.map((change) => change.id);
      expect(subscribedIds.length).toBe(new Set(subscribedIds).size);
      expect(new Set(subscribedIds)).toEqual(new Set(committedIds));
      const deliveredIds = webhookChanges().map((item) => item.body.id as string);
      expect(deliveredIds.length).toBe(new Set(deliveredIds).size);
      expect(new Set(deliveredIds)).toEqual(new Set(committedIds));
      expect(webhookChanges().every((item) => item.verified)).toBe(true);
      expect(deliveries).toHaveLength(committedIds.length);
      expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attempt_count === 1)).toBe(true);
      // Both workers ran jobs.
      for (const worker of workers) expect(worker.lines.some((line) => line.msg === 'engine job finished')).toBe(true);
    },
  );
});
