/**
 * Engines off the event loop (`npm run bench:engines`): for each engine execution, the p50/p99 of
 * a cheap route (`GET /v1/workflows`) idle and while an engine is saturated, and each engine's
 * verifications per second and p95, on the development set's images (/work/shared/realdata: id
 * documents, faces, PoA PDFs). Executions, in one run: `inline` (the old path, engines on the
 * API's event loop: the baseline), the thread pool with 1 and 2 threads, and with DATABASE_URL the
 * queue with 1 and 2 `npm run worker` processes (one engine thread each). Target: the cheap
 * route's p99 while saturated within 2× of idle.
 *
 * The server runs in a child process (bench/support/engines-server.ts), apart from this load
 * generator. Saturation: `--concurrency` clients submit back to back for `--duration` seconds.
 * Face: a face list entry (`POST /v1/lists/{id}/entries/face`, one face analysis); document:
 * `POST /v1/id-verification`; PoA: `POST /v1/poa` (PDFs; 200 or 422 both mean the engine ran).
 *
 * Options: --duration 15  --concurrency 4  --idle-requests 100  --modes inline,pool1,pool2[,queue1,queue2]
 *          --data /work/shared/realdata
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '4' },
    'idle-requests': { type: 'string', default: '100' },
    modes: { type: 'string' },
    data: { type: 'string', default: '/work/shared/realdata' },
  },
});
const DURATION_MS = Number(values.duration) * 1000;
const CONCURRENCY = Number(values.concurrency);
const IDLE_REQUESTS = Number(values['idle-requests']);
const DATA = values.data;
const MODES = (values.modes ?? (process.env.DATABASE_URL ? 'inline,pool1,pool2,queue1,queue2' : 'inline,pool1,pool2')).split(',');
const REPOSITORY = new URL('..', import.meta.url).pathname;
const CHEAP_PATH = '/v1/workflows';

/** One request an engine serves: path and body. */
interface EngineRequest {
  path: string;
  body: unknown;
}

/** The development set as request bodies, per engine. */
async function loadInputs(faceListId: string): Promise<Record<'document' | 'face' | 'poa', EngineRequest[]>> {
  const manifest = JSON.parse(await readFile(join(DATA, 'id', 'manifest.json'), 'utf8')) as {
    file: string;
    id_type: string;
    country: string;
  }[];
  const document: EngineRequest[] = [];
  for (const entry of manifest) {
    const bytes = await readFile(join(DATA, 'id', entry.file)).catch(() => null);
    if (!bytes) continue;
    const uri = `data:${entry.file.endsWith('.png') ? 'image/png' : 'image/jpeg'};base64,${bytes.toString('base64')}`;
    document.push({
      path: '/v1/id-verification',
      body: {
        country: entry.country,
        id_type: entry.id_type,
        image_front: uri,
        ...(entry.id_type === 'PASSPORT' ? {} : { image_back: uri }),
      },
    });
  }
  const faceDir = join(DATA, 'face');
  const face: EngineRequest[] = [];
  for (const file of (await readdir(faceDir)).filter((name) => /\.(jpe?g|png)$/.test(name))) {
    const bytes = await readFile(join(faceDir, file));
    const uri = `data:${file.endsWith('.png') ? 'image/png' : 'image/jpeg'};base64,${bytes.toString('base64')}`;
    face.push({ path: `/v1/lists/${faceListId}/entries/face`, body: { image: uri } });
  }
  const poa: EngineRequest[] = [];
  for (const dir of [join(DATA, 'poa'), join(DATA, 'poa', 'bills')]) {
    for (const file of (await readdir(dir)).filter((name) => name.endsWith('.pdf'))) {
      const bytes = await readFile(join(dir, file));
      poa.push({
        path: '/v1/poa',
        body: { document_image: `data:application/pdf;base64,${bytes.toString('base64')}`, max_age_days: 3650 },
      });
    }
  }
  return { document, face, poa };
}

/** The value at quantile `q` of sorted samples. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** A started server (and its workers) and how to reach it. */
interface Server {
  url: string;
  key: string;
  faceListId: string;
  execution: string;
  children: ChildProcess[];
}

/** The first JSON line a child prints that satisfies `accept`. */
async function jsonLine<T>(child: ChildProcess, accept: (value: T) => boolean): Promise<T> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    try {
      const value = JSON.parse(line) as T;
      if (accept(value)) {
        // Leaving the loop closes the reader and pauses the pipe: keep draining it, or a child that
        // logs (a worker, per job) blocks on a full pipe.
        lines.close();
        child.stdout!.resume();
        return value;
      }
    } catch {
      // Not JSON: ignore.
    }
  }
  throw new Error('child exited before printing its line');
}

