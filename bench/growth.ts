/**
 * `npm run bench:growth`: whether the hot paths stay flat as a tenant grows (issue 29.6). One
 * tenant per size is seeded (default 10,000 and 1,000,000 sessions on a server database, 10,000
 * and 100,000 on PGlite; `--sizes 10000,1000000`), with mixed statuses and their status history
 * (bench/support/seed-sessions.ts), and the same requests are timed through the public API:
 * create, decision read, the first sessions page, the `vendor_data` filter, the review queue's
 * page (with and without its `totalCount`), the search and the console's funnel. The tenants take
 * turns request by request, so a change in a shared machine's load hits every size alike; the
 * baseline is the smallest tenant in the same rounds, and, first column, the smallest tenant
 * alone in the database before the others were seeded. Target: each path's p50 at the largest
 * size within 1.2× of the smallest's.
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

/** A figure to two decimals. */
const round = (value: number) => Number(value.toFixed(2));

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

  /** One tenant of the run, seeded to `size` sessions; `created` are the sessions its creates made (the decision reads read them). */
  interface GrowthTenant {
    size: number;
    key: string;
    created: string[];
  }

  /** One API request as `tenant`; throws unless it answered `expected`. */
  const call = async (tenant: GrowthTenant, method: string, path: string, body: unknown, expected: number): Promise<any> => {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as { errors?: unknown };
    if (response.status !== expected || answer.errors) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const graphql = (tenant: GrowthTenant, query: string) => call(tenant, 'POST', '/graphql', { query }, 200);
  /** A seeded session number of `tenant`, spread over all of them by `run`. */
  const seededOf = (tenant: GrowthTenant, run: number) => 1 + ((run * 7919) % tenant.size);

  const paths: [string, (tenant: GrowthTenant, run: number) => Promise<unknown>][] = [
    [
      'POST /v1/sessions',
      async (tenant, run) => {
        const vendorData = `growth-${tenant.size}-${tenant.created.length}-${run}`;
        const session = await call(tenant, 'POST', '/v1/sessions', { workflow_id: 'standard_kyc', vendor_data: vendorData }, 201);
        tenant.created.push(session.session_id);
      },
    ],
    [
      'GET /v1/sessions/{id}/decision',
      (tenant, run) => call(tenant, 'GET', `/v1/sessions/${tenant.created[run % tenant.created.length]}/decision`, undefined, 200),
    ],
    ['GET /v1/sessions (first page)', (tenant) => call(tenant, 'GET', '/v1/sessions', undefined, 200)],
    [
      'GET /v1/sessions?vendor_data=',
      (tenant, run) => call(tenant, 'GET', `/v1/sessions?vendor_data=${seededVendorData(seededOf(tenant, run))}`, undefined, 200),
    ],
    ['review queue (first page)', (tenant) => graphql(tenant, '{ reviewQueueSessions(first: 20) { edges { node { id } } } }')],
    // Counting every session in review grows with them (one in ten here); only clients that ask pay it.
    [
      'review queue (first page + totalCount)',
      (tenant) => graphql(tenant, '{ reviewQueueSessions(first: 20) { totalCount edges { node { id } } } }'),
    ],
    [
      'GET /v1/sessions/search?q= (a name)',
      (tenant, run) =>
        call(tenant, 'GET', `/v1/sessions/search?q=${encodeURIComponent(seededName(seededOf(tenant, run)))}`, undefined, 200),
    ],
    ['funnel chart (90 days)', (tenant) => graphql(tenant, '{ sessionFunnel(days: 90) { created started submitted decided } }')],
  ];

  /** Times every path for `tenants`, one request of each tenant in turn, so a change in the machine's load hits them alike. */
  const measure = async (tenants: GrowthTenant[]): Promise<Map<string, { p50: number; p95: number }[]>> => {
    const figures = new Map<string, { p50: number; p95: number }[]>();
    for (const [name, run] of paths) {
      for (let i = 0; i < WARMUP; i += 1) for (const tenant of tenants) await run(tenant, i);
      const durations = tenants.map((): number[] => []);
      for (let i = 0; i < RUNS; i += 1) {
        for (const [index, tenant] of tenants.entries()) {
          const started = performance.now();
          await run(tenant, WARMUP + i);
          durations[index]!.push(performance.now() - started);
        }
      }
      figures.set(name, durations.map(percentiles));
    }
    return figures;
  };

  const tenants: GrowthTenant[] = [];
  let alone: Map<string, { p50: number; p95: number }[]> | undefined;
  for (const [index, size] of SIZES.entries()) {
    const tenant = await createTenant(em, `bench-growth-${size}`);
    const growthTenant: GrowthTenant = { size, key: (await issueApiKey(em, tenant.id, 'sandbox')).key, created: [] };
    const seedStarted = performance.now();
    await seedSessions(em, tenant.id, 1, size, { lifecycle: true, tag: String.fromCharCode(97 + index) });
    await em.execute('analyze session', [], 'run');
    await em.execute('analyze session_search', [], 'run');
    await em.execute('analyze session_status_change', [], 'run');
    process.stderr.write(
      `seeded a tenant of ${size.toLocaleString('en')} sessions in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s\n`,
    );
    tenants.push(growthTenant);
    // The smallest tenant alone in its database: the figure "at 10k" before anything else is there.
    if (index === 0) alone = await measure(tenants);
  }
  const together = await measure(tenants);

  const last = SIZES.length - 1;
  const rows = [...together].map(([name, bySize]) => {
    const ratio = bySize[last]!.p50 / bySize[0]!.p50;
    const columns: Record<string, string | number> = {
      path: name,
      [`p50 ms, ${SIZES[0]!.toLocaleString('en')} alone`]: round(alone!.get(name)![0]!.p50),
    };
    SIZES.forEach((size, index) => {
      columns[`p50 ms @${size.toLocaleString('en')}`] = round(bySize[index]!.p50);
      columns[`p95 ms @${size.toLocaleString('en')}`] = round(bySize[index]!.p95);
    });
    columns['p50 ratio'] = round(ratio);
    columns[`≤ ${TARGET_RATIO}×`] = ratio <= TARGET_RATIO ? 'met' : 'MISSED';
    return columns;
  });
  console.log(
    `\nGrowth: tenants of ${SIZES.map((size) => size.toLocaleString('en')).join(' and ')} sessions in one ${SERVER ? 'PostgreSQL' : 'PGlite (in memory)'} database, ` +
      `${RUNS} requests per path and tenant, the tenants in turn; baseline: the ${SIZES[0]!.toLocaleString('en')} tenant in the same rounds ` +
      `(and alone in the database before the others were seeded, first column).`,
  );
  console.table(rows);
} finally {
  await app.close();
  await scratch?.drop();
}
