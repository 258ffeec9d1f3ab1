/**
 * 1:N face search among sessions (docs/duplicates.md): the selfie templates earlier sessions of one
 * tenant and environment left in `session_list_subject` (cancelable, 256 signed bytes each,
 * src/engines/face/template.ts), searched for the same face under another `vendor_data`.
 * The search is an exact scan of the scope's templates held in this process's memory
 * (src/duplicates/template-index.ts: loaded lazily, brought up to date and its matches checked in
 * the caller's transaction, so an erased session's template is gone from its commit on, in every
 * process). Two slower paths stay for comparison (the bench) and as the reference in tests: the
 * pgvector HNSW walk where the database has pgvector, and an exact scan in SQL.
 *
 * Raw SQL: (b) pgvector's `<=>` with `set_config('hnsw.…')`; (a) `npm run bench:faces`: the exact
 * scan reads ids and templates only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../auth/context.js';
import { TEMPLATE_DIMENSION } from '../engines/face/template.js';
import { faceIndexInfo, HNSW_EF_SEARCH, vectorLiteral, type FaceIndexMode } from '../lists/face-index.js';
import { templateIndexRegistry, type TemplateSource } from './template-index.js';

/** How a duplicate search runs: the in-memory index (the default), or one of the database's face index paths. */
export type DuplicateSearchMode = 'memory' | FaceIndexMode;

/** Candidates the HNSW walk keeps for a duplicate search: wider than the list gate's, since the vendor filter drops some. */
export const DUPLICATE_EF_SEARCH = Math.max(HNSW_EF_SEARCH, 64);

/** One earlier session whose selfie shows the probe's face. */
export interface DuplicateFace {
  sessionId: string;
  /** Cosine similarity of the two templates, −1 to 1. */
  similarity: number;
}

/** What to search for. */
export interface DuplicateFaceQuery {
  /** Whose sessions are searched: one tenant's, in one environment. */
  scope: TenantScope;
  /** The session searching: never its own match. */
  sessionId: string;
  /** Its vendor_data: sessions with the same one are the same subject coming back, not a duplicate. */
  vendorData: string;
  /** Template key version the probe was made under (templates of other versions cannot be compared). */
  keyVersion: number;
  probe: Int8Array;
  minSimilarity: number;
  /** Most sessions returned. @default 10 */
  limit?: number;
  /** Forces a search path (the benchmark compares them); the in-memory index when absent. */
  mode?: DuplicateSearchMode;
}

/** The filter every search applies: tenant, environment, key version, another session, another subject. */
const SCOPE_FILTER = `sls.tenant_id = ? and s.environment = ? and sls.kind = 'face' and sls.key_version = ?
        and sls.session_id <> ? and s.vendor_data <> ?`;

function scopeParams(query: DuplicateFaceQuery): unknown[] {
  return [query.scope.tenantId, query.scope.environment, query.keyVersion, query.sessionId, query.vendorData];
}

/** The sessions' selfie templates as the in-memory index reads them; a session of the searcher's `vendor_data` is excluded. */
export const SESSION_FACES: TemplateSource = {
  name: 'session_face',
  from: 'session_list_subject sls join session s on s.id = sls.session_id',
  id: 'sls.session_id',
  template: 'sls.template',
  changeXid: 'sls.change_xid',
  scope: `sls.kind = 'face' and sls.tenant_id = ? and sls.key_version = ? and s.environment = ?`,
  detail: 's.vendor_data = ? as excluded, null::uuid as detail',
};

