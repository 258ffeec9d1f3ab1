/**
 * `npm run bench:scale-out`: throughput of the production layout as real processes on a
 * PostgreSQL server (test/support/topology.ts), with one API server and one engine worker, then
 * two of each, the emitter once in both, printed side by side. Each run starts on a fresh database
 * of its own (the first API server migrates it) and pushes `--sessions` live sessions through it,
 * `--concurrency` at a time, spread over the API servers: create, a proof-of-address step whose
 * engine runs on a worker, and the webhooks of each session's three status changes at a local
 * receiver. Throughput counts sessions whose every webhook has arrived, per second of wall time.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:scale-out -- --sessions 40 --concurrency 8
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { billPdf, daysAgo, longDate } from '../test/poa/fixtures.js';
import { startReceiver, WEBHOOK_TEST_ENV } from '../test/webhooks/support.js';
import {
  demoKeys,
  startApiProcess,
  startEmitterProcess,
  startWorkerProcess,
  type ApiProcess,
  type ServiceProcess,
  type TopologyOptions,
} from '../test/support/topology.js';
import { percentile } from './support/templates.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
  },
});
const SESSIONS = Number(values.sessions);
const CONCURRENCY = Number(values.concurrency);
const THREADS = Number(values.threads);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  console.error('bench:scale-out needs a PostgreSQL server: set DATABASE_URL (a database on it is used to create fresh ones).');
  process.exit(1);
}

/** What one layout achieved. */
interface Figures {
  layout: string;
  seconds: number;
  sessionsPerSecond: number;
  webhooksPerSecond: number;
  stepP50Ms: number;
  stepP95Ms: number;
  jobsPerWorker: number[];
  load: string;
}

