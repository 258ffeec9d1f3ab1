/**
 * The in-memory 1:N face index (docs/duplicates.md "How it is found"): each process keeps, per
 * source table, tenant, environment and template key version, a copy of the templates (the
 * sessions' selfies of `session_list_subject` for the duplicate search, the face entries of
 * `list_entry` for the list gate: a {@link TemplateSource}) and scans all of them exactly for each search, with a
 * WebAssembly SIMD loop (src/duplicates/dot-kernel.ts): about 1 ms per 100k templates. The table
 * stays the truth; the copy only proposes:
 * - **Loaded lazily**, on the first search of a scope in this process, through the caller's
 *   transaction, in pages of {@link LOAD_PAGE_ROWS} rows.
 * - **Kept up to date by transaction ids**, not by messages: every row carries `change_xid`, the
 *   id of the transaction that last wrote it (a default and an update trigger, migration
 *   H22FaceIndex). The copy remembers a watermark: the oldest transaction still running when it
 *   last read the table (`pg_snapshot_xmin`). Every transaction below it had finished then, so
 *   its rows were read; each search re-reads the rows from the watermark on, in the same statement
 *   that checks the matches. A row another API process or worker committed is therefore seen by
 *   the next search anywhere, as an exact scan in SQL would see it; a missed notification cannot
 *   make a copy stale.
 * - **Matches are checked in that statement**: a proposed row counts only if it still exists in
 *   the caller's snapshot, in the scope, under the same key version, not excluded by the source's
 *   `detail` (another `vendor_data` for sessions), and its similarity is computed again from the
 *   stored bytes. An erased session or a deleted list entry (its row deleted), a rolled-back insert or a key rotation is never reported, by any process,
 *   from the erasing commit on; the copy forgets such a row when it next comes up and the
 *   transaction that wrote it is known to have finished.
 * Memory: 256 bytes a template plus about 80 bytes of bookkeeping (100k: 34 MB; 1M: 340 MB) per
 * scope, per process; scopes unused for {@link IDLE_EVICT_MS} are dropped.
 *
 * Raw SQL: (a) `npm run bench:faces` (1:N in-memory scan, 100k p95 7.3 ms against 0.26–9.5 s for
 * the scan in SQL): loads and delta reads against `pg_snapshot_xmin(pg_current_snapshot())` (b).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../auth/context.js';
import { TEMPLATE_DIMENSION } from '../engines/face/template.js';
import { createDotKernel, PROBE_BYTES, ROW_BYTES, type DotKernel } from './dot-kernel.js';

/** Rows read per statement while loading a scope: bounds the driver's buffers (20k × 256 B ≈ 5 MB). */
export const LOAD_PAGE_ROWS = 20_000;
/** A scope not searched for this long is dropped from memory (loaded again on its next search). */
export const IDLE_EVICT_MS = 60 * 60 * 1000;
/** Most matches a search checks against the table: more rows than this above the threshold are cut, best first. */
export const MAX_CHECKED_MATCHES = 1000;

/** Where the kernel's rows start: after the widened probe, aligned. */
const ROWS_AT = Math.max(1024, PROBE_BYTES);
/** Extra room when the rows outgrow the memory, as a share of the rows. */
const GROWTH = 0.5;

/**
 * Where an index's templates live: one table (or join) whose rows carry a uuid id, a 256-byte
 * template and `change_xid` (a default and an update trigger), so one index serves the duplicate
 * search and the list gate alike.
 */
export interface TemplateSource {
  /** Tells the sources' scopes apart in a registry. */
  readonly name: string;
  /** The `from` clause, aliased: `session_list_subject sls join session s on s.id = sls.session_id`. */
  readonly from: string;
  /** The row's uuid (the load's key order, and what a match reports). */
  readonly id: string;
  /** The template column (256 signed bytes). */
  readonly template: string;
  /** The writing transaction's id column (xid8), under an index for the rows written since a watermark. */
  readonly changeXid: string;
  /** The filter of every statement; its three placeholders are the tenant id, the key version and the environment, in that order. */
  readonly scope: string;
  /**
   * What the check statement also reads of each row, as `<boolean> as excluded, <uuid or null> as detail`:
   * `excluded` drops a row for this search only (the same `vendor_data`), `detail` is reported with
   * a match (a list entry's list). Its placeholders take {@link IndexSearch.detailParams}.
   */
  readonly detail: string;
}

