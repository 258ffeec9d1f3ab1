/**
 * Synthetic face templates for the face search benchmarks (bench/faces.ts, bench/duplicates.ts):
 * random unit 256-d vectors stand in for rotated embeddings, and a probe near one is the same
 * face photographed again.
 */
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import pino from 'pino';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { TEMPLATE_DIMENSION } from '../../src/engines/face/index.js';
import { projectTemplate, templateBytes } from '../../src/engines/face/template.js';

/** A random unit vector of the template dimension: a stand-in for a rotated embedding. */
export function randomUnit(random: () => number): Float64Array {
  const v = new Float64Array(TEMPLATE_DIMENSION);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = random() - 0.5;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/**
 * `rows` stored templates (hex of the bytes the biometric step keeps) from random unit vectors, for
 * seeding in bulk; the first vectors are pushed to `kept` until it holds `keepMax`, so a probe can be
 * made near them.
 */
export function randomTemplateHex(random: () => number, rows: number, kept: Float64Array[], keepMax: number): string[] {
  const hex: string[] = [];
  for (let i = 0; i < rows; i++) {
    const source = randomUnit(random);
    if (kept.length < keepMax) kept.push(source);
    hex.push(templateBytes(projectTemplate(source)).toString('hex'));
  }
  return hex;
}

/** A rotated embedding close to `base` (cosine about 0.9 at the default spread): the same face photographed again. */
export function nearby(base: Float64Array, random: () => number, spread = 0.45): Float64Array {
  const noise = randomUnit(random);
  return base.map((x, i) => x + spread * noise[i]);
}

/** p-th percentile (0–100) of some sorted durations, in ms. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The command-line options of a face search benchmark: sizes per database and query counts. */
export interface SearchBenchOptions {
  pgliteSizes: number[];
  serverSizes: number[];
  queries: number;
  exactQueries: number;
  /** Largest size at which the slow paths are timed (`--exact-max`, `--pgvector-max`); Infinity: every size. */
  exactMax: number;
  pgvectorMax: number;
}

/**
 * Reads `--sizes` (or `--pglite-sizes` / `--server-sizes`), `--queries`, `--exact-queries`,
 * `--exact-max` and `--pgvector-max`, with the benchmark's own defaults.
 */
export function searchBenchOptions(defaults: {
  sizes: string;
  exactQueries: string;
  exactMax?: string;
  pgvectorMax?: string;
}): SearchBenchOptions {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: defaults.sizes },
      'pglite-sizes': { type: 'string' },
      'server-sizes': { type: 'string' },
      queries: { type: 'string', default: '40' },
      'exact-queries': { type: 'string', default: defaults.exactQueries },
      'exact-max': { type: 'string', default: defaults.exactMax ?? 'Infinity' },
      'pgvector-max': { type: 'string', default: defaults.pgvectorMax ?? 'Infinity' },
    },
  });
  const sizes = (list: string) => list.split(',').filter(Boolean).map(Number);
  return {
    pgliteSizes: sizes(values['pglite-sizes'] ?? values.sizes),
    serverSizes: sizes(values['server-sizes'] ?? values.sizes),
    queries: Number(values.queries),
    exactQueries: Number(values['exact-queries']),
    exactMax: Number(values['exact-max']),
    pgvectorMax: Number(values['pgvector-max']),
  };
}

/** Measures one database at the given sizes; returns its printed lines. */
export type DatabaseBench = (label: string, database: Database, sizes: number[]) => Promise<string[]>;

/**
 * Runs a face search bench on an in-memory PGlite (when `pgliteSizes` is not empty) and then on
 * the PostgreSQL server of DATABASE_URL (when set and `serverSizes` is not empty); returns every line.
 */
export async function benchBothDatabases(pgliteSizes: number[], serverSizes: number[], bench: DatabaseBench): Promise<string[]> {
  const logger = pino({ level: 'silent' });
  const lines: string[] = [];
  const { DATABASE_URL: serverUrl, ...withoutServer } = process.env;
  if (pgliteSizes.length > 0) {
    const embedded = await openDatabase(loadConfig({ ...withoutServer, PGLITE_DATA_DIR: 'memory', LOG_LEVEL: 'silent' }), logger, {
      migrate: true,
    });
    try {
      lines.push(...(await bench('PGlite (pgvector)', embedded, pgliteSizes)));
    } finally {
      await embedded.close();
    }
  }
  if (serverUrl && serverSizes.length > 0) {
    const server = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), logger, { migrate: true });
    try {
      lines.push(...(await bench('PostgreSQL (DATABASE_URL)', server, serverSizes)));
    } finally {
      await server.close();
    }
  }
  return lines;
}

/**
 * What a bench leaves behind, undone: its tenants (their templates go with them) and, where the
 * bench dropped it to time the exact scan, the HNSW index `createIndexSql` makes again.
 */
export async function dropBenchTenants(em: EntityManager, tenantIds: string[], withVector: boolean, createIndexSql: string): Promise<void> {
  // A million sessions' cascade takes minutes: longer than the service's statement timeout.
  await em.transactional(async (tx) => {
    await tx.execute(`select set_config('statement_timeout', '0', true)`, [], 'all');
    await tx.execute(
      'delete from tenant where id in (select value::uuid from jsonb_array_elements_text(?::jsonb))',
      [JSON.stringify(tenantIds)],
      'run',
    );
  });
  if (withVector) await em.execute(createIndexSql, [], 'run');
}
