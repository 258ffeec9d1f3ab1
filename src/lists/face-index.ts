/**
 * Where face templates live and how one is matched (DESIGN.md "Lists"). With pgvector the
 * template is `list_entry.embedding vector(1024)` under a cosine HNSW index; without it the
 * template is `list_entry.template bytea` (float32 little-endian) and a match is an exact scan of
 * the tenant's face entries. Which one is detected from the schema the migration made, once per
 * database driver.
 */
import { endianness } from 'node:os';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TEMPLATE_DIMENSION, templateBytes, templateFromBytes } from '../engines/face/index.js';

/** How face templates are stored and searched on this database. */
export type FaceIndexMode = 'pgvector' | 'exact';

/** What detection found: the mode and whether HNSW may iterate past filtered-out rows (pgvector 0.8+). */
interface FaceIndexInfo {
  mode: FaceIndexMode;
  iterativeScan: boolean;
}

const detected = new WeakMap<object, Promise<FaceIndexInfo>>();

/** Detects, once per database driver, whether `list_entry.embedding` exists (the migration adds it only with pgvector). */
function detect(em: EntityManager): Promise<FaceIndexInfo> {
  const driver = em.getDriver();
  let found = detected.get(driver);
  if (!found) {
    found = (async () => {
      const [row] = await em.execute<{ has_embedding: boolean; version: string | null }[]>(
        `select exists (select 1 from information_schema.columns
                         where table_schema = current_schema() and table_name = 'list_entry' and column_name = 'embedding') as has_embedding,
                (select extversion from pg_extension where extname = 'vector') as version`,
        [],
        'all',
      );
      if (!row?.has_embedding) return { mode: 'exact' as const, iterativeScan: false };
      const [major = 0, minor = 0] = (row.version ?? '0.0').split('.').map(Number);
      return { mode: 'pgvector' as const, iterativeScan: major > 0 || minor >= 8 };
    })();
    // A failed detection (database down) must not stick.
    found.catch(() => detected.delete(driver));
    detected.set(driver, found);
  }
  return found;
}

/** The face index mode of the database behind `em`. */
export async function faceIndexMode(em: EntityManager): Promise<FaceIndexMode> {
  return (await detect(em)).mode;
}

/** pgvector's text form of a vector: `[x1,x2,...]`. */
export function vectorLiteral(template: Float32Array): string {
  return `[${Array.from(template).join(',')}]`;
}

/** The columns a face entry's template is written to, for the detected mode. */
export async function templateColumns(
  em: EntityManager,
  template: Float32Array,
): Promise<{ template: Buffer | null; embedding: string | null }> {
  return (await faceIndexMode(em)) === 'pgvector'
    ? { template: null, embedding: vectorLiteral(template) }
    : { template: templateBytes(template), embedding: null };
}

/** One face entry close to a probe. */
export interface FaceMatch {
  entryId: string;
  listId: string;
  /** Cosine similarity of the probe and the entry's template, −1 to 1. */
  similarity: number;
}

/** Stored bytes are little-endian float32: on a little-endian host they can be read in place. */
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** A stored template as floats, without copying where the host and alignment allow. */
function readTemplate(bytes: Buffer): Float32Array {
  if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 4 === 0 && bytes.length === TEMPLATE_DIMENSION * 4)
    return new Float32Array(bytes.buffer, bytes.byteOffset, TEMPLATE_DIMENSION);
  return templateFromBytes(bytes);
}

/** Dot product of two unit vectors: their cosine similarity. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Options of {@link matchFaces}. */
export interface MatchOptions {
  /** Most matches returned. @default 5 */
  limit?: number;
  /** Forces a search path (the benchmark compares both on one database); detected when absent. */
  mode?: FaceIndexMode;
}

/**
 * The tenant's face entries (under key `keyVersion`) whose cosine similarity to `probe` is at
 * least `minSimilarity`, best first, at most `limit`. pgvector: an HNSW nearest-neighbour search
 * (approximate, recall well above 99% at these sizes); otherwise an exact scan.
 */
export async function matchFaces(
  em: EntityManager,
  tenantId: string,
  keyVersion: number,
  probe: Float32Array,
  minSimilarity: number,
  options: MatchOptions = {},
): Promise<FaceMatch[]> {
  if (probe.length !== TEMPLATE_DIMENSION) throw new Error(`probe must have ${TEMPLATE_DIMENSION} values`);
  const limit = options.limit ?? 5;
  const info = await detect(em);
  if ((options.mode ?? info.mode) === 'pgvector') {
    // The tenant filter is applied after the index walk; pgvector 0.8 keeps walking until enough rows pass it.
    if (info.iterativeScan) await em.execute(`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`, [], 'all');
    const literal = vectorLiteral(probe);
    const rows = await em.execute<{ id: string; list_id: string; distance: number }[]>(
      `select id, list_id, embedding <=> ?::vector as distance
         from list_entry
        where tenant_id = ? and entry_type = 'face' and key_version = ? and embedding is not null
        order by embedding <=> ?::vector
        limit ?`,
      [literal, tenantId, keyVersion, literal, limit],
      'all',
    );
    return rows
      .map((row) => ({ entryId: row.id, listId: row.list_id, similarity: 1 - Number(row.distance) }))
      .filter((match) => match.similarity >= minSimilarity);
  }
  const rows = await em.execute<{ id: string; list_id: string; template: Buffer }[]>(
    `select id, list_id, template from list_entry
      where tenant_id = ? and entry_type = 'face' and key_version = ? and template is not null`,
    [tenantId, keyVersion],
    'all',
  );
  return rows
    .map((row) => ({ entryId: row.id, listId: row.list_id, similarity: dot(probe, readTemplate(row.template)) }))
    .filter((match) => match.similarity >= minSimilarity)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, limit);
}
