/**
 * Face list search at scale (`npm run bench:faces`): p50/p95 of one match (src/lists/face-index.ts
 * `matchFaces`, the code the list gate runs, inside a transaction as the gate runs it) among 10k
 * and 100k templates of one tenant. Embedded PGlite has pgvector: both its HNSW index and the
 * exact scan are timed there. With DATABASE_URL the server is timed too (the exact scan where it
 * has no pgvector, as here). Templates are made as the service makes them (`projectTemplate` of
 * random unit 256-d rotated embeddings, 256 signed bytes), loaded with multi-row inserts; the HNSW index is
 * built after loading, as a restore would. Each query's probe is near one stored template
 * (cosine about 0.9): "found" counts the queries whose planted template came back.
 * A last line times a small tenant (200 entries) beside the big one, the case where the tenant
 * filter, not the index, decides. Everything belongs to bench tenants deleted at the end, so a
 * server database is left as it was. Target (docs): p95 < 20 ms with pgvector.
 *
 * Options: --sizes 10000,100000 (--pglite-sizes, --server-sizes)  --queries 40 (pgvector)
 * --exact-queries 20 (exact scan)
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../src/db/database.js';
import { projectTemplate, templateBytes } from '../src/engines/face/index.js';
import { FACE_LIST_MATCH_SIMILARITY } from '../src/lists/gate.js';
import { faceIndexMode, matchFaces, vectorLiteral, type FaceIndexMode } from '../src/lists/face-index.js';
import { prng } from '../test/support/prng.js';
import { benchBothDatabases, dropBenchTenants, nearby, percentile, randomUnit, searchBenchOptions } from './support/templates.js';

const options = searchBenchOptions({ sizes: '10000,100000', exactQueries: '20' });
/** Sizes for each database (templates of the bench tenant). */
const PGLITE_SIZES = options.pgliteSizes;
const SERVER_SIZES = options.serverSizes;
const QUERIES = options.queries;
const EXACT_QUERIES = options.exactQueries;
/** Rows per insert statement. */
const BATCH_ROWS = 500;
/** Templates planted for probes: the first this many rows keep their source vector. */
const PLANTED = 50;
/** Entries of the small tenant timed beside the big one. */
const SMALL_TENANT_ROWS = 200;

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
    `insert into list (id, tenant_id, environment, name, type, policy, built_in) values (?, ?, 'live', 'bench', 'face', 'auto_decline', false)`,
    [listId, tenantId],
    'run',
  );
  return { tenantId, listId };
}

/** A planted template: its id and the rotated embedding it was made from, to probe near. */
interface Planted {
  id: string;
  source: Float64Array;
}

/**
 * Inserts `count` more templates made in JS from `random`, as the service stores them: the bytes,
 * and the vector where the database has pgvector. Keeps the first `PLANTED` to probe with.
 */
async function insertTemplates(
  em: EntityManager,
  tenant: { tenantId: string; listId: string },
  count: number,
  random: () => number,
  withVector: boolean,
  planted: Planted[],
): Promise<void> {
  for (let done = 0; done < count; done += BATCH_ROWS) {
    const rows = Math.min(BATCH_ROWS, count - done);
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (let r = 0; r < rows; r++) {
      const source = randomUnit(random);
      const template = projectTemplate(source);
      const id = randomUUID();
      if (planted.length < PLANTED) planted.push({ id, source });
      params.push(id, tenant.listId, tenant.tenantId, templateBytes(template), ...(withVector ? [vectorLiteral(template)] : []));
      tuples.push(`(?, ?, ?, 'live', 'face', 'sha256:bench', ?, ${withVector ? '?::vector, ' : ''}1, 'bench', now())`);
    }
    await em.execute(
      `insert into list_entry (id, list_id, tenant_id, environment, entry_type, fingerprint, template, ${withVector ? 'embedding, ' : ''}key_version, added_by, added_at)
       values ${tuples.join(',')}`,
      params,
      'run',
    );
  }
}

