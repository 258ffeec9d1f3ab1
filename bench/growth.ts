/**
 * `npm run bench:growth`: whether the hot paths stay flat as a tenant grows (issue 29.6). One
 * tenant's sandbox is seeded to each size in turn (default 10,000 then 1,000,000 sessions on a
 * server database, 10,000 then 100,000 on PGlite; `--sizes 10000,1000000`), with mixed statuses
 * and their status history (bench/support/seed-sessions.ts), and at each size the same requests
 * are timed one after another through the public API: create, decision read, the first sessions
 * page, the `vendor_data` filter, the review queue's page, the search and the console's funnel.
 * The baseline is the first size, measured in the same run: the table prints each path's p50 and
 * p95 at every size and the ratio of its p50 to the first size's (target ≤ 1.2×).
 *
 * With DATABASE_URL the bench creates and drops a scratch database on that server; without it,
 * in-memory PGlite. `--runs N` (default 100) timed requests per path and size, after 10 untimed.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startApp } from '../src/app.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';
import { createBenchDatabase } from './support/scratch-database.js';
import { seededName, seededVendorData, seedSessions } from './support/seed-sessions.js';

const SERVER = process.env.DATABASE_URL;
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: SERVER ? '10000,1000000' : '10000,100000' },
    runs: { type: 'string', default: '100' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
if (SIZES.some((size, index) => !Number.isInteger(size) || size < 1 || (index > 0 && size <= SIZES[index - 1]!)))
  throw new Error('--sizes takes increasing whole numbers, e.g. 10000,1000000');
const RUNS = Number(values.runs);
const WARMUP = 10;
/** The issue's bound on growth: a path at the largest size within this factor of its first-size p50. */
const TARGET_RATIO = 1.2;

/** p50 and p95 of durations in milliseconds. */
function percentiles(durations: number[]): { p50: number; p95: number } {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

const scratch = SERVER ? await createBenchDatabase(SERVER, 'bench_growth') : undefined;

const app = await startApp(
  benchAppConfig({
    ...(scratch ? { DATABASE_URL: scratch.url, PGLITE_DATA_DIR: undefined } : {}),
    JOBS_ENABLED: 'false',
    EMITTER_IN_PROCESS: 'false',
  }),
);
try {
  const em = app.orm.em.fork();
  const tenant = await createTenant(em, 'bench-growth');
  const key = (await issueApiKey(em, tenant.id, 'sandbox')).key;

  /** One API request; throws unless it answered `expected`. */
  const call = async (method: string, path: string, body: unknown, expected: number): Promise<any> => {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as { errors?: unknown };
    if (response.status !== expected || answer.errors) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const graphql = (query: string) => call('POST', '/graphql', { query }, 200);

  /** Sessions created through the API during the run: the decision reads read them. */
  const created: string[] = [];
  let creates = 0;
  const paths: [string, (run: number) => Promise<unknown>][] = [
    [
      'POST /v1/sessions',
      async () => {
        const session = await call('POST', '/v1/sessions', { workflow_id: 'standard_kyc', vendor_data: `growth-${(creates += 1)}` }, 201);
        created.push(session.session_id);
      },
    ],
    ['GET /v1/sessions/{id}/decision', (run) => call('GET', `/v1/sessions/${created[run % created.length]}/decision`, undefined, 200)],
    ['GET /v1/sessions (first page)', () => call('GET', '/v1/sessions', undefined, 200)],
    [
      'GET /v1/sessions?vendor_data=',
      (run) => call('GET', `/v1/sessions?vendor_data=${seededVendorData(1 + ((run * 7919) % SIZES[0]!))}`, undefined, 200),
    ],
    ['review queue (first page)', () => graphql('{ reviewQueueSessions(first: 20) { edges { node { id } } } }')],
    [
      'GET /v1/sessions/search?q= (a name)',
      (run) => call('GET', `/v1/sessions/search?q=${encodeURIComponent(seededName(1 + ((run * 7919) % SIZES[0]!)))}`, undefined, 200),
    ],
    ['funnel chart (90 days)', () => graphql('{ sessionFunnel(days: 90) { created started submitted decided } }')],
  ];

  const figures = new Map<string, { p50: number; p95: number }[]>();
  let seeded = 0;
  for (const size of SIZES) {
    const seedStarted = performance.now();
    await seedSessions(em, tenant.id, seeded + 1, size, { lifecycle: true });
    await em.execute('analyze session', [], 'run');
    await em.execute('analyze session_search', [], 'run');
    await em.execute('analyze session_status_change', [], 'run');
    process.stderr.write(`seeded ${size.toLocaleString('en')} sessions in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s\n`);
    seeded = size;
    for (const [name, run] of paths) {
      for (let i = 0; i < WARMUP; i += 1) await run(i);
      const durations: number[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        const started = performance.now();
        await run(i);
        durations.push(performance.now() - started);
      }
      figures.set(name, [...(figures.get(name) ?? []), percentiles(durations)]);
    }
  }

  const last = SIZES.length - 1;
  const rows = [...figures].map(([name, bySize]) => {
    const ratio = bySize[last]!.p50 / bySize[0]!.p50;
    const columns: Record<string, string | number> = { path: name };
    SIZES.forEach((size, index) => {
      columns[`p50 ms @${size.toLocaleString('en')}`] = Number(bySize[index]!.p50.toFixed(2));
      columns[`p95 ms @${size.toLocaleString('en')}`] = Number(bySize[index]!.p95.toFixed(2));
    });
    columns['p50 ratio'] = Number(ratio.toFixed(2));
    columns[`≤ ${TARGET_RATIO}×`] = ratio <= TARGET_RATIO ? 'met' : 'MISSED';
    return columns;
  });
  console.log(
    `\nGrowth: one tenant seeded to ${SIZES.map((size) => size.toLocaleString('en')).join(', then ')} sessions, ${SERVER ? 'PostgreSQL' : 'PGlite (in memory)'}, ` +
      `${RUNS} sequential requests per path and size; baseline: the same paths at ${SIZES[0]!.toLocaleString('en')} in this run.`,
  );
  console.table(rows);
} finally {
  await app.close();
  await scratch?.drop();
}
