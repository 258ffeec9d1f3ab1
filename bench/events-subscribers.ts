/**
 * Live status benchmark (a): `npx tsx --expose-gc bench/events-subscribers.ts [--subscribers 5000] [--changes 1000] [--per-socket 1] [--client raw|graphql-ws]`.
 * At 20,000 subscribers use `--per-socket 4` where a process may open 20,000 files (each socket is two: client and server).
 *
 * Starts the service in this process (embedded PGlite in memory, or DATABASE_URL when set),
 * opens N graphql-ws `sessionStatusChanged` subscriptions of one tenant from a worker thread
 * (`--per-socket` subscriptions share a socket; 1 is a console per socket, the costly case),
 * then makes M status changes (session creations over REST, one after another) that every
 * subscriber receives. Reports:
 * - delivery latency p50/p99/max from the commit (the in-process bus publishes right after it)
 *   to the client's receipt, over every (change, subscriber) pair;
 * - memory per idle subscription: the server thread's heap + external growth after GC while the
 *   subscriptions after the first tenth (at most 50 sockets, which load code once) open, divided by
 *   their number (the clients live in the worker's own heap);
 * - the server thread's CPU time (user + system, `process.threadCpuUsage`) per delivery from the
 *   first change until the last delivery arrived: steadier than latency on a machine other work
 *   shares. The subscriptions' figure includes the REST creates and the embedded database, which
 *   the baseline's does not.
 * The subscribers' client is `raw` by default: graphql-transport-ws over a bare `ws` socket read with
 * `JSON.parse`, the same client work per message as the baseline's, so the comparison is the
 * server's; `--client graphql-ws` uses graphql-ws's own client instead (its per-message
 * validation and dispatch run on the receiving thread and count in the latency).
 * Baseline in the same run: the same number of messages of the same shape, broadcast with a
 * plain `ws` server (no GraphQL, no auth) to as many sockets, at the same commit times.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { startApp } from '../src/app.js';
import type { PublishedEvent } from '../src/events/outbox.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '5000' },
    changes: { type: 'string', default: '1000' },
    'per-socket': { type: 'string', default: '1' },
    client: { type: 'string', default: 'raw' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const CHANGES = Number(values.changes);
const PER_SOCKET = Number(values['per-socket']);
const SOCKETS = Math.ceil(SUBSCRIBERS / PER_SOCKET);
if (values.client !== 'raw' && values.client !== 'graphql-ws') throw new Error('--client is raw or graphql-ws');
/** How the subscribers' worker opens its graphql-ws subscriptions (see the header). */
const CLIENT_KIND = values.client === 'raw' ? 'graphql-raw' : 'graphql';
/** Targets of the issue. */
const TARGET_P99_MS = 250;
const TARGET_BYTES_PER_SUBSCRIPTION = 30 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn('run with --expose-gc (tsx --expose-gc ...) for meaningful memory figures');