/** Times `queries` matches through one search path; returns p50/p95 in ms and how many found their planted template. */
async function timeMatches(
  em: EntityManager,
  tenantId: string,
  mode: FaceIndexMode,
  planted: Planted[],
  queries: number,
  seed: number,
): Promise<{ p50: number; p95: number; found: number }> {
  const random = prng(seed);
  const probes = planted.map((entry) => ({ id: entry.id, template: projectTemplate(nearby(entry.source, random)) }));
  const durations: number[] = [];
  let found = 0;
  // Warm-up queries load the index (or table) into cache.
  for (const probe of probes.slice(0, 3))
    await em.transactional((tx) =>
      matchFaces(tx, { tenantId, environment: 'live' }, 1, probe.template, FACE_LIST_MATCH_SIMILARITY, { mode }),
    );
  for (let q = 0; q < queries; q++) {
    const probe = probes[q % probes.length];
    const started = performance.now();
    // The gate runs inside the decision transaction; so does the benchmark.
    const matches = await em.transactional((tx) =>
      matchFaces(tx, { tenantId, environment: 'live' }, 1, probe.template, FACE_LIST_MATCH_SIMILARITY, { mode }),
    );
    durations.push(performance.now() - started);
    if (matches.some((match) => match.entryId === probe.id)) found += 1;
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p95: percentile(durations, 95), found };
}

/** One result line. */
function line(
  label: string,
  size: number | string,
  path: string,
  result: { p50: number; p95: number; found: number },
  queries: number,
  note = '',
): string {
  return `${label.padEnd(26)} ${String(size).padStart(7)}  ${path.padEnd(14)} p50 ${result.p50.toFixed(1).padStart(7)} ms  p95 ${result.p95.toFixed(1).padStart(7)} ms  found ${result.found}/${queries}${note}`;
}

/** One database: fills it up size by size and times each search path it has. */
async function benchDatabase(label: string, database: Database, sizes: number[]): Promise<string[]> {
  const em = database.orm.em.fork();
  const mode = await faceIndexMode(em);
  const withVector = mode === 'pgvector';
  const tenant = await benchTenant(em);
  const small = await benchTenant(em);
  const lines: string[] = [];
  const random = prng(42);
  const planted: Planted[] = [];
  let inserted = 0;
  const print = (text: string) => {
    lines.push(text);
    console.log(text);
  };
  try {
    for (const size of sizes) {
      // Loading into a live HNSW index inserts row by row into the graph (20 minutes for 90k rows
      // here); a bulk build after loading takes a fraction of that.
      if (withVector) await em.execute('drop index if exists list_entry_embedding_hnsw', [], 'run');
      const started = performance.now();
      await insertTemplates(em, tenant, size - inserted, random, withVector, planted);
      inserted = size;
      const loadSeconds = (performance.now() - started) / 1000;
      let note = ` (load ${loadSeconds.toFixed(0)} s)`;
      if (withVector) {
        const indexStarted = performance.now();
        await em.execute(`set maintenance_work_mem = '512MB'`, [], 'run');
        await em.execute('create index list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)', [], 'run');
        note = ` (load ${loadSeconds.toFixed(0)} s, index ${((performance.now() - indexStarted) / 1000).toFixed(0)} s)`;
      }
      await em.execute('analyze list_entry', [], 'run');
      const paths: FaceIndexMode[] = withVector ? ['pgvector', 'exact'] : ['exact'];
      for (const path of paths) {
        const queries = path === 'pgvector' ? QUERIES : EXACT_QUERIES;
        const result = await timeMatches(em, tenant.tenantId, path, planted, queries, 7 + size);
        print(line(label, size, path === 'pgvector' ? 'pgvector HNSW' : 'exact scan', result, queries, path === paths[0] ? note : ''));
      }
    }
    // A small tenant beside the big one: the planner should not walk the big tenant's graph for it.
    const smallPlanted: Planted[] = [];
    await insertTemplates(em, small, SMALL_TENANT_ROWS, prng(99), withVector, smallPlanted);
    await em.execute('analyze list_entry', [], 'run');
    const queries = withVector ? QUERIES : EXACT_QUERIES;
    const result = await timeMatches(em, small.tenantId, mode, smallPlanted, queries, 11);
    print(
      line(
        label,
        `${SMALL_TENANT_ROWS}`,
        mode === 'pgvector' ? 'pgvector HNSW' : 'exact scan',
        result,
        queries,
        `  (small tenant beside ${inserted})`,
      ),
    );
  } finally {
    await dropBenchTenants(
      em,
      [tenant.tenantId, small.tenantId],
      withVector,
      'create index if not exists list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)',
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const lines = await benchBothDatabases(PGLITE_SIZES, SERVER_SIZES, benchDatabase);
  console.log(`\nOne match among N templates of one tenant (target p95 < 20 ms with pgvector):\n${lines.join('\n')}`);
}

await main();
