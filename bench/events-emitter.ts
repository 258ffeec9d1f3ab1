/**
 * Webhook emitter benchmark: `npm run bench:events [-- --events 5000 --latency-events 200 --destinations 1]`.
 *
 * A receiver on 127.0.0.1:0 (in a worker thread, so it has its own core) verifies every POST
 * with the official `standardwebhooks` library and counts them. Two measurements:
 *
 * - Throughput: a burst of N `agent.revoked` events committed in one transaction; time from the
 *   commit until the receiver has verified N deliveries, through the whole pipeline (outbox
 *   fan-out, claim, sign, POST, attempt rows). The baseline in the same run POSTs the same
 *   number of pre-signed bodies straight from undici at the same concurrency, with no database.
 * - Latency: events committed one at a time every 5 ms; commit-to-receipt per event, p50/p99,
 *   beside a plain undici POST's round trip.
 *
 * With `--destinations N` every event goes to N destinations of the tenant (N × events deliveries,
 * and as many baseline POSTs spread over the same N paths).
 *
 * Runs the emitter in-process on embedded PGlite (the `npm start` default) unless DATABASE_URL is set.
 * BENCH_COUNT_STATEMENTS=1 prints the statements sent during the burst, per delivery; for a CPU
 * profile run it as `npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/events-emitter.ts`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { Agent, request } from 'undici';
import { agentRevoked } from '../src/domain/events.js';
import { createServiceSecrets } from '../src/auth/secrets.js';
import { loadConfig } from '../src/shared/config.js';
import { openDatabase } from '../src/db/database.js';
import { EventBus, transactionWithEvents } from '../src/events/outbox.js';
import { createTenant } from '../src/tenants/tenant.service.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../src/webhooks/emitter-loops.js';
import { startEmitter } from '../src/webhooks/run.js';
import { signingKeyOf, signWebhook } from '../src/webhooks/signing.js';
import { createDestination } from '../src/webhooks/webhook.service.js';
import { countStatements, databaseCpuMicros } from './support/measure.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    'latency-events': { type: 'string', default: '200' },
    destinations: { type: 'string', default: '1' },
  },
});
const EVENTS = Number(values.events);
const LATENCY_EVENTS = Number(values['latency-events']);
const DESTINATIONS = Number(values.destinations);
/** Deliveries of the burst: every event to every destination. */
const DELIVERIES = EVENTS * DESTINATIONS;
const MASTER_KEY = 'bench-master-key-not-for-production-0123456789';

/** The receiver, as plain CommonJS for a worker: verifies, counts, reports arrival times per index (the number ending the token id). */
const RECEIVER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
const { Webhook } = require('standardwebhooks');
let hooks = [], verified = 0, failed = 0;
const arrivals = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      const hook = hooks[Number(req.url.split('/').pop()) || 0];
      hook.verify(body, { 'webhook-id': req.headers['webhook-id'], 'webhook-timestamp': req.headers['webhook-timestamp'], 'webhook-signature': req.headers['webhook-signature'] });
      verified++;
      const parsed = JSON.parse(body);
      const data = parsed.data || parsed;
      const index = /-(\\d+)$/.exec(data.jti || '');
      if (index) arrivals.push([Number(index[1]), performance.timeOrigin + performance.now()]);
    } catch (e) { failed++; }
    res.writeHead(204); res.end();
  });
});
server.keepAliveTimeout = 60000;
parentPort.on('message', (msg) => {
  if (msg.secrets) { hooks = msg.secrets.map((secret) => new Webhook(secret)); verified = 0; failed = 0; arrivals.length = 0; parentPort.postMessage({ ok: true }); }
  if (msg.stats) parentPort.postMessage({ verified, failed, arrivals: msg.arrivals ? arrivals.splice(0) : [] });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

/** Request/response with the receiver worker. */
function ask<T>(worker: Worker, message: unknown): Promise<T> {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(message);
  });
}

/** Percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Polls the receiver until it verified `count` messages; returns the wall time of that moment. */
async function waitVerified(worker: Worker, count: number, timeoutMs = 300_000): Promise<{ at: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await ask<{ verified: number; failed: number }>(worker, { stats: true });
    if (stats.verified >= count) return { at: performance.now(), failed: stats.failed };
    if (Date.now() > deadline) throw new Error(`only ${stats.verified}/${count} verified`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Statements sent by this process and their round trips (BENCH_COUNT_STATEMENTS=1). */
const { counts: statements, ms: statementMs } = process.env.BENCH_COUNT_STATEMENTS
  ? countStatements()
  : { counts: new Map<string, number>(), ms: new Map<string, number>() };

const worker = new Worker(RECEIVER_SOURCE, { eval: true });
const { port } = await new Promise<{ port: number }>((resolve) => worker.once('message', resolve));
const receiverUrl = `http://127.0.0.1:${port}/bench`;

const config = loadConfig({
  ...process.env,
  PGLITE_DATA_DIR: 'memory',
  MASTER_KEY,
  LOG_LEVEL: 'silent',
  DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true',
  MIGRATE_ON_START: 'true',
  EMITTER_POLL_INTERVAL_MS: '20',
});
const logger = pino({ level: 'silent' });
const database = await openDatabase(config, logger, { migrate: true });
const secrets = createServiceSecrets(MASTER_KEY);
const bus = new EventBus();
const tenant = await createTenant(database.orm.em.fork(), `bench-${Date.now()}`);
const destinationSecrets: string[] = [];
for (let index = 0; index < DESTINATIONS; index += 1) {
  const { secret } = await createDestination(
    database.orm.em.fork(),
    secrets,
    true,
    { tenantId: tenant.id, environment: 'live' },
    { url: `${receiverUrl}/${index}`, version: 'v3' },
  );
  destinationSecrets.push(secret!);
}
const resetReceiver = () => ask(worker, { secrets: destinationSecrets });
await resetReceiver();

console.log(
  `Webhook emitter benchmark: ${EVENTS} events burst to ${DESTINATIONS} destination(s) (${DELIVERIES} deliveries), ${LATENCY_EVENTS} paced; ${database.embedded ? 'embedded PGlite' : 'PostgreSQL server'}, per-destination concurrency ${config.WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION}`,
);

let baselineRate = 0;
// Baseline: the same number of signed POSTs straight from undici, same concurrency, no database.
{
  const agent = new Agent({ connections: 128 });
  const keys = destinationSecrets.map((secret) => signingKeyOf(secret));
  const bodies = Array.from({ length: DELIVERIES }, (_, index) =>
    JSON.stringify({ type: 'agent.revoked', timestamp: Math.floor(Date.now() / 1000), data: { jti: `baseline-${index}` } }),
  );
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: DEFAULT_MAX_IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const index = next++;
        const body = bodies[index]!;
        const destination = index % DESTINATIONS;
        const headers = signWebhook(keys[destination]!, `baseline-${index}`, Math.floor(Date.now() / 1000), body);
        const t0 = performance.now();
        const response = await request(`${receiverUrl}/${destination}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          dispatcher: agent,
        });
        await response.body.dump();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { failed } = await waitVerified(worker, DELIVERIES);
  latencies.sort((a, b) => a - b);
  baselineRate = DELIVERIES / seconds;
  console.log(
    `baseline  (undici POST, no pipeline): ${baselineRate.toFixed(0)} deliveries/s, request p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, bad signatures ${failed}`,
  );
  await agent.close();
  await resetReceiver();
}

/** A made-up `agent.revoked` whose token id ends with its index. */
const revoked = (jti: string) => agentRevoked({ jti, sessionId: randomUUID(), vendorData: 'bench' }, 'bench', new Date());

const running = await startEmitter({ url: database.url, config, secrets, logger, bus });

// Throughput: one burst through the whole pipeline.
{
  const statementsBefore = new Map(statements);
  const statementMsBefore = new Map(statementMs);
  const cpuBefore = process.cpuUsage();
  const receiverBefore = worker.performance.eventLoopUtilization();
  const databaseBefore = await databaseCpuMicros(database.embedded);
  const started = performance.now();
  await transactionWithEvents(database.orm.em.fork(), bus, async (tx, events) => {
    for (let index = 0; index < EVENTS; index++)
      events.record(tx, { tenantId: tenant.id, environment: 'live', ...revoked(`burst-${index}`) });
  });
  const committed = performance.now();
  const { at, failed } = await waitVerified(worker, DELIVERIES);
  const seconds = (at - committed) / 1000;
  console.log(
    `emitter   (outbox → fan-out → sign → POST → attempt rows): ${(DELIVERIES / seconds).toFixed(0)} deliveries/s = ${((DELIVERIES / seconds / baselineRate) * 100).toFixed(0)} % of the baseline (${DELIVERIES} in ${seconds.toFixed(2)} s after a ${(committed - started).toFixed(0)} ms commit), bad signatures ${failed}`,
  );
  const cpu = process.cpuUsage(cpuBefore);
  const receiver = worker.performance.eventLoopUtilization(receiverBefore);
  const databaseAfter = await databaseCpuMicros(database.embedded);
  const perDelivery = (micros: number) => (micros / DELIVERIES).toFixed(0);
  console.log(
    `burst CPU per delivery: emitter process ${perDelivery(cpu.user + cpu.system - receiver.active * 1000)} µs (receiver thread ${perDelivery(receiver.active * 1000)} µs besides), ` +
      `PostgreSQL ${databaseBefore === null || databaseAfter === null ? 'n/a' : `${perDelivery(databaseAfter - databaseBefore)} µs`}`,
  );
  if (statements.size > 0) {
    const sent = [...statements]
      .map(([text, count]) => [text, (count - (statementsBefore.get(text) ?? 0)) / DELIVERIES] as const)
      .filter(([, perDelivery]) => perDelivery > 0)
      .sort((a, b) => b[1] - a[1]);
    const total = sent.reduce((sum, [, perDelivery]) => sum + perDelivery, 0);
    console.log(`burst: ${total.toFixed(3)} statements per delivery (BENCH_COUNT_STATEMENTS)`);
    for (const [text, perDelivery] of sent) {
      const ms = (statementMs.get(text) ?? 0) - (statementMsBefore.get(text) ?? 0);
      const count = perDelivery * DELIVERIES;
      console.log(`  ${perDelivery.toFixed(4)}  ${(ms / count).toFixed(2).padStart(7)} ms each  ${text}`);
    }
  }
  await resetReceiver();
}

// Latency: events committed one at a time.
{
  const committedAt = new Map<number, number>();
  for (let index = 0; index < LATENCY_EVENTS; index++) {
    await transactionWithEvents(database.orm.em.fork(), bus, async (tx, events) => {
      events.record(tx, { tenantId: tenant.id, environment: 'live', ...revoked(`paced-${index}`) });
    });
    committedAt.set(index, performance.timeOrigin + performance.now());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await waitVerified(worker, LATENCY_EVENTS * DESTINATIONS);
  const { arrivals } = await ask<{ arrivals: [number, number][] }>(worker, { stats: true, arrivals: true });
  const latencies = arrivals.map(([index, at]) => at - committedAt.get(index)!).sort((a, b) => a - b);
  console.log(
    `emitter   commit → verified receipt, paced: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
}

// Every delivery has its attempt row (after stop, which writes the last results).
await running.stop();
const [counts] = await database.orm.em
  .fork()
  .execute<{ deliveries: string; attempts: string }[]>(
    `select (select count(*) from webhook_delivery where tenant_id = ?) as deliveries, (select count(*) from webhook_attempt where tenant_id = ?) as attempts`,
    [tenant.id, tenant.id],
    'all',
  );
console.log(`rows: ${counts!.deliveries} deliveries, ${counts!.attempts} attempts`);

await database.close();
await worker.terminate();
