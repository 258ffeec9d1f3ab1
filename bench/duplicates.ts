/**
 * 1:N duplicate-face search at scale (part of `npm run bench:faces`): p50/p95 of one search
 * (src/duplicates/face-search.ts `findDuplicateFaces`, inside a transaction as the decision runs it)
 * among N sessions' selfie templates of one tenant and environment, and its recall on real genuine
 * pairs. Paths timed: the in-memory index (the service's path, src/duplicates/template-index.ts;
 * its first search in a process, which loads the scope, is timed apart), the exact scan in SQL
 * (the baseline, up to `--exact-max`), and on PGlite the pgvector HNSW walk (up to
 * `--pgvector-max`: its single-threaded WASM build takes minutes per 10k rows here).
 * Synthetic templates are random unit 256-d vectors (bench/support/templates.ts), each its own
 * session with its own vendor_data, loaded 5,000 rows a statement from arrays (`unnest`), so 1M
 * loads in minutes. Timing probes are near a stored template (cosine about 0.96, a genuine pair's
 * median): "found" counts those whose session came back. Recall: the photos of
 * `../shared/realdata/face` become templates of sessions among the N (one session per photo, each
 * its own vendor_data), and each genuine pair (two captures of one person, README there) is a
 * probe that must find its partner at the duplicate threshold. Bench tenants are deleted at the end.
 *
 * Options: --sizes 10000,100000,1000000 (--pglite-sizes, --server-sizes)  --queries 40
 * --exact-queries 10  --exact-max 100000  --pgvector-max 10000
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../src/db/database.js';
import { analyzeFace, similarity } from '../src/engines/face/analyze.js';
import { closeFaceEngine, projectTemplate, templateBytes, toTemplate } from '../src/engines/face/index.js';
import { DUPLICATE_FACE_SIMILARITY } from '../src/duplicates/duplicates.js';
import { findDuplicateFaces, SESSION_FACES, type DuplicateSearchMode } from '../src/duplicates/face-search.js';
import { templateIndexRegistry } from '../src/duplicates/template-index.js';
import { faceIndexMode } from '../src/lists/face-index.js';
import { prng } from '../test/support/prng.js';
import { benchBothDatabases, dropBenchTenants, nearby, percentile, randomUnit, searchBenchOptions } from './support/templates.js';

const options = searchBenchOptions({ sizes: '10000,100000,1000000', exactQueries: '10', exactMax: '100000', pgvectorMax: '10000' });
/** Sizes for each database (templates of the bench tenant). */
const PGLITE_SIZES = options.pgliteSizes;
const SERVER_SIZES = options.serverSizes;
const QUERIES = options.queries;
const EXACT_QUERIES = options.exactQueries;
/** Rows per insert statement (two arrays of 5,000: about 2.6 MB of parameters). */
const BATCH_ROWS = 5000;
const PLANTED = 50;
/** Same bench secret for every real photo's template (a tenant's key). */
const BENCH_SECRET = 'bench:duplicates';
const FACE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/realdata/face');
/** Files of one photograph at several sizes or crops: copies, not genuine pairs (bench/accuracy/face-replay.ts). */
const ONE_PHOTOGRAPH = [
  'obama__tests_test_images_obama.jpg',
  'obama__examples_obama-1080p.jpg',
  'obama__examples_obama-240p.jpg',
  'obama__examples_obama_small.jpg',
  'obama__tests_test_images_obama_partial_face.jpg',
];

interface Stored {
  sessionId: string;
  template: Int8Array;
}

/** A bench tenant with one workflow the sessions belong to. */
async function benchTenant(em: EntityManager): Promise<{ tenantId: string; workflowId: string }> {
  const tenantId = randomUUID();
  const workflowId = randomUUID();
  await em.execute(
    `insert into tenant (id, name, callback_secret, created_at) values (?, 'bench:duplicates', 'bench', now())`,
    [tenantId],
    'run',
  );
  await em.execute(
    `insert into workflow (id, tenant_id, environment, name, type, nodes, compliance_level) values (?, ?, 'live', 'bench', 'user', '[]', 'standard')`,
    [workflowId, tenantId],
    'run',
  );
  return { tenantId, workflowId };
}

/**
 * Inserts one session and its selfie template per entry, as the service stores them (the pgvector
 * copy is filled in SQL from the bytes only when HNSW is timed). Each batch is two statements
 * over `unnest` of two arrays, the ids and the templates' hex.
 */