/** Epoch milliseconds, comparable across the threads of one process. */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** Server-thread memory that subscriptions grow: JS heap plus buffers, after two GCs, in bytes. */
async function settledMemory(): Promise<number> {
  for (let i = 0; i < 2; i += 1) {
    gc?.();
    await delay(50);
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** CPU time the server thread has used, in microseconds (user + system). */
function threadCpuMicros(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}

/** Talks to the client worker. */
function startClients(): { send(command: object, reply: string): Promise<any>; worker: Worker } {
  const worker = new Worker(new URL('./events-subscribers.client.ts', import.meta.url));
  worker.on('error', (error) => {
    console.error(error);
    process.exit(1);
  });
  return {
    worker,
    send(command, reply) {
      return new Promise((resolve) => {
        const onMessage = (message: { type: string }) => {
          if (message.type !== reply) return;
          worker.off('message', onMessage);
          resolve(message);
        };
        worker.on('message', onMessage);
        worker.postMessage(command);
      });
    },
  };
}

/** Waits until every delivery arrived (or the stream went quiet for 10 s). */
async function drained(clients: ReturnType<typeof startClients>, expected: number, committedAtMs: Record<string, number>): Promise<any> {
  let last = -1;
  for (let quietRounds = 0; quietRounds < 100;) {
    const stats = await clients.send({ type: 'count' }, 'count');
    if (stats.received >= expected) break;
    quietRounds = stats.received === last ? quietRounds + 1 : 0;
    last = stats.received;
    await delay(100);
  }
  return clients.send({ type: 'collect', committedAtMs }, 'collected');
}

const format = (ms: number) => `${ms.toFixed(1)} ms`;
const formatKb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const config = benchAppConfig({
  // The tests' key, so a shared test database's stored signing keys decrypt.
  MASTER_KEY: process.env.MASTER_KEY ?? 'test-master-key-not-for-production-0123456789',
  MIGRATE_ON_START: process.env.MIGRATE_ON_START,
  JOBS_ENABLED: 'false',
  EMITTER_IN_PROCESS: 'false',
  // Every subscriber of the bench comes from 127.0.0.1, thousands at once before their keys are checked.
  WS_MAX_SOCKETS_PER_ADDRESS: '1000000',
});
const app = await startApp(config, { logger: pino({ level: 'silent' }) });
const em = app.orm.em.fork();
const tenant = await createTenant(em, `bench-${randomUUID().slice(0, 8)}`);
const { key } = await issueApiKey(em, tenant.id, 'sandbox');
const clients = startClients();

console.log(
  `live status bench: ${SUBSCRIBERS} subscriptions on ${SOCKETS} sockets (${values.client} client), ${CHANGES} status changes, ` +
    `${app.database.embedded ? 'embedded PGlite' : 'PostgreSQL (DATABASE_URL)'}, node ${process.version}`,
);

// --- graphql-ws: memory per idle subscription
// The first sockets load code the server had not needed yet (graphql-ws, the subscription's
// resolvers, modules they import): a cost paid once per process, 1.2 MB here, not per subscriber.
// They are opened first and left out, so the figure is what each further subscription adds, as the
// plain baseline below (which runs after them, on warm code) is measured too.
const wsUrl = `${app.url.replace('http', 'ws')}/graphql`;
const warmSockets = Math.max(1, Math.min(50, Math.floor(SOCKETS / 10)));
await clients.send({ type: 'open', kind: CLIENT_KIND, url: wsUrl, key, sockets: warmSockets, perSocket: PER_SOCKET }, 'opened');
while (app.services.live.subscriberCount < warmSockets * PER_SOCKET) await delay(20);
const beforeSubscriptions = await settledMemory();
await clients.send({ type: 'open', kind: CLIENT_KIND, url: wsUrl, key, sockets: SOCKETS - warmSockets, perSocket: PER_SOCKET }, 'opened');
while (app.services.live.subscriberCount < SUBSCRIBERS) await delay(20);
const withSubscriptions = await settledMemory();
console.log(`opened ${SUBSCRIBERS} subscriptions`);
const bytesPerSubscription = (withSubscriptions - beforeSubscriptions) / ((SOCKETS - warmSockets) * PER_SOCKET);

// --- graphql-ws: 1,000 committed changes, latency commit → receipt
const committedAtMs: Record<string, number> = {};
const commitOffsetsMs: number[] = [];
const onEvent = (event: PublishedEvent) => {
  committedAtMs[event.id] = nowMs();
};
app.services.bus.on('event', onEvent);
const startedAt = nowMs();
const graphqlCpuBefore = threadCpuMicros();
for (let i = 0; i < CHANGES; i += 1) {
  const response = await fetch(`${app.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ workflow_id: 'standard_kyc', vendor_data: `bench-${i}` }),
  });
  if (response.status !== 201) throw new Error(`session creation answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  if ((i + 1) % 100 === 0) console.log(`${i + 1} changes in ${((nowMs() - startedAt) / 1000).toFixed(1)} s`);
}
app.services.bus.off('event', onEvent);
const changesSeconds = (nowMs() - startedAt) / 1000;
for (const at of Object.values(committedAtMs)) commitOffsetsMs.push(at - startedAt);
const graphqlStats = await drained(clients, SUBSCRIBERS * CHANGES, committedAtMs);
const graphqlCpuMicros = threadCpuMicros() - graphqlCpuBefore;
await clients.send({ type: 'close' }, 'closed');
while (app.services.live.subscriberCount > 0) await delay(20);

// --- baseline: plain ws broadcast of the same messages to as many sockets, at the same times
const plain = new WebSocketServer({ port: 0, host: '127.0.0.1' });
await new Promise((resolve) => plain.once('listening', resolve));
const plainSockets: WebSocket[] = [];
plain.on('connection', (socket) => plainSockets.push(socket));
const beforePlain = await settledMemory();
const plainPort = (plain.address() as { port: number }).port;
await clients.send({ type: 'open', kind: 'plain', url: `ws://127.0.0.1:${plainPort}`, key, sockets: SOCKETS, perSocket: 1 }, 'opened');
while (plainSockets.length < SOCKETS) await delay(20);
const withPlain = await settledMemory();
const plainCommittedAtMs: Record<string, number> = {};
const plainStartedAt = nowMs();
const plainCpuBefore = threadCpuMicros();
for (const offsetMs of commitOffsetsMs.sort((a, b) => a - b)) {
  const wait = plainStartedAt + offsetMs - nowMs();
  if (wait > 1) await delay(wait);
  const id = randomUUID();
  const message = JSON.stringify({
    id: randomUUID(),
    type: 'next',
    payload: {
      data: { sessionStatusChanged: { id, sessionId: randomUUID(), status: 'pending', previousStatus: null, changedAt: 1_800_000_000 } },
    },
  });
  plainCommittedAtMs[id] = nowMs();
  for (const socket of plainSockets) for (let j = 0; j < PER_SOCKET; j += 1) socket.send(message);
}
const plainStats = await drained(clients, SOCKETS * PER_SOCKET * CHANGES, plainCommittedAtMs);
const plainCpuMicros = threadCpuMicros() - plainCpuBefore;
await clients.send({ type: 'close' }, 'closed');
plain.close();

const rows = [
  ['', 'graphql-ws subscription', 'plain ws broadcast (baseline)'],
  [
    'deliveries received',
    `${graphqlStats.received} / ${SUBSCRIBERS * CHANGES}`,
    `${plainStats.received} / ${SOCKETS * PER_SOCKET * CHANGES}`,
  ],
  ['latency p50', format(graphqlStats.p50), format(plainStats.p50)],
  ['latency p99', format(graphqlStats.p99), format(plainStats.p99)],
  ['latency max', format(graphqlStats.max), format(plainStats.max)],
  [
    'server CPU per delivery',
    `${(graphqlCpuMicros / (SUBSCRIBERS * CHANGES)).toFixed(1)} µs`,
    `${(plainCpuMicros / (SOCKETS * PER_SOCKET * CHANGES)).toFixed(1)} µs`,
  ],
  ['memory per idle subscription', formatKb(bytesPerSubscription), formatKb((withPlain - beforePlain) / (SOCKETS * PER_SOCKET))],
];
console.log(`status changes: ${CHANGES} in ${changesSeconds.toFixed(1)} s (${(CHANGES / changesSeconds).toFixed(0)}/s)`);
for (const row of rows) console.log(`${row[0]!.padEnd(30)}${row[1]!.padEnd(28)}${row[2]}`);
console.log(
  `targets: p99 < ${TARGET_P99_MS} ms: ${graphqlStats.p99 < TARGET_P99_MS ? 'met' : 'MISSED'}; ` +
    `< ${formatKb(TARGET_BYTES_PER_SUBSCRIPTION)} per idle subscription: ${bytesPerSubscription < TARGET_BYTES_PER_SUBSCRIPTION ? 'met' : 'MISSED'}`,
);

await clients.worker.terminate();
await app.close();