/** Creates an empty database on the server and returns its URL and how to drop it. */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_scale_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = new URL(serverUrl!);
  admin.pathname = '/postgres';
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await run(`create database ${pg.escapeIdentifier(name)}`);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`) };
}

const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** Starts `apis` API servers and `workers` workers plus the emitter, runs the sessions, stops everything. */
async function runLayout(apis: number, workerCount: number, bill: string): Promise<Figures> {
  const database = await freshDatabase();
  const receiver = await startReceiver();
  const options: TopologyOptions = { databaseUrl: database.url, env: { ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' } };
  const started: ServiceProcess[] = [];
  try {
    const first = await startApiProcess(options, { seedDemoTenant: true, migrate: true });
    started.push(first);
    const rest = await Promise.all([
      ...Array.from({ length: apis - 1 }, () => startApiProcess(options)),
      ...Array.from({ length: workerCount }, () => startWorkerProcess(options, THREADS)),
      startEmitterProcess(options),
    ]);
    started.push(...rest);
    const apiServers = [first, ...(rest.slice(0, apis - 1) as ApiProcess[])];
    const workers = rest.slice(apis - 1, apis - 1 + workerCount);
    const { liveKey } = await demoKeys(first);
    const call = async (api: ApiProcess, method: string, path: string, body: unknown) => {
      const response = await fetch(`${api.url}${path}`, {
        method,
        headers: { 'x-api-key': liveKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, any>;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const destination = await call(first, 'POST', '/v1/webhook-destinations', { url: `${receiver.url}/bench`, version: 'v3' });
    receiver.secret = destination.secret;
    const { workflow_id: workflowId } = await call(first, 'POST', '/v1/workflows', {
      name: 'Scale-out bench',
      nodes: [{ type: 'proof_of_address', required: true, provider: 'openkyc:poa_ocr' }],
    });
    // Outside the timing, each worker runs a first job (loading its engines): warm-up sessions,
    // as many at once as there are workers, until every worker has finished one.
    let warmUps = 0;
    const finishedOne = (worker: ServiceProcess) => worker.lines.some((line) => line.msg === 'engine job finished');
    while (!workers.every(finishedOne)) {
      await Promise.all(
        workers.map(async () => {
          const warm = await call(first, 'POST', '/v1/sessions', { workflow_id: workflowId, vendor_data: `warm-up-${warmUps++}` });
          await call(first, 'POST', `/v1/sessions/${warm.session_id}/steps/proof-of-address`, { document_image: bill, country: 'GB' });
        }),
      );
    }
    const warmWebhooks = 3 * warmUps;
    await receiver.waitFor((all) => all.length >= warmWebhooks, 120_000);
    const jobsBefore = workers.map((worker) => worker.lines.filter((line) => line.msg === 'engine job finished').length);

    const stepMs: number[] = [];
    let next = 0;
    const startedAt = performance.now();
    const client = async () => {
      for (;;) {
        const index = next++;
        if (index >= SESSIONS) return;
        const api = apiServers[index % apiServers.length]!;
        const created = await call(api, 'POST', '/v1/sessions', { workflow_id: workflowId, vendor_data: `bench-${index}` });
        const stepStarted = performance.now();
        await call(api, 'POST', `/v1/sessions/${created.session_id}/steps/proof-of-address`, { document_image: bill, country: 'GB' });
        stepMs.push(performance.now() - stepStarted);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    // Three status changes per session: pending, in_progress, the verdict.
    await receiver.waitFor((all) => all.length >= warmWebhooks + 3 * SESSIONS, 300_000);
    const seconds = (performance.now() - startedAt) / 1000;
    stepMs.sort((a, b) => a - b);
    return {
      layout: `${apis} API + ${workerCount} worker${workerCount > 1 ? 's' : ''}`,
      seconds,
      sessionsPerSecond: SESSIONS / seconds,
      webhooksPerSecond: (3 * SESSIONS) / seconds,
      stepP50Ms: percentile(stepMs, 50),
      stepP95Ms: percentile(stepMs, 95),
      jobsPerWorker: workers.map(
        (worker, index) => worker.lines.filter((line) => line.msg === 'engine job finished').length - jobsBefore[index]!,
      ),
      load: loadNow(),
    };
  } finally {
    await Promise.all(started.map((service) => service.stop()));
    await receiver.close();
    await database.drop();
  }
}

const bill = `data:application/pdf;base64,${(await billPdf({ name: 'Ada Lovelace', issued: longDate(daysAgo(10)) })).toString('base64')}`;
console.log(
  `bench:scale-out: ${SESSIONS} live sessions, ${CONCURRENCY} at a time, ${THREADS} engine thread(s) per worker; load before ${loadNow()}`,
);
const figures = [await runLayout(1, 1, bill), await runLayout(2, 2, bill)];
const rows: [string, (figure: Figures) => string][] = [
  ['wall time, s', (figure) => figure.seconds.toFixed(1)],
  ['sessions decided + webhooks in, per s', (figure) => figure.sessionsPerSecond.toFixed(2)],
  ['status-change webhooks per s', (figure) => figure.webhooksPerSecond.toFixed(2)],
  ['proof-of-address step p50, ms', (figure) => figure.stepP50Ms.toFixed(0)],
  ['proof-of-address step p95, ms', (figure) => figure.stepP95Ms.toFixed(0)],
  ['engine jobs per worker', (figure) => figure.jobsPerWorker.join(' / ')],
  ['load average after (1, 5, 15 min)', (figure) => figure.load],
];
console.log(`\n| ${'measure'.padEnd(40)} | ${figures.map((figure) => figure.layout.padEnd(22)).join(' | ')} |`);
console.log(`| ${'-'.repeat(40)} | ${figures.map(() => '-'.repeat(22)).join(' | ')} |`);
for (const [label, cell] of rows) console.log(`| ${label.padEnd(40)} | ${figures.map((figure) => cell(figure).padEnd(22)).join(' | ')} |`);
console.log(`\nspeed-up of 2+2 over 1+1: ${(figures[1]!.sessionsPerSecond / figures[0]!.sessionsPerSecond).toFixed(2)}×`);