async function insertSessions(
  em: EntityManager,
  tenant: { tenantId: string; workflowId: string },
  templates: Int8Array[],
): Promise<Stored[]> {
  const stored: Stored[] = [];
  for (let done = 0; done < templates.length; done += BATCH_ROWS) {
    const batch = templates.slice(done, done + BATCH_ROWS).map((template) => ({ sessionId: randomUUID(), template }));
    const ids = `{${batch.map((row) => row.sessionId).join(',')}}`;
    await em.transactional(async (tx) => {
      await tx.execute(
        `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, expires_at)
         select id, ?, 'live', ?, 'bench-' || id, 'approved', now() + interval '7 days' from unnest(?::uuid[]) as input(id)`,
        [tenant.tenantId, tenant.workflowId, ids],
        'run',
      );
      await tx.execute(
        `insert into session_list_subject (session_id, tenant_id, node_type, kind, template, key_version)
         select id, ?, 'biometric_kyc', 'face', decode(hex, 'hex'), 1 from unnest(?::uuid[], ?::text[]) as input(id, hex)`,
        [tenant.tenantId, ids, `{${batch.map((row) => templateBytes(row.template).toString('hex')).join(',')}}`],
        'run',
      );
    });
    stored.push(...batch);
  }
  return stored;
}

/** Fills the pgvector copy of the tenant's templates from their bytes and builds the HNSW index over it. */
async function buildHnsw(em: EntityManager, tenantId: string): Promise<void> {
  await em.execute(
    `update session_list_subject set embedding = (
        select array_agg(case when get_byte(template, i) > 127 then get_byte(template, i) - 256 else get_byte(template, i) end order by i)
          from generate_series(0, 255) as i)::real[]::vector
      where tenant_id = ? and kind = 'face' and embedding is null`,
    [tenantId],
    'run',
  );
  await em.execute(`set maintenance_work_mem = '512MB'`, [], 'run');
  await em.execute(
    'create index session_list_subject_embedding_hnsw on session_list_subject using hnsw (embedding vector_cosine_ops)',
    [],
    'run',
  );
}

/** One search as the decision runs it. */
function search(em: EntityManager, tenantId: string, mode: DuplicateSearchMode, probe: Int8Array, sessionId: string = randomUUID()) {
  return em.transactional((tx) =>
    findDuplicateFaces(tx, {
      scope: { tenantId, environment: 'live' },
      sessionId,
      vendorData: `probe-${sessionId}`,
      keyVersion: 1,
      probe,
      minSimilarity: DUPLICATE_FACE_SIMILARITY,
      mode,
    }),
  );
}