/** Earlier sessions of the scope whose selfie template is at least `minSimilarity` to the probe, best first. */
export async function findDuplicateFaces(em: EntityManager, query: DuplicateFaceQuery): Promise<DuplicateFace[]> {
  if (query.probe.length !== TEMPLATE_DIMENSION) throw new Error(`probe must have ${TEMPLATE_DIMENSION} values`);
  const mode = query.mode ?? 'memory';
  if (mode === 'memory') {
    const index = await templateIndexRegistry(em).get(em, SESSION_FACES, query.scope, query.keyVersion);
    const matches = await index.search(em, {
      excludeId: query.sessionId,
      detailParams: [query.vendorData],
      probe: query.probe,
      minSimilarity: query.minSimilarity,
      limit: query.limit ?? 10,
    });
    return matches.map((match) => ({ sessionId: match.id, similarity: match.similarity }));
  }
  const info = await faceIndexInfo(em);
  if (mode === 'pgvector' && info.mode !== 'pgvector') throw new Error('this database has no pgvector face index');
  return mode === 'pgvector' ? searchByIndex(em, info.iterativeScan, query) : searchByScan(em, query);
}

/** Writes the pgvector copy of a session's selfie template, where the database has one (the HNSW index reads it). */
export async function indexSessionTemplate(tx: EntityManager, sessionId: string, template: Int8Array): Promise<void> {
  if ((await faceIndexInfo(tx)).mode !== 'pgvector') return;
  await tx.execute(`update session_list_subject set embedding = ?::vector where session_id = ? and kind = 'face'`, [
    vectorLiteral(template),
    sessionId,
  ]);
}

/** The HNSW walk: nearest sessions by cosine distance, filtered to the scope, then the threshold. */
async function searchByIndex(em: EntityManager, iterativeScan: boolean, query: DuplicateFaceQuery): Promise<DuplicateFace[]> {
  await em.execute(
    iterativeScan
      ? `select set_config('hnsw.ef_search', ?, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`
      : `select set_config('hnsw.ef_search', ?, true)`,
    [String(DUPLICATE_EF_SEARCH)],
    'all',
  );
  const literal = vectorLiteral(query.probe);
  const rows = await em.execute<{ session_id: string; distance: number }[]>(
    `select sls.session_id, sls.embedding <=> ?::vector as distance
       from session_list_subject sls join session s on s.id = sls.session_id
      where ${SCOPE_FILTER} and sls.embedding is not null
      order by sls.embedding <=> ?::vector
      limit ?`,
    [literal, ...scopeParams(query), literal, query.limit ?? 10],
    'all',
  );
  return rows
    .map((row) => ({ sessionId: row.session_id, similarity: 1 - Number(row.distance) }))
    .filter((match) => match.similarity >= query.minSimilarity)
    .sort((a, b) => b.similarity - a.similarity);
}

/** The exact scan: every template of the scope compared here, from integer sums (exact in doubles). */
async function searchByScan(em: EntityManager, query: DuplicateFaceQuery): Promise<DuplicateFace[]> {
  const rows = await em.execute<{ session_id: string; template: Buffer }[]>(
    `select sls.session_id, sls.template
       from session_list_subject sls join session s on s.id = sls.session_id
      where ${SCOPE_FILTER} and sls.template is not null`,
    scopeParams(query),
    'all',
  );
  const probe = query.probe;
  let probeNorm = 0;
  for (let i = 0; i < TEMPLATE_DIMENSION; i++) probeNorm += probe[i] * probe[i];
  if (probeNorm === 0) return [];
  const close: DuplicateFace[] = [];
  for (const row of rows) {
    if (row.template.length !== TEMPLATE_DIMENSION) continue;
    const values = new Int8Array(row.template.buffer, row.template.byteOffset, TEMPLATE_DIMENSION);
    let dot = 0;
    let norm = 0;
    for (let i = 0; i < TEMPLATE_DIMENSION; i++) {
      dot += probe[i] * values[i];
      norm += values[i] * values[i];
    }
    if (norm === 0) continue;
    const similarity = dot / Math.sqrt(probeNorm * norm);
    if (similarity >= query.minSimilarity) close.push({ sessionId: row.session_id, similarity });
  }
  return close.sort((a, b) => b.similarity - a.similarity).slice(0, query.limit ?? 10);
}