/** `tsx <file>` as a child process. */
function tsx(file: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: REPOSITORY,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function startServer(mode: string): Promise<Server> {
  const [, execution, count] = /^(inline|pool|queue)(\d*)$/.exec(mode) ?? [];
  if (!execution) throw new Error(`unknown mode ${mode}`);
  const env: Record<string, string> = { ENGINE_EXECUTION: execution, ENGINE_TIMEOUT_MS: '300000', ENGINE_QUEUE_LIMIT: '64' };
  if (execution === 'pool') env.ENGINE_POOL_SIZE = count || '1';
  const children: ChildProcess[] = [];
  if (execution === 'queue') {
    for (let i = 0; i < Number(count || '1'); i++) {
      const worker = tsx('src/bin/worker.ts', { ENGINE_POOL_SIZE: '1', LOG_LEVEL: 'info' });
      children.push(worker);
      await jsonLine<{ msg?: string }>(worker, (line) => line.msg === 'engine worker started');
    }
  }
  const server = tsx('bench/support/engines-server.ts', env);
  children.push(server);
  const ready = await jsonLine<{ url: string; key: string; faceListId: string; execution: string }>(server, (line) => 'url' in line);
  return { ...ready, children };
}

async function stopServer(server: Server): Promise<void> {
  for (const child of server.children.reverse()) {
    if (child.exitCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

/** One request; its status and milliseconds. */
async function call(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** Sequential cheap requests until `until` resolves (or `count` are done); their latencies sorted. */
async function cheapLatencies(server: Server, options: { count?: number; until?: Promise<unknown> }): Promise<number[]> {
  let done = false;
  void options.until?.then(() => (done = true));
  const samples: number[] = [];
  while (!done && (options.count === undefined || samples.length < options.count)) samples.push((await call(server, 'GET', CHEAP_PATH)).ms);
  return samples.sort((a, b) => a - b);
}

/** `CONCURRENCY` clients submitting requests back to back for `DURATION_MS`. */
async function saturate(
  server: Server,
  requests: EngineRequest[],
): Promise<{ latencies: number[]; elapsedMs: number; statuses: Map<number, number> }> {
  const started = performance.now();
  const deadline = started + DURATION_MS;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const request = requests[next++ % requests.length]!;
        const { status, ms } = await call(server, 'POST', request.path, request.body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status < 500) latencies.push(ms);
      }
    }),
  );
  return { latencies: latencies.sort((a, b) => a - b), elapsedMs: performance.now() - started, statuses };
}

const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : '—');

console.log(`engines bench: ${DURATION_MS / 1000} s per engine, ${CONCURRENCY} clients, modes ${MODES.join(', ')}`);
const rows: string[] = [];
for (const mode of MODES) {
  const server = await startServer(mode);
  try {
    const inputs = await loadInputs(server.faceListId);
    // Warm-up: every thread loads its models on first use; not measured.
    for (const engine of ['document', 'face', 'poa'] as const)
      await Promise.all(inputs[engine].slice(0, 2).map((request) => call(server, 'POST', request.path, request.body)));
    const idle = await cheapLatencies(server, { count: IDLE_REQUESTS });
    console.log(`${mode} (${server.execution}): idle ${CHEAP_PATH} p50 ${fmt(quantile(idle, 0.5))} p99 ${fmt(quantile(idle, 0.99))}`);
    for (const engine of ['document', 'face', 'poa'] as const) {
      const saturation = saturate(server, inputs[engine]);
      const busy = await cheapLatencies(server, { until: saturation });
      const { latencies, elapsedMs, statuses } = await saturation;
      const perSecond = latencies.length / (elapsedMs / 1000);
      const ratio = quantile(busy, 0.99) / quantile(idle, 0.99);
      const row = `| ${mode} | ${engine} | ${perSecond.toFixed(2)} | ${fmt(quantile(latencies, 0.95))} | ${fmt(quantile(idle, 0.99))} | ${fmt(quantile(busy, 0.99))} | ${ratio.toFixed(1)}× |`;
      rows.push(row);
      console.log(`${row}  statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    }
  } finally {
    await stopServer(server);
  }
}
console.log('\n| execution | engine | verifications/s | p95 | cheap p99 idle | cheap p99 saturated | ratio |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