/** The real photos' templates under the bench secret, and their genuine pairs (indexes). */
async function realFaces(): Promise<{ files: string[]; templates: Int8Array[]; pairs: [number, number][] }> {
  const files: string[] = [];
  const templates: Int8Array[] = [];
  const embeddings: number[][] = [];
  for (const file of readdirSync(FACE_DIR).filter((name) => /\.(jpe?g|png)$/i.test(name))) {
    try {
      const { embedding } = await analyzeFace(readFileSync(join(FACE_DIR, file)));
      files.push(file);
      embeddings.push(embedding);
      templates.push(toTemplate(embedding, BENCH_SECRET));
    } catch {
      // a photo without a describable face is no selfie
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < files.length; i++)
    for (let j = i + 1; j < files.length; j++) {
      const samePerson = files[i].split('__')[0] === files[j].split('__')[0];
      const copies = ONE_PHOTOGRAPH.includes(files[i]) && ONE_PHOTOGRAPH.includes(files[j]);
      // Pairs below the threshold are not a search miss: the engine calls them different people.
      if (samePerson && !copies && similarity(embeddings[i], embeddings[j]) >= DUPLICATE_FACE_SIMILARITY) pairs.push([i, j]);
    }
  return { files, templates, pairs };
}

/** One result line. */
function line(label: string, size: number, path: string, ms: number[], found: string, recall: string, note: string): string {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${label.padEnd(26)} ${String(size).padStart(8)}  ${path.padEnd(14)} p50 ${percentile(sorted, 50).toFixed(1).padStart(8)} ms  p95 ${percentile(sorted, 95).toFixed(1).padStart(8)} ms  found ${found}  genuine-pair recall ${recall}  (${note})`;
}

async function benchDatabase(label: string, database: Database, sizes: number[], real: Awaited<ReturnType<typeof realFaces>>) {
  const em = database.orm.em.fork();
  const hasVector = (await faceIndexMode(em)) === 'pgvector';
  const tenant = await benchTenant(em);
  const random = prng(42);
  const lines: string[] = [];
  const print = (text: string) => {
    lines.push(text);
    console.log(text);
  };
  let inserted = 0;
  const planted: { sessionId: string; source: Float64Array }[] = [];
  // The bench times the HNSW walk on its own index, built after loading; the service's index is put back at the end.
  if (hasVector) await em.execute('drop index if exists session_list_subject_embedding_hnsw', [], 'run');
  const realStored = await insertSessions(em, tenant, real.templates);
  try {
    for (const size of sizes) {
      const started = performance.now();
      while (inserted < size - real.templates.length) {
        const count = Math.min(BATCH_ROWS * 4, size - real.templates.length - inserted);
        const sources = Array.from({ length: count }, () => randomUnit(random));
        const stored = await insertSessions(em, tenant, sources.map(projectTemplate));
        for (let i = 0; i < stored.length && planted.length < PLANTED; i++)
          planted.push({ sessionId: stored[i].sessionId, source: sources[i] });
        inserted += count;
      }
      await em.execute('analyze session_list_subject', [], 'run');
      await em.execute('analyze session', [], 'run');
      const note = `load ${((performance.now() - started) / 1000).toFixed(0)} s`;
      const probeRandom = prng(7 + size);
      const probes = planted.map((entry) => ({
        sessionId: entry.sessionId,
        template: projectTemplate(nearby(entry.source, probeRandom, 0.3)),
      }));
      // The floor under any search path: one transaction with one primary-key read, timed the same way.
      const floor: number[] = [];
      for (let q = 0; q < QUERIES; q++) {
        const t = performance.now();
        await em.transactional((tx) => tx.execute('select id from session where id = ?', [probes[q % probes.length].sessionId], 'all'));
        floor.push(performance.now() - t);
      }
      print(line(label, size, 'floor', floor, '-', '-', 'one transaction, one primary-key read'));
      const paths: DuplicateSearchMode[] = ['memory'];
      if (size <= options.exactMax) paths.push('exact');
      if (hasVector && size <= options.pgvectorMax) paths.push('pgvector');
      for (const path of paths) {
        let pathNote = note;
        if (path === 'memory') {
          // A process's first search of the scope loads it: timed apart from the searches after it.
          templateIndexRegistry(em).clear();
          const loadStarted = performance.now();
          await search(em, tenant.tenantId, path, probes[0].template);
          const index = await templateIndexRegistry(em).get(em, SESSION_FACES, { tenantId: tenant.tenantId, environment: 'live' }, 1);
          pathNote += `; first search, loading ${index.size} templates into memory: ${((performance.now() - loadStarted) / 1000).toFixed(1)} s, ${(index.bytes / 2 ** 20).toFixed(0)} MB`;
        }
        if (path === 'pgvector') {
          const indexStarted = performance.now();
          await buildHnsw(em, tenant.tenantId);
          pathNote += `; HNSW build ${((performance.now() - indexStarted) / 1000).toFixed(0)} s`;
        }
        const queries = path === 'exact' ? EXACT_QUERIES : QUERIES;
        for (const probe of probes.slice(0, 3)) await search(em, tenant.tenantId, path, probe.template);
        const durations: number[] = [];
        let found = 0;
        for (let q = 0; q < queries; q++) {
          const probe = probes[q % probes.length];
          const t = performance.now();
          const matches = await search(em, tenant.tenantId, path, probe.template);
          durations.push(performance.now() - t);
          if (matches.some((match) => match.sessionId === probe.sessionId)) found += 1;
        }
        // Recall on real genuine pairs: each photo's session must find its partner's.
        let recalled = 0;
        for (const [i, j] of real.pairs) {
          const matches = await search(em, tenant.tenantId, path, real.templates[i], realStored[i].sessionId);
          if (matches.some((match) => match.sessionId === realStored[j].sessionId)) recalled += 1;
        }
        const name = { memory: 'in-memory', exact: 'SQL exact scan', pgvector: 'pgvector HNSW' }[path];
        print(line(label, size, name, durations, `${found}/${queries}`, `${recalled}/${real.pairs.length}`, pathNote));
        if (path === 'pgvector') await em.execute('drop index if exists session_list_subject_embedding_hnsw', [], 'run');
      }
    }
  } finally {
    templateIndexRegistry(em).clear();
    await dropBenchTenants(
      em,
      [tenant.tenantId],
      hasVector,
      'create index if not exists session_list_subject_embedding_hnsw on session_list_subject using hnsw (embedding vector_cosine_ops)',
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const real = await realFaces();
  await closeFaceEngine();
  console.log(`real photos: ${real.files.length}, genuine pairs at or above ${DUPLICATE_FACE_SIMILARITY}: ${real.pairs.length}`);
  const lines = await benchBothDatabases(PGLITE_SIZES, SERVER_SIZES, (label, database, sizes) =>
    benchDatabase(label, database, sizes, real),
  );
  console.log(
    `\nOne 1:N duplicate search among N sessions' templates of one tenant (target p95 <= 50 ms at 100k); baseline: the exact scan in SQL:\n${lines.join('\n')}`,
  );
}

await main();