/** One row found by the scan and confirmed by the table. */
export interface IndexedMatch {
  /** The row's id (the source's `id` column). */
  id: string;
  similarity: number;
  /** The source's `detail` of the row, as the table has it now (a list entry's list); null when it has none. */
  detail: string | null;
}

/** What one search asks of an index. */
export interface IndexSearch {
  /** A row never proposed nor reported: the searching session's own template. */
  excludeId?: string;
  /** The values of the placeholders of the source's `detail` (the searching session's vendor_data). */
  detailParams?: readonly unknown[];
  probe: Int8Array;
  minSimilarity: number;
  limit: number;
}

/** A row as the table gives it. */
interface TemplateRow {
  id: string;
  template: Buffer | null;
  xid: string;
}

/** Transaction ids as numbers: xid8 values stay far below 2^53 (epoch · 2^32 + xid). */
const xidNumber = (text: string) => Number(text);

/** Sum of squares of a template's values (its squared length), exact in doubles. */
function squaredLength(values: Int8Array | Buffer, offset = 0): number {
  let sum = 0;
  for (let i = 0; i < TEMPLATE_DIMENSION; i++) {
    const value = (values[offset + i] << 24) >> 24;
    sum += value * value;
  }
  return sum;
}

/** Cosine of a probe and a stored template (bytes from the table). */
function cosine(probe: Int8Array, probeLength: number, stored: Buffer): number {
  let dot = 0;
  for (let i = 0; i < TEMPLATE_DIMENSION; i++) dot += probe[i] * ((stored[i] << 24) >> 24);
  const length = Math.sqrt(squaredLength(stored));
  return length === 0 ? -1 : dot / (probeLength * length);
}

/** One scope's templates of one source in memory. */
export class ScopeIndex {
  private kernel: DotKernel;
  private capacity: number;
  /** Rows held, dead ones included. */
  private count = 0;
  private dead = 0;
  /** Per row: its id in the source. */
  private ids: string[] = [];
  /** Per row: the template's length (0: dead row, never proposed). */
  private lengths: Float64Array;
  /** Per row: the transaction that wrote the version held. */
  private xids: Float64Array;
  /** Rows whose writing transaction may still have been running at the last read (they are read again): row id and xid → row. */
  private recent = new Map<string, number>();
  /** Every transaction below this had finished when the table was last read. */
  watermark = 0;
  /** When this scope was last searched (Date.now()). */
  lastUsed = Date.now();

  constructor(
    readonly source: TemplateSource,
    readonly scope: TenantScope,
    readonly keyVersion: number,
    initialCapacity = 1024,
  ) {
    this.capacity = initialCapacity;
    this.kernel = createDotKernel(ROWS_AT + initialCapacity * (ROW_BYTES + 4));
    this.lengths = new Float64Array(initialCapacity);
    this.xids = new Float64Array(initialCapacity);
  }

  /** Rows held and live (for tests and the bench). */
  get size(): number {
    return this.count - this.dead;
  }

  /** Bytes this scope holds (kernel memory and bookkeeping), roughly. */
  get bytes(): number {
    return this.kernel.memory.buffer.byteLength + this.capacity * 16 + this.count * 60;
  }

  /** Reads the whole scope through `em`, page by page; the watermark is the first page's. */
  async load(em: EntityManager): Promise<void> {
    let after = '00000000-0000-0000-0000-000000000000';
    let first = true;
    for (;;) {
      const { from, id, template, changeXid, scope } = this.source;
      const rows = await em.execute<(TemplateRow & { xmin: string })[]>(
        `select ${id} as id, ${template} as template, ${changeXid}::text as xid, pg_snapshot_xmin(pg_current_snapshot())::text as xmin
           from ${from}
          where ${scope} and ${id} > ? and ${template} is not null
          order by ${id} limit ?`,
        [...this.scopeParams(), after, LOAD_PAGE_ROWS],
        'all',
      );
      if (first) {
        // No row may be missed: transactions from this page's oldest running one on are read again later.
        this.watermark = rows.length > 0 ? xidNumber(rows[0].xmin) : await snapshotXmin(em);
        first = false;
      }
      for (const row of rows) this.add(row);
      if (rows.length < LOAD_PAGE_ROWS) return;
      after = rows[rows.length - 1].id;
    }
  }

