/**
 * Face list search at scale (`npm run bench:faces`): p50/p95 of one match (src/lists/face-index.ts
 * `matchFaces`, the code the list gate runs) among 10k and 100k random unit templates of one
 * tenant: through pgvector's HNSW index on embedded PGlite, and (with DATABASE_URL) through the
 * exact scan on that server, which has no pgvector here. Both get the same number of random unit
 * vectors (PGlite's are made in SQL, the server's in JS as float32 bytes).
 * Target (docs): p95 < 20 ms with pgvector. Everything it inserts belongs to a bench tenant that
 * is deleted at the end, so a server database is left as it was.
 *
 * Options: --sizes 10000,100000  --queries 40 (pgvector)  --exact-queries 10 (exact scan)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { TEMPLATE_DIMENSION, templateBytes } from '../src/engines/face/index.js';
import { FACE_LIST_MATCH_SIMILARITY } from '../src/lists/gate.js';
import { faceIndexMode, matchFaces, type FaceIndexMode } from '../src/lists/face-index.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    'pglite-sizes': { type: 'string' },
    'server-sizes': { type: 'string' },
    queries: { type: 'string', default: '40' },
    'exact-queries': { type: 'string', default: '10' },
  },
});
/** Sizes for each database; loading PGlite (WASM) is far slower than a server, so it may be given fewer. */
const PGLITE_SIZES = (values['pglite-sizes'] ?? values.sizes).split(',').filter(Boolean).map(Number);
const SERVER_SIZES = (values['server-sizes'] ?? values.sizes).split(',').filter(Boolean).map(Number);
const QUERIES = Number(values.queries);
const EXACT_QUERIES = Number(values['exact-queries']);
/** Rows per insert statement. */
const BATCH_ROWS = 250;

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same data. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unit vector of the template dimension. */
function randomUnit(random: () => number): Float32Array {
  const v = new Float32Array(TEMPLATE_DIMENSION);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = random() - 0.5;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** A probe close to `base` (cosine about 0.9), so every query has one real match. */
function nearby(base: Float32Array, random: () => number): Float32Array {
  const noise = randomUnit(random);
  const v = base.map((x, i) => x + 0.45 * noise[i]);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** p-th percentile (0–100) of some durations, in ms. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A bench tenant with one face list. */
async function benchTenant(em: EntityManager): Promise<{ tenantId: string; listId: string }> {
  const tenantId = randomUUID();
  const listId = randomUUID();
  await em.execute(
    `insert into tenant (id, name, callback_secret, created_at) values (?, 'bench:faces', 'bench', now())`,
    [tenantId],
    'run',
  );
  await em.execute(
    `insert into list (id, tenant_id, name, type, policy, built_in) values (?, ?, 'bench', 'face', 'auto_decline', false)`,
    [listId, tenantId],
    'run',
  );
  return { tenantId, listId };
}

/** Inserts `count` more random templates of the template dimension (bytea, for the exact scan), made in JS from `random`. */
async function insertTemplates(
  em: EntityManager,
  tenant: { tenantId: string; listId: string },
  count: number,
  random: () => number,
  keep: Float32Array[],
): Promise<void> {
  for (let done = 0; done < count; done += BATCH_ROWS) {
    const rows = Math.min(BATCH_ROWS, count - done);
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (let r = 0; r < rows; r++) {
      const template = randomUnit(random);
      if (keep.length < 50) keep.push(template);
      params.push(randomUUID(), tenant.listId, tenant.tenantId, templateBytes(template));
      tuples.push(`(?, ?, ?, 'face', 'sha256:bench', ?, 1, 'bench', now())`);
    }
    await em.execute(
      `insert into list_entry (id, list_id, tenant_id, entry_type, fingerprint, template, key_version, added_by, added_at) values ${tuples.join(',')}`,
      params,
      'run',
    );
  }
}

/**
 * Inserts `count` more random unit embeddings made inside the database (sending 100k vectors as
 * text through PGlite's socket takes longer than the benchmark itself); keeps 50 to probe with.
 */
async function insertEmbeddings(
  em: EntityManager,
  tenant: { tenantId: string; listId: string },
  count: number,
  keep: Float32Array[],
): Promise<void> {
  await em.execute(`select setseed(0.42)`, [], 'all');
  for (let done = 0; done < count; done += 2000) {
    const rows = Math.min(2000, count - done);
    await em.execute(
      `insert into list_entry (id, list_id, tenant_id, entry_type, fingerprint, embedding, key_version, added_by, added_at)
       select gen_random_uuid(), ?, ?, 'face', 'sha256:bench',
              l2_normalize(array(select random() - 0.5 from generate_series(1, ${TEMPLATE_DIMENSION}) where i > 0)::vector), 1, 'bench', now()
         from generate_series(1, ?) as i`,
      [tenant.listId, tenant.tenantId, rows],
      'run',
    );
  }
  if (keep.length > 0) return;
  const rows = await em.execute<{ embedding: string }[]>(
    `select embedding::text as embedding from list_entry where tenant_id = ? limit 50`,
    [tenant.tenantId],
    'all',
  );
  for (const row of rows) keep.push(Float32Array.from(JSON.parse(row.embedding) as number[]));
}

/** Times `queries` matches through one search path; returns p50/p95 in ms. */
async function timeMatches(
  em: EntityManager,
  tenantId: string,
  mode: FaceIndexMode,
  probes: Float32Array[],
  queries: number,
): Promise<{ p50: number; p95: number; found: number }> {
  const durations: number[] = [];
  let found = 0;
  // One warm-up query loads the index (or table) into cache.
  await em.transactional((tx) => matchFaces(tx, tenantId, 1, probes[0], FACE_LIST_MATCH_SIMILARITY, { mode }));
  for (let q = 0; q < queries; q++) {
    const probe = probes[q % probes.length];
    const started = performance.now();
    // The gate runs inside the decision transaction; so does the benchmark.
    const matches = await em.transactional((tx) => matchFaces(tx, tenantId, 1, probe, FACE_LIST_MATCH_SIMILARITY, { mode }));
    durations.push(performance.now() - started);
    if (matches.length > 0) found += 1;
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p95: percentile(durations, 95), found };
}

/** One database: fills it up size by size and times each search path it has. */
async function benchDatabase(label: string, database: Database, sizes: number[]): Promise<string[]> {
  const em = database.orm.em.fork();
  const mode = await faceIndexMode(em);
  const tenant = await benchTenant(em);
  const lines: string[] = [];
  const random = prng(42);
  const kept: Float32Array[] = [];
  let inserted = 0;
  try {
    if (mode === 'pgvector') await em.execute('drop index if exists list_entry_embedding_hnsw', [], 'run');
    for (const size of sizes) {
      const started = performance.now();
      if (mode === 'pgvector') await insertEmbeddings(em, tenant, size - inserted, kept);
      else await insertTemplates(em, tenant, size - inserted, random, kept);
      inserted = size;
      let indexSeconds = 0;
      if (mode === 'pgvector') {
        // Bulk build after loading, as a restore would; the migration's index is built the same way.
        const indexStarted = performance.now();
        await em.execute('drop index if exists list_entry_embedding_hnsw', [], 'run');
        await em.execute(`set maintenance_work_mem = '512MB'`, [], 'run');
        await em.execute('create index list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)', [], 'run');
        await em.execute('analyze list_entry', [], 'run');
        indexSeconds = (performance.now() - indexStarted) / 1000;
      }
      const loadSeconds = (performance.now() - started) / 1000;
      const probeRandom = prng(7 + size);
      const probes = kept.slice(0, 50).map((base) => nearby(base, probeRandom));
      for (const path of [mode]) {
        const result = await timeMatches(em, tenant.tenantId, path, probes, path === 'pgvector' ? QUERIES : EXACT_QUERIES);
        const queries = path === 'pgvector' ? QUERIES : EXACT_QUERIES;
        lines.push(
          `${label.padEnd(26)} ${String(size).padStart(7)}  ${(path === 'pgvector' ? 'pgvector HNSW' : 'exact scan').padEnd(14)} p50 ${result.p50.toFixed(1).padStart(8)} ms  p95 ${result.p95.toFixed(1).padStart(8)} ms  matched ${result.found}/${queries}  (load ${loadSeconds.toFixed(0)} s${mode === 'pgvector' ? `, index ${indexSeconds.toFixed(0)} s` : ''})`,
        );
        console.log(lines.at(-1));
      }
    }
  } finally {
    await em.execute('delete from tenant where id = ?', [tenant.tenantId], 'run');
    if (mode === 'pgvector')
      await em.execute(
        'create index if not exists list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)',
        [],
        'run',
      );
  }
  return lines;
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const lines: string[] = [];
  const { DATABASE_URL: serverUrl, ...withoutServer } = process.env;
  if (PGLITE_SIZES.length === 0) return benchServer(serverUrl, logger, lines);
  const embedded = await openDatabase(loadConfig({ ...withoutServer, PGLITE_DATA_DIR: 'memory', LOG_LEVEL: 'silent' }), logger, {
    migrate: true,
  });
  try {
    lines.push(...(await benchDatabase('PGlite (pgvector)', embedded, PGLITE_SIZES)));
  } finally {
    await embedded.close();
  }
  await benchServer(serverUrl, logger, lines);
}

/** The server part, when DATABASE_URL is set; prints every line measured. */
async function benchServer(serverUrl: string | undefined, logger: pino.Logger, lines: string[]): Promise<void> {
  if (serverUrl && SERVER_SIZES.length > 0) {
    const server = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), logger, { migrate: true });
    try {
      lines.push(...(await benchDatabase('PostgreSQL (DATABASE_URL)', server, SERVER_SIZES)));
    } finally {
      await server.close();
    }
  }
  console.log(`\nOne match among N templates of one tenant (target p95 < 20 ms with pgvector):\n${lines.join('\n')}`);
}

await main();
