/**
 * Where face templates live and how one is matched (docs/design.md "Lists", docs/lists.md "Face
 * search"). Every face entry keeps its template (256 signed bytes, src/engines/face/template.ts)
 * in `list_entry.template bytea`. With pgvector the same values are also in
 * `list_entry.embedding vector(256)` under a cosine HNSW index and a match is an index search;
 * without it a match is exact: the tenant's face entries held in this process's memory and scanned
 * with the duplicate search's SIMD kernel (src/duplicates/template-index.ts, source
 * {@link LIST_FACES}), kept up to date by `list_entry.change_xid` and its matches checked against
 * the table in the caller's transaction, so a deleted entry gates nothing from its commit on, in
 * every process. Which one is detected from the schema the migrations made, once per database
 * driver. The exact scan in SQL (every row sent per match) stays as the reference (`mode: 'scan'`).
 *
 * Raw SQL: (b) pgvector's `<=>` with `set_config('hnsw.…')` and a catalog probe
 * (`information_schema`, `pg_extension`); (a) `npm run bench:faces`: the exact scan reads ids and
 * templates only (HNSW 100k p95 10.6 ms, exact scan 619 ms).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../auth/context.js';
import { TEMPLATE_DIMENSION, templateBytes } from '../engines/face/template.js';
import { templateIndexRegistry, type TemplateIndexRegistry, type TemplateSource } from '../duplicates/template-index.js';

/** How face templates are stored and searched on this database: the HNSW index, or exactly in memory. */
export type FaceIndexMode = 'pgvector' | 'exact';

/** A path {@link matchFaces} can be forced to: a mode, or `scan`, the exact comparison over every row read per match (the reference in tests and the bench). */
export type FaceMatchPath = FaceIndexMode | 'scan';

/** The tenant's face entries as the in-memory index reads them (migration H40ListEntryChangeXid); a match reports the entry's list. */
export const LIST_FACES: TemplateSource = {
  name: 'list_face',
  from: 'list_entry le',
  id: 'le.id',
  template: 'le.template',
  changeXid: 'le.change_xid',
  scope: `le.entry_type = 'face' and le.tenant_id = ? and le.key_version = ? and le.environment = ?`,
  detail: 'false as excluded, le.list_id as detail',
};

/** What detection found: the mode and whether HNSW may iterate past filtered-out rows (pgvector 0.8+). */
export interface FaceIndexInfo {
  mode: FaceIndexMode;
  iterativeScan: boolean;
}

/**
 * Candidates the HNSW walk keeps (pgvector's `hnsw.ef_search`, its default): the result is the
 * best 5, so 40 leaves room for the tenant filter and recall (bench:faces finds every planted
 * match at 10k and 100k).
 */
export const HNSW_EF_SEARCH = 40;

const detected = new WeakMap<object, Promise<FaceIndexInfo>>();

/** Detects, once per database driver, whether `list_entry.embedding` exists (the migrations add it only with pgvector). */
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

/** The face index mode of the database behind `em`, and whether its HNSW walk may go on past filtered-out rows (pgvector 0.8+). */
export function faceIndexInfo(em: EntityManager): Promise<Readonly<FaceIndexInfo>> {
  return detect(em);
}

/** The face index mode of the database behind `em`. */
export async function faceIndexMode(em: EntityManager): Promise<FaceIndexMode> {
  return (await detect(em)).mode;
}

/** pgvector's text form of a template: `[v1,v2,...]`, its signed byte values (cosine ignores their scale). */
export function vectorLiteral(template: Int8Array): string {
  return `[${template.join(',')}]`;
}

/** The columns a face entry's template is written to: always the bytes, and the pgvector copy where the database has one. */
export async function templateColumns(em: EntityManager, template: Int8Array): Promise<{ template: Buffer; embedding: string | null }> {
  return {
    template: templateBytes(template),
    embedding: (await faceIndexMode(em)) === 'pgvector' ? vectorLiteral(template) : null,
  };
}

/** One face entry close to a probe. */
export interface FaceMatch {
  entryId: string;
  listId: string;
  /** Cosine similarity of the probe and the entry's template, −1 to 1. */
  similarity: number;
}

/** Options of {@link matchFaces}. */
export interface MatchOptions {
  /** Most matches returned. @default 5 */
  limit?: number;
  /** Forces a search path (the benchmark and tests compare them on one database); detected when absent. */
  mode?: FaceMatchPath;
  /** Whose in-memory copy the exact mode searches: this database's in this process when absent (tests stand in for two processes). */
  registry?: TemplateIndexRegistry;
}

/**
 * The tenant's face entries (under key `keyVersion`) whose cosine similarity to `probe` is at
 * least `minSimilarity`, best first, at most `limit`. pgvector: an HNSW nearest-neighbour search
 * (approximate; bench:faces measures its recall); otherwise exact, in memory (`scan`: in SQL).
 */