  /**
   * One search: the exact scan of the rows held, then one statement that checks its matches in
   * the caller's snapshot and reads the rows written since the watermark, which are scored from
   * their bytes and added.
   */
  async search(em: EntityManager, query: IndexSearch): Promise<IndexedMatch[]> {
    this.lastUsed = Date.now();
    const probeLength = Math.sqrt(squaredLength(query.probe));
    if (probeLength === 0) return [];
    const proposed = this.scan(query.probe, probeLength, query.minSimilarity, query.excludeId);
    const { from, id, template, changeXid, scope, detail } = this.source;
    const detailParams = query.detailParams ?? [];
    const rows = await em.execute<(TemplateRow & { proposed: boolean; excluded: boolean; detail: string | null; xmin: string })[]>(
      `select snap.xmin::text as xmin, x.id, x.template, x.change_xid::text as xid, x.proposed, x.excluded, x.detail
         from (select pg_snapshot_xmin(pg_current_snapshot()) as xmin) snap
         left join lateral (
           select ${id} as id, ${template} as template, ${changeXid} as change_xid, true as proposed, ${detail}
             from ${from}
            where ${id} = any(?::uuid[]) and ${scope}
           union all
           select ${id}, ${template}, ${changeXid}, false, ${detail}
             from ${from}
            where ${changeXid} >= ?::text::xid8 and ${scope}
         ) x on true`,
      [
        ...detailParams,
        `{${proposed.map((row) => this.ids[row]).join(',')}}`,
        ...this.scopeParams(),
        ...detailParams,
        String(this.watermark),
        ...this.scopeParams(),
      ],
      'all',
    );
    const xmin = xidNumber(rows[0].xmin);
    const found = new Map<string, { similarity: number; detail: string | null }>();
    const confirmed = new Set<string>();
    for (const row of rows) {
      if (row.id === null) continue;
      if (row.proposed) confirmed.add(`${row.id}/${row.xid}`);
      else this.add(row);
      if (row.id === query.excludeId || row.excluded || !row.template || row.template.length !== TEMPLATE_DIMENSION) continue;
      const similarity = cosine(query.probe, probeLength, row.template);
      if (similarity >= query.minSimilarity && similarity > (found.get(row.id)?.similarity ?? -1))
        found.set(row.id, { similarity, detail: row.detail });
    }
    // Proposed rows the table no longer has in that version, written by a finished transaction: deleted or replaced.
    for (const row of proposed) if (this.xids[row] < xmin && !confirmed.has(`${this.ids[row]}/${this.xids[row]}`)) this.forget(row);
    if (xmin > this.watermark) this.advance(xmin);
    return [...found]
      .map(([rowId, { similarity, detail: rowDetail }]) => ({ id: rowId, similarity, detail: rowDetail }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, query.limit);
  }

  /** The values of the source's scope placeholders: tenant, key version, environment. */
  private scopeParams(): unknown[] {
    return [this.scope.tenantId, this.keyVersion, this.scope.environment];
  }

  /** Rows whose held template is at least `minSimilarity` to the probe, best first, at most {@link MAX_CHECKED_MATCHES}. */
  private scan(probe: Int8Array, probeLength: number, minSimilarity: number, excludeId: string | undefined): number[] {
    if (this.count === 0) return [];
    const memory = this.kernel.memory.buffer;
    new Int16Array(memory, 0, TEMPLATE_DIMENSION).set(probe);
    const out = ROWS_AT + this.capacity * ROW_BYTES;
    this.kernel.dots(0, ROWS_AT, this.count, out);
    const dots = new Int32Array(this.kernel.memory.buffer, out, this.count);
    const matches: { row: number; similarity: number }[] = [];
    for (let row = 0; row < this.count; row++) {
      const length = this.lengths[row];
      // A dead row's length is 0: its quotient is ±Infinity or NaN, and it is skipped by the check.
      if (length === 0) continue;
      const similarity = dots[row] / (probeLength * length);
      if (similarity >= minSimilarity && this.ids[row] !== excludeId) matches.push({ row, similarity });
    }
    return matches
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, MAX_CHECKED_MATCHES)
      .map((match) => match.row);
  }

  /** Adds a row read from the table, unless that version is already held. */
  private add(row: TemplateRow): void {
    if (!row.template || row.template.length !== TEMPLATE_DIMENSION) return;
    const xid = xidNumber(row.xid);
    const key = `${row.id}/${row.xid}`;
    if (this.recent.has(key)) return;
    if (this.count === this.capacity) this.grow();
    const at = this.count++;
    new Uint8Array(this.kernel.memory.buffer, ROWS_AT + at * ROW_BYTES, ROW_BYTES).set(row.template);
    this.ids[at] = row.id;
    this.lengths[at] = Math.sqrt(squaredLength(row.template));
    this.xids[at] = xid;
    if (xid >= this.watermark) this.recent.set(key, at);
  }

