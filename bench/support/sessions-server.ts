/**
 * Child process of bench/sessions.ts: starts the service and the baseline route, creates a
 * tenant, prints `{url, baselineUrl, cpuUrl, key, embedded}` as one JSON line, then serves until
 * killed. Keeping the servers apart from the load generator means neither steals the other's CPU.
 *
 * Embedded, the database lives in a fresh temporary directory on disk, as `npm start` keeps it
 * (removed at the end); BENCH_PGLITE_DIR=memory runs it in memory instead, where PGlite grows each
 * table file by copying it whole, which stalls requests for tens of milliseconds as tables grow.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { startApp } from '../../src/app.js';
import { countStatements } from './measure.js';
import { loadConfig } from '../../src/shared/config.js';
import { createTenant, issueApiKey } from '../../src/tenants/tenant.service.js';

/** The temporary data directory of the embedded database, removed at the end; null when given or unused. */
const scratchDirectory = process.env.DATABASE_URL || process.env.BENCH_PGLITE_DIR ? null : await mkdtemp(join(tmpdir(), 'bench-sessions-'));
const config = loadConfig({
  ...process.env,
  PORT: '0',
  PGLITE_DATA_DIR: process.env.BENCH_PGLITE_DIR ?? (scratchDirectory ? join(scratchDirectory, 'pglite') : 'memory'),
  SEED_DEMO_TENANT: 'false',
  // The benches measure the service's own work; a single bench key would meet the per-key limit at once.
  // BENCH_RATE_LIMITS=1 charges every request anyway, to limits too high to refuse: what counting costs.
  RATE_LIMIT_ENABLED: process.env.BENCH_RATE_LIMITS ? 'true' : 'false',
  RATE_LIMIT_KEY_REQUESTS: '1000000000',
  RATE_LIMIT_ADDRESS_REQUESTS: '1000000000',
  LOG_LEVEL: 'silent',
  MASTER_KEY: process.env.MASTER_KEY ?? 'bench-master-key-not-for-production-000000',
});
/**
 * Statements sent to the database by this process, by their first words (BENCH_COUNT_STATEMENTS=1):
 * the load generator divides them by the requests of a run to print statements per request.
 */
const statements = process.env.BENCH_COUNT_STATEMENTS ? countStatements().counts : new Map<string, number>();
const app = await startApp(config, { logger: pino({ level: 'silent' }) });

// Baseline: the least a create can cost on this database — one INSERT … RETURNING over HTTP,
// on the same pool as the service's (one connection on PGlite, which runs one statement at a time).
const pool = app.database.embedded
  ? await app.orm.em.getConnection().getNativeClient()
  : new pg.Pool({ connectionString: app.database.url, max: 16 });
await pool.query(
  'create table if not exists bench_baseline (id uuid primary key, vendor_data text not null, created_at timestamptz not null default now())',
);
const baseline = Fastify();
baseline.post('/baseline', async (request) => {
  const { vendor_data: vendorData } = request.body as { vendor_data: string };
  const { rows } = await pool.query('insert into bench_baseline (id, vendor_data) values ($1, $2) returning id, created_at', [
    randomUUID(),
    vendorData,
  ]);
  return rows[0];
});
// CPU time of this process (user + system, microseconds), read by the load generator around each run:
// a per-request cost that stays meaningful when other work shares the machine.
baseline.get('/cpu', async () => {
  const usage = process.cpuUsage();
  return { micros: usage.user + usage.system };
});
// Statement counts so far (empty unless BENCH_COUNT_STATEMENTS is set), read around each run.
baseline.get('/statements', async () => Object.fromEntries(statements));
await baseline.listen({ port: 0, host: '127.0.0.1' });
const { port } = baseline.server.address() as { port: number };

const em = app.orm.em.fork();
const tenant = await createTenant(em, 'bench');
const { key } = await issueApiKey(em, tenant.id, 'sandbox');
console.log(
  JSON.stringify({
    url: app.url,
    baselineUrl: `http://127.0.0.1:${port}/baseline`,
    cpuUrl: `http://127.0.0.1:${port}/cpu`,
    key,
    embedded: app.database.embedded,
  }),
);

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    await pool.query('drop table if exists bench_baseline');
    if (!app.database.embedded) await (pool as pg.Pool).end();
    await baseline.close();
    await app.close();
    if (scratchDirectory) await rm(scratchDirectory, { recursive: true, force: true });
    process.exit(0);
  })();
});
