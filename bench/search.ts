/**
 * `npm run bench:search`: latency of the console's session search (GraphQL `searchSessions` over
 * HTTP) at BENCH_SESSIONS seeded sessions of one tenant (default 1,000,000 on a server database,
 * 100,000 on PGlite), per kind of query, beside two baselines in the same run: the existing
 * `sessions(filter: { vendorData })` listing (an exact btree lookup), and the same search with its
 * indexes dropped in a transaction rolled back afterwards (what the search costs without them;
 * the drop itself is in the timing, a catalogue change of well under a millisecond).
 *
 * Sessions are seeded in batches by `insert … select … from generate_series` (session rows and
 * their search rows: synthetic names, random keyed digests), plus a few sessions created through
 * the API with typed e-mail, phone and names, which the queries look for. With DATABASE_URL the
 * bench creates and drops its own scratch database on that server; without it, in-memory PGlite.
 */
import { performance } from 'node:perf_hooks';
import { startApp } from '../src/app.js';
import { searchSessions } from '../src/sessions/search.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';
import { createBenchDatabase } from './support/scratch-database.js';
import { SEED_BATCH, seededName, seededVendorData, seedSessions } from './support/seed-sessions.js';

const SERVER = process.env.DATABASE_URL;
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? (SERVER ? 1_000_000 : 100_000));
/** Timed runs per query (after WARMUP untimed ones). */
const RUNS = 30;
const WARMUP = 3;
/** Runs of each index-less baseline (each is a full scan). */
const SCAN_RUNS = 3;

/** p50 and p95 of some durations, in milliseconds. */
function percentiles(durations: number[]): { p50: number; p95: number } {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: Number(at(0.5).toFixed(2)), p95: Number(at(0.95).toFixed(2)) };
}

/** Times `run` `warmup` + `runs` times; returns the timed durations' percentiles. */
async function timed(runs: number, run: () => Promise<unknown>, warmup = WARMUP): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warmup; i += 1) await run();
  const durations: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  return percentiles(durations);
}

const scratch = SERVER ? await createBenchDatabase(SERVER, 'bench_search') : undefined;

const app = await startApp(benchAppConfig(scratch ? { DATABASE_URL: scratch.url, PGLITE_DATA_DIR: undefined } : {}));
try {
  const em = app.orm.em.fork();
  const tenant = await createTenant(em, 'bench-search');
  const key = (await issueApiKey(em, tenant.id, 'sandbox')).key;
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, unknown[]>; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data!;
  };

  const seedStarted = performance.now();
  for (let start = 1; start <= SESSIONS; start += SEED_BATCH) {
    const end = Math.min(SESSIONS, start + SEED_BATCH - 1);
    await seedSessions(em, tenant.id, start, end);
    process.stderr.write(`seeded ${end} sessions (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)\n`);
  }
  await em.execute('analyze session', [], 'run');
  await em.execute('analyze session_search', [], 'run');
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  // The people the queries look for, created through the API as an integrator would.
  for (const [vendor, email, phone, first, last] of [
    ['target-ada', 'ada.lovelace@example.com', '+447911123456', 'Ada', 'Lovelace'],
    ['target-grace', 'grace.hopper@example.com', '+33612345678', 'Grace', 'Hopper'],
  ] as const) {
    const response = await fetch(`${app.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        workflow_id: 'standard_kyc',
        vendor_data: vendor,
        contact_details: { email, phone },
        expected_details: { first_name: first, last_name: last },
      }),
    });
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  }

  const SEARCH = 'query ($query: String!) { searchSessions(query: $query) { matchedOn session { id vendorData status createdAt } } }';
  const LIST =
    'query ($vendorData: String!) { sessions(first: 25, filter: { vendorData: $vendorData }) { edges { node { id vendorData status createdAt } } } }';
  const middle = Math.floor(SESSIONS / 2);
  const [{ id: seededId }] = await em.execute<{ id: string }[]>(`select md5('s' || ?::int)::uuid::text as id`, [middle]);
  const commonName = seededName(middle);
  const queries: [string, string][] = [
    ['e-mail (keyed digest)', 'Ada.Lovelace@example.com'],
    ['phone (keyed digest)', '+44 7911 123456'],
    ['name, misspelt (trigram)', 'ada lovelase'],
    ['seeded name (trigram)', commonName],
    ['vendor_data exact', seededVendorData(middle)],
    ['vendor_data part (trigram)', `ust-${String(middle).padStart(8, '0').slice(0, 7)}`],
    ['session id prefix (8 hex)', seededId.slice(0, 8)],
  ];
  if (process.env.BENCH_EXPLAIN) {
    const plan = await em.execute<Record<string, string>[]>(
      `explain analyze select session_id from session_search where tenant_id = ? and environment = 'sandbox' and ? <% name_normalized`,
      [tenant.id, 'ada lovelase'],
    );
    process.stderr.write(plan.map((row) => Object.values(row)[0]).join('\n') + '\n');
  }
  /** One search with its indexes dropped in a transaction that is then rolled back (the drop, a catalogue change, is timed too). */
  const searchWithoutIndexes = async (query: string): Promise<void> => {
    const rollback = new Error('rollback');
    await app.orm.em
      .fork()
      .transactional(async (tx) => {
        await tx.execute('drop index session_search_name_trgm, session_search_exact_tokens, session_vendor_data_trgm', [], 'run');
        await searchSessions(tx, app.services.secrets, { tenantId: tenant.id, environment: 'sandbox' }, query);
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
  };
  const rows: Record<string, unknown>[] = [];
  for (const [name, query] of queries) {
    const hits = ((await graphql(SEARCH, { query })).searchSessions as unknown[]).length;
    const withIndex = await timed(RUNS, () => graphql(SEARCH, { query }));
    // The same search without its indexes: dropped inside a transaction that is rolled back.
    const withoutIndex = await timed(SCAN_RUNS, () => searchWithoutIndexes(query), 1);
    rows.push({
      query: name,
      hits,
      'GraphQL p50 ms': withIndex.p50,
      'GraphQL p95 ms': withIndex.p95,
      'without indexes p50 ms': withoutIndex.p50,
    });
  }
  const vendor = seededVendorData(middle);
  const listing = await timed(RUNS, () => graphql(LIST, { vendorData: vendor }));
  rows.push({
    query: 'baseline: sessions(filter: { vendorData }) exact',
    hits: 1,
    'GraphQL p50 ms': listing.p50,
    'GraphQL p95 ms': listing.p95,
  });

  console.log(
    `\nSession search, ${SESSIONS.toLocaleString('en')} seeded sessions + 2 created through the API, ${SERVER ? 'PostgreSQL' : 'PGlite (in memory)'}; seeding took ${seedSeconds.toFixed(0)} s.`,
  );
  console.table(rows);
} finally {
  await app.close();
  await scratch?.drop();
}