  /** Marks a row dead; compacts when a quarter of the rows are dead. */
  private forget(row: number): void {
    if (this.lengths[row] === 0) return;
    this.lengths[row] = 0;
    this.dead += 1;
    if (this.dead > 256 && this.dead * 4 > this.count) this.compact();
  }

  /** Moves the watermark and lets go of the rows it has passed. */
  private advance(xmin: number): void {
    this.watermark = xmin;
    for (const [key, row] of this.recent) if (this.xids[row] < xmin || this.lengths[row] === 0) this.recent.delete(key);
  }

  /** Room for half as many rows again. */
  private grow(): void {
    const capacity = Math.ceil(this.capacity * (1 + GROWTH));
    const needed = ROWS_AT + capacity * (ROW_BYTES + 4);
    const have = this.kernel.memory.buffer.byteLength;
    if (needed > have) this.kernel.memory.grow(Math.ceil((needed - have) / 65536));
    const lengths = new Float64Array(capacity);
    lengths.set(this.lengths);
    const xids = new Float64Array(capacity);
    xids.set(this.xids);
    this.lengths = lengths;
    this.xids = xids;
    this.capacity = capacity;
  }

  /** Drops dead rows, keeping the order of the others. */
  private compact(): void {
    const bytes = new Uint8Array(this.kernel.memory.buffer);
    let to = 0;
    for (let from = 0; from < this.count; from++) {
      if (this.lengths[from] === 0) continue;
      if (to !== from) {
        bytes.copyWithin(ROWS_AT + to * ROW_BYTES, ROWS_AT + from * ROW_BYTES, ROWS_AT + (from + 1) * ROW_BYTES);
        this.ids[to] = this.ids[from];
        this.lengths[to] = this.lengths[from];
        this.xids[to] = this.xids[from];
      }
      to += 1;
    }
    this.ids.length = to;
    this.count = to;
    this.dead = 0;
    this.recent.clear();
    for (let row = 0; row < this.count; row++)
      if (this.xids[row] >= this.watermark) this.recent.set(`${this.ids[row]}/${this.xids[row]}`, row);
  }
}

/** The oldest transaction running in the caller's snapshot. */
async function snapshotXmin(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ xmin: string }[]>(`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`, [], 'all');
  return xidNumber(row.xmin);
}

/**
 * The scopes one process holds, for one database (the registry hangs off its driver). A scope
 * loads once; concurrent first searches wait for the same load.
 */
export class TemplateIndexRegistry {
  private scopes = new Map<string, Promise<ScopeIndex>>();

  /** The scope's index of `source`, loaded through `em` on first use. */
  async get(em: EntityManager, source: TemplateSource, scope: TenantScope, keyVersion: number): Promise<ScopeIndex> {
    this.evictIdle();
    const prefix = `${source.name}/${scope.tenantId}/${scope.environment}/`;
    const key = `${prefix}${keyVersion}`;
    let index = this.scopes.get(key);
    if (!index) {
      // A new key version revokes the older ones' templates (face-templates.ts deletes them): let their copies go.
      for (const other of this.scopes.keys()) if (other.startsWith(prefix) && other !== key) this.scopes.delete(other);
      const loading = (async () => {
        const made = new ScopeIndex(source, scope, keyVersion);
        await made.load(em);
        return made;
      })();
      // A failed load (the caller's transaction aborted) must not stick.
      loading.catch(() => {
        if (this.scopes.get(key) === loading) this.scopes.delete(key);
      });
      this.scopes.set(key, loading);
      index = loading;
    }
    return index;
  }

  /** Drops every scope (tests, and the bench between sizes). */
  clear(): void {
    this.scopes.clear();
  }

  private evictIdle(): void {
    const now = Date.now();
    for (const [key, loading] of this.scopes)
      void loading.then(
        (index) => {
          if (now - index.lastUsed > IDLE_EVICT_MS && this.scopes.get(key) === loading) this.scopes.delete(key);
        },
        () => undefined,
      );
  }
}

const registries = new WeakMap<object, TemplateIndexRegistry>();

/** The registry of the database behind `em` (one per driver, so two apps in one process keep apart, as two processes would). */
export function templateIndexRegistry(em: EntityManager): TemplateIndexRegistry {
  const driver = em.getDriver();
  let registry = registries.get(driver);
  if (!registry) {
    registry = new TemplateIndexRegistry();
    registries.set(driver, registry);
  }
  return registry;
}