export async function matchFaces(
  em: EntityManager,
  scope: TenantScope,
  keyVersion: number,
  probe: Int8Array,
  minSimilarity: number,
  options: MatchOptions = {},
): Promise<FaceMatch[]> {
  if (probe.length !== TEMPLATE_DIMENSION) throw new Error(`probe must have ${TEMPLATE_DIMENSION} values`);
  const limit = options.limit ?? 5;
  const info = await detect(em);
  const mode = options.mode ?? info.mode;
  if (mode === 'pgvector' && info.mode !== 'pgvector') throw new Error('this database has no pgvector face index');
  const query = { scope, keyVersion, probe, minSimilarity, limit };
  if (mode === 'pgvector') return matchByIndex(em, info, query);
  if (mode === 'scan') return matchByScan(em, query);
  const index = await (options.registry ?? templateIndexRegistry(em)).get(em, LIST_FACES, scope, keyVersion);
  const matches = await index.search(em, { probe, minSimilarity, limit });
  return matches.flatMap((match) =>
    match.detail === null ? [] : [{ entryId: match.id, listId: match.detail, similarity: match.similarity }],
  );
}

/** One match request, as {@link matchFaces} received it. */
interface FaceQuery {
  /** Whose entries are searched: one tenant's, in one environment. */
  scope: TenantScope;
  keyVersion: number;
  probe: Int8Array;
  minSimilarity: number;
  limit: number;
}

/** The HNSW search: nearest `limit` of the tenant's entries by cosine distance, then the threshold. */
async function matchByIndex(
  em: EntityManager,
  info: FaceIndexInfo,
  { scope, keyVersion, probe, minSimilarity, limit }: FaceQuery,
): Promise<FaceMatch[]> {
  // The tenant filter is applied after the index walk; pgvector 0.8 keeps walking until enough
  // rows pass it (relaxed order: the rows are re-sorted below).
  await em.execute(
    info.iterativeScan
      ? `select set_config('hnsw.ef_search', ?, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`
      : `select set_config('hnsw.ef_search', ?, true)`,
    [String(HNSW_EF_SEARCH)],
    'all',
  );
  const literal = vectorLiteral(probe);
  const rows = await em.execute<{ id: string; list_id: string; distance: number }[]>(
    `select id, list_id, embedding <=> ?::vector as distance
       from list_entry
      where tenant_id = ? and environment = ? and entry_type = 'face' and key_version = ? and embedding is not null
      order by embedding <=> ?::vector
      limit ?`,
    [literal, scope.tenantId, scope.environment, keyVersion, literal, limit],
    'all',
  );
  return rows
    .map((row) => ({ entryId: row.id, listId: row.list_id, similarity: 1 - Number(row.distance) }))
    .filter((match) => match.similarity >= minSimilarity)
    .sort((a, b) => b.similarity - a.similarity);
}

/**
 * The exact scan in SQL (the reference for the in-memory index): every template of the tenant, 256 bytes a row, compared here. The cosine of two
 * integer vectors is computed from integer sums (exact in doubles: at most 256·127² per sum).
 * The scan reads only ids and bytes (the rows' transfer is most of its time); the few matches'
 * lists are read after, and an entry deleted in between is dropped, as a deleted entry gates nothing.
 */
async function matchByScan(em: EntityManager, { scope, keyVersion, probe, minSimilarity, limit }: FaceQuery): Promise<FaceMatch[]> {
  const rows = await em.execute<{ id: string; template: Buffer }[]>(
    `select id, template from list_entry
      where tenant_id = ? and environment = ? and entry_type = 'face' and key_version = ? and template is not null`,
    [scope.tenantId, scope.environment, keyVersion],
    'all',
  );
  let probeNorm = 0;
  for (let i = 0; i < TEMPLATE_DIMENSION; i++) probeNorm += probe[i] * probe[i];
  if (probeNorm === 0) return [];
  const close: { id: string; similarity: number }[] = [];
  for (const row of rows) {
    const bytes = row.template;
    if (bytes.length !== TEMPLATE_DIMENSION) continue;
    // Signed bytes read in place: an Int8Array view shares the Buffer's memory.
    const values = new Int8Array(bytes.buffer, bytes.byteOffset, TEMPLATE_DIMENSION);
    let dot = 0;
    let norm = 0;
    for (let i = 0; i < TEMPLATE_DIMENSION; i++) {
      const value = values[i];
      dot += probe[i] * value;
      norm += value * value;
    }
    if (norm === 0) continue;
    const similarity = dot / Math.sqrt(probeNorm * norm);
    if (similarity >= minSimilarity) close.push({ id: row.id, similarity });
  }
  if (close.length === 0) return [];
  const best = close.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
  const lists = await em.execute<{ id: string; list_id: string }[]>(
    'select id, list_id from list_entry where id in (?)',
    [best.map((match) => match.id)],
    'all',
  );
  const listOf = new Map(lists.map((row) => [row.id, row.list_id]));
  return best.flatMap((match) => {
    const listId = listOf.get(match.id);
    return listId === undefined ? [] : [{ entryId: match.id, listId, similarity: match.similarity }];
  });
}
