/**
 * In-memory trigram index of the listed names (one algorithm with its exactness argument, kept in
 * one file past ~400 lines on purpose): the same candidates as the pg_trgm query in
 * store.ts (`findCandidates`), found by counting in typed arrays instead of merging the GIN
 * index's posting lists in the database.
 *
 * Why: at 100k–1M listed names the GIN index scan dominates a screen (docs/aml.md): every
 * query trigram's posting list is read and rechecked, and the common ones hold hundreds of
 * thousands of entries. The same posting lists, held as one `Uint32Array` per process, are
 * counted (ScanCount) in a few milliseconds.
 *
 * Exactness: the similarity is pg_trgm's own definition, reproduced for the alphabet normalised
 * names are written in (`[a-z0-9]` words joined by one space, normalize.ts): the trigram set of
 * each word padded with two spaces in front and one behind, |A∩B| / (|A| + |B| − |A∩B|)
 * rounded to float4, compared with the threshold as a double. The ranked entity ids and their
 * similarities go back to the database, which orders them exactly as the pg_trgm query does
 * (similarity, then entity id in the database's collation) and returns the rows.
 *
 * Second path: the same build files every word of the names by deletion keys (edit-index.ts),
 * so a screen can also ask for the names one edit per word from the query, which trigram
 * similarity misses when every word is misspelt (`candidates`' `editForms`). Those come after
 * the pg_trgm answer, never instead of any of it.
 *
 * Freshness: a trigger bumps `aml_name_epoch` on every statement that writes `aml_entity_name`
 * (imports, by this process, the CLI, another instance or SQL by hand). The index remembers the
 * epoch it was built at, and the statement that fetches a screen's entities reads the epoch in
 * the same snapshot: when they differ the screen falls back to pg_trgm and the index rebuilds
 * in the background. A screen therefore never sees names other than the committed ones.
 *
 * Raw SQL: (a) `npm run bench:aml`: the in-memory trigram index (1M p95 14.6 ms against 146 ms for
 * pg_trgm) is built from keyset pages and kept current by an epoch read with a `lateral` join (b).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { EditIndexBuilder, type EditIndex } from './edit-index.js';
import { AML_LISTS, type AmlList, type SanctionedEntity } from './entity.js';

/** Characters of normalised names, in trigram-code order (a space is code 0). */
const ALPHABET = ' abcdefghijklmnopqrstuvwxyz0123456789';
/** Number of distinct characters a trigram is made of. */
const RADIX = ALPHABET.length;
/** Number of possible trigram codes: every trigram of the alphabet has its own posting list. */
const TRIGRAM_CODES = RADIX * RADIX * RADIX;
/** Character code → alphabet position, −1 outside the alphabet. */
const POSITION = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) POSITION[ALPHABET.charCodeAt(i)] = i;

/**
 * Rows read per page while building: bounds the memory of one page of strings (~0.6 MB) and, on
 * embedded PGlite (which runs on the server's thread), how long one page holds up requests.
 */
export const BUILD_PAGE_ROWS = 10_000;
/**
 * How long screens leave the index alone after a build that produced none (a listed name outside
 * the alphabet, a database error, writes racing three builds), in milliseconds; meanwhile
 * screens use pg_trgm without starting a build each.
 */
export const BUILD_RETRY_MS = 30_000;

/**
 * Trigram codes (sorted, distinct) of a normalised name as pg_trgm computes them, or null when
 * the name holds a character outside `[a-z0-9 ]` (pg_trgm's result for those depends on the
 * server's locale, so such a name cannot be indexed exactly).
 */
export function trigramCodes(name: string): Uint16Array | null {
  const codes: number[] = [];
  let a = 0; // the two previous characters' positions (a space before a word)
  let b = 0;
  let inWord = false;
  for (let i = 0; i <= name.length; i += 1) {
    const code = i < name.length ? name.charCodeAt(i) : 32;
    const position = code < 128 ? POSITION[code]! : -1;
    if (position < 0) return null;
    if (position === 0) {
      // A space ends the current word with its last trigram (`xy `); runs of spaces are one.
      if (inWord) codes.push(a * RADIX * RADIX + b * RADIX);
      inWord = false;
      a = 0;
      b = 0;
      continue;
    }
    inWord = true;
    codes.push(a * RADIX * RADIX + b * RADIX + position);
    a = b;
    b = position;
  }
  const sorted = Uint16Array.from(codes).sort();
  let distinct = 0;
  for (let i = 0; i < sorted.length; i += 1) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i]!;
  return sorted.subarray(0, distinct);
}

/** pg_trgm's similarity of two trigram sets from their sizes and overlap: float4, as the server computes it. */
export function trigramSimilarity(overlap: number, sizeA: number, sizeB: number): number {
  return Math.fround(overlap / (sizeA + sizeB - overlap));
}

/** A growable typed array; the build does not know the number of names in advance. */
class Growable<T extends Uint8Array | Uint16Array | Uint32Array> {
  length = 0;
  constructor(
    public array: T,
    private readonly make: (size: number) => T,
  ) {}
  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }
  /** The filled part, copied into an array of exactly that length (the spare capacity is freed). */
  trimmed(): T {
    return this.array.slice(0, this.length) as T;
  }
}

/** One built index: immutable, replaced whole on rebuild. */
interface Snapshot {
  /** `aml_name_epoch` when the names were read. */
  epoch: string;
  /** Posting lists: names (ordinal) holding trigram code t are `postings[offsets[t] .. offsets[t+1])`, ascending. */
  offsets: Uint32Array;
  postings: Uint32Array;
  /** Per name: its entity (ordinal), its list (bit of AML_LISTS) and its number of distinct trigrams. */
  nameEntity: Uint32Array;
  nameList: Uint8Array;
  nameSize: Uint16Array;
  /** Entity ids, by ordinal: UTF-8 bytes of id i are `entityIdBytes[entityIdOffsets[i] .. entityIdOffsets[i+1])`. */
  entityIdBytes: Buffer;
  entityIdOffsets: Uint32Array;
  /** The same names' words by deletion keys: the second candidate path (edit-index.ts). */
  edits: EditIndex;
}

/** A ranked candidate entity (ordinal) with its best similarity. */
interface Ranked {
  entity: number;
  similarity: number;
}

/** Size and build figures of the current index, for logs, benchmarks and tests. */
export interface AmlNameIndexStats {
  /** Names (rows of `aml_entity_name`) indexed. */
  names: number;
  /** Entities indexed. */
  entities: number;
  /** Bytes held by the typed arrays, the lookup's scratch counters included. */
  bytes: number;
  /** How long the last build took, in milliseconds. */
  buildMs: number;
  /** Epoch the index was built at. */
  epoch: string;
}

/** Result of one index lookup: the entities in pg_trgm's order, or null when the caller must ask pg_trgm. */
export type IndexedCandidates = SanctionedEntity[] | null;

/**
 * The process's in-memory trigram index of `aml_entity_name`. Serves once built; falls back
 * (returns null) while building, after a change of the lists until rebuilt, and when a listed
 * name is outside the normalised alphabet.
 */
export class AmlNameIndex {
  private snapshot: Snapshot | null = null;
  private building: Promise<void> | null = null;
  /** True once stop() ran: no further builds. */
  private stopped = false;
  private lastBuildMs = 0;
  /** Lookups answered by the index, lookups handed back to pg_trgm, and builds run. */
  private readonly usage = { served: 0, fallbacks: 0, builds: 0 };
  /** Time (ms since epoch) before which a screen does not start a build; see BUILD_RETRY_MS. */
  private retryAt = 0;
  /** Scratch counters, one per name, reused by every lookup (lookups are synchronous). */
  private counts = new Uint16Array(0);
  private touched = new Uint32Array(0);

  /**
   * @param em  source of EntityManagers (forked per build) to read the names with
   * @param logger  where builds and fallbacks are reported
   */
  constructor(
    private readonly em: EntityManager,
    private readonly logger?: Logger,
  ) {}

  /** Starts building in the background; screens use pg_trgm until it is ready. Returns the build. */
  start(): Promise<void> {
    return this.refresh();
  }

  /** Stops serving and building; resolves once a build in flight has ended (its result discarded). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.snapshot = null;
    await this.building;
  }

  /** Figures of the index in use, or null while none is. */
  stats(): AmlNameIndexStats | null {
    const s = this.snapshot;
    if (!s) return null;
    const bytes =
      s.offsets.byteLength +
      s.postings.byteLength +
      s.nameEntity.byteLength +
      s.nameList.byteLength +
      s.nameSize.byteLength +
      s.entityIdBytes.byteLength +
      s.entityIdOffsets.byteLength +
      s.edits.bytes +
      this.counts.byteLength +
      this.touched.byteLength;
    return { names: s.nameEntity.length, entities: s.entityIdOffsets.length - 1, bytes, buildMs: this.lastBuildMs, epoch: s.epoch };
  }

  /** How many trigram lookups the index answered, how many it handed back to pg_trgm, and how many builds ran, since start. */
  counters(): { served: number; fallbacks: number; builds: number } {
    return { ...this.usage };
  }

  /** Rebuilds unless a build is in flight; resolves when the index reflects the lists committed before the call. */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.building ??= this.buildLoop().finally(() => (this.building = null));
    return this.building;
  }

  /**
   * The `limit` entities most trigram-similar to one of `variants` (at least `threshold`),
   * restricted to `lists`, best first, ties by entity id: exactly the pg_trgm query's answer.
   * With `editForms`, followed (in the same read) by up to `limit` further entities found by the
   * second path, `editRank`. Null when the index cannot answer (not built yet, lists changed
   * since), and the caller must run the pg_trgm query; a rebuild is then under way.
   */
  async candidates(
    em: EntityManager,
    variants: readonly string[],
    lists: readonly AmlList[],
    threshold: number,
    limit: number,
    editForms: readonly string[] = [],
  ): Promise<IndexedCandidates> {
    const snapshot = this.snapshot;
    if (!snapshot) {
      this.usage.fallbacks += 1;
      if (Date.now() >= this.retryAt) void this.refresh();
      return null;
    }
    const ranked = this.rank(snapshot, variants, lists, threshold, limit);
    if (!ranked) {
      this.usage.fallbacks += 1;
      return null;
    }
    const edited = editForms.length > 0 ? this.editRank(snapshot, editForms, lists, limit, new Set(ranked.map((r) => r.entity))) : [];
    const entities = await this.fetch(em, snapshot, ranked, edited, limit);
    this.usage[entities ? 'served' : 'fallbacks'] += 1;
    return entities;
  }

  /**
   * The second candidate path: up to `limit` entities, other than `exclude`, with a listed name
   * whose words are each at most one edit from the words of one of `forms` (edit-index.ts),
   * restricted to `lists`; most query words covered first, then fewest listed words left over,
   * then by entity ordinal. Finds the names misspelt in every word that trigram similarity
   * misses; the scorer decides on them. Ranks are returned as descending `similarity` values.
   */
  private editRank(snapshot: Snapshot, forms: readonly string[], lists: readonly AmlList[], limit: number, exclude: Set<number>): Ranked[] {
    let listMask = 0;
    for (const list of lists) listMask |= 1 << AML_LISTS.indexOf(list);
    const best = new Map<number, { covered: number; unmatched: number }>();
    for (const form of forms) {
      for (const match of snapshot.edits.match(form, (name) => (snapshot.nameList[name]! & listMask) !== 0)) {
        const entity = snapshot.nameEntity[match.name]!;
        if (exclude.has(entity)) continue;
        const previous = best.get(entity);
        if (!previous || match.covered > previous.covered || (match.covered === previous.covered && match.unmatched < previous.unmatched)) {
          best.set(entity, { covered: match.covered, unmatched: match.unmatched });
        }
      }
    }
    const ordered = [...best].sort(([ea, a], [eb, b]) => b.covered - a.covered || a.unmatched - b.unmatched || ea - eb).slice(0, limit);
    return ordered.map(([entity], i) => ({ entity, similarity: ordered.length - i }));
  }

  /**
   * Reads the entities of `ranked` (the first `limit` by similarity, then id, as the pg_trgm
   * query orders), then those of `edited` in their order, with the epoch in the same snapshot:
   * null, and a rebuild, when the lists changed since `snapshot` was built.
   */
  private async fetch(
    em: EntityManager,
    snapshot: Snapshot,
    ranked: Ranked[],
    edited: Ranked[],
    limit: number,
  ): Promise<IndexedCandidates> {
    const candidates = [
      ...ranked.map((r) => ({ id: entityIdOf(snapshot, r.entity), sim: r.similarity, path: 0 })),
      ...edited.map((r) => ({ id: entityIdOf(snapshot, r.entity), sim: r.similarity, path: 1 })),
    ];
    const rows = await em.execute<(SanctionedEntity & { epoch: string })[]>(
      `select ep.epoch::text as epoch, x.source_list, x.source_id, x.kind, x.primary_name, x.aliases, x.dates_of_birth,
         x.countries, x.programs, x.topics
       from aml_name_epoch ep
       left join lateral (
         select e.id, e.source_list, e.source_id, e.kind, e.primary_name, e.aliases, e.dates_of_birth, e.countries, e.programs, e.topics,
           c.path, c.sim, row_number() over (partition by c.path order by c.sim desc, e.id) as place
         from jsonb_to_recordset(?::jsonb) as c(id text, sim float8, path int)
         join aml_entity e on e.id = c.id
       ) x on x.place <= ?
       order by x.path, x.sim desc, x.id`,
      [JSON.stringify(candidates), limit],
      'all',
    );
    if (rows[0]?.epoch !== snapshot.epoch) {
      if (this.snapshot === snapshot) this.snapshot = null;
      this.logger?.info({ built: snapshot.epoch, now: rows[0]?.epoch }, 'AML name index stale (lists changed); rebuilding');
      void this.refresh();
      return null;
    }
    return rows.filter((row) => row.source_list !== null).map(({ epoch: _epoch, ...entity }) => entity);
  }

  /**
   * Ranks entities by their best name's similarity to any variant (ScanCount over the query
   * trigrams' posting lists), keeping the first `limit` and every entity tied with the last of
   * them (the database breaks those ties by id, in its collation). Null when a variant holds a
   * character outside the alphabet.
   */
  private rank(
    snapshot: Snapshot,
    variants: readonly string[],
    lists: readonly AmlList[],
    threshold: number,
    limit: number,
  ): Ranked[] | null {
    let listMask = 0;
    for (const list of lists) listMask |= 1 << AML_LISTS.indexOf(list);
    const names = snapshot.nameEntity.length;
    if (this.counts.length < names) {
      this.counts = new Uint16Array(names);
      this.touched = new Uint32Array(names);
    }
    const { counts, touched } = this;
    const best = new Map<number, number>();
    for (const variant of variants) {
      const query = trigramCodes(variant);
      if (!query) return null;
      const size = query.length;
      if (size === 0) continue;
      // Size filter: sim ≤ min(|A|,|B|) / max(|A|,|B|), so names much shorter or longer cannot pass.
      let minSize = 1;
      while (trigramSimilarity(minSize, size, minSize) < threshold && minSize < size) minSize += 1;
      let maxSize = size;
      while (trigramSimilarity(size, size, maxSize + 1) >= threshold) maxSize += 1;
      // Overlap filter: the fewest shared trigrams that can pass, with the most favourable name size.
      let minOverlap = 1;
      while (minOverlap < size && trigramSimilarity(minOverlap, size, Math.max(minOverlap, minSize)) < threshold) minOverlap += 1;
      // Prefix filter (exact): a name sharing at least minOverlap of the query's trigrams holds one
      // of any size − minOverlap + 1 of them. The counting runs over that many of the shortest
      // posting lists; the longest (the common trigrams, hundreds of thousands of names at 1M
      // entities) are only probed, by binary search, for the names the short ones found.
      const order = Array.from(query).sort(
        (x, y) => snapshot.offsets[x + 1]! - snapshot.offsets[x]! - (snapshot.offsets[y + 1]! - snapshot.offsets[y]!),
      );
      const counted = size - minOverlap + 1;
      let touchedCount = 0;
      for (let q = 0; q < counted; q += 1) {
        const code = order[q]!;
        const end = snapshot.offsets[code + 1]!;
        for (let p = snapshot.offsets[code]!; p < end; p += 1) {
          const name = snapshot.postings[p]!;
          if (counts[name]++ === 0) touched[touchedCount++] = name;
        }
      }
      const probed = size - counted;
      // The overlap a name of each size needs (sizes minSize..maxSize), as pg_trgm's similarity rounds it.
      const needed = new Uint16Array(maxSize + 1).fill(0xffff);
      for (let nameSize = minSize; nameSize <= maxSize; nameSize += 1)
        for (let overlap = 1; overlap <= Math.min(size, nameSize); overlap += 1)
          if (trigramSimilarity(overlap, size, nameSize) >= threshold) {
            needed[nameSize] = overlap;
            break;
          }
      for (let i = 0; i < touchedCount; i += 1) {
        const name = touched[i]!;
        let overlap = counts[name]!;
        counts[name] = 0;
        if (overlap + probed < minOverlap) continue;
        const nameSize = snapshot.nameSize[name]!;
        if (nameSize < minSize || nameSize > maxSize || (snapshot.nameList[name]! & listMask) === 0) continue;
        const need = needed[nameSize]!;
        // Probe every long list (the similarity needs the whole overlap), unless the rest cannot reach `need`.
        for (let q = counted; q < size && overlap + (size - q) >= need; q += 1) {
          const code = order[q]!;
          if (holds(snapshot.postings, snapshot.offsets[code]!, snapshot.offsets[code + 1]!, name)) overlap += 1;
        }
        if (overlap < need) continue;
        const similarity = trigramSimilarity(overlap, size, nameSize);
        if (similarity < threshold) continue;
        const entity = snapshot.nameEntity[name]!;
        const previous = best.get(entity);
        if (previous === undefined || similarity > previous) best.set(entity, similarity);
      }
    }
    const ranked: Ranked[] = [];
    for (const [entity, similarity] of best) ranked.push({ entity, similarity });
    ranked.sort((x, y) => y.similarity - x.similarity);
    if (ranked.length <= limit) return ranked;
    const cutoff = ranked[limit - 1]!.similarity;
    let end = limit;
    while (end < ranked.length && ranked[end]!.similarity === cutoff) end += 1;
    return ranked.slice(0, end);
  }

  /**
   * Builds until a build sees no concurrent change of the names (at most three tries per call);
   * without an index at the end, screens wait BUILD_RETRY_MS before starting another.
   */
  private async buildLoop(): Promise<void> {
    this.retryAt = Date.now() + BUILD_RETRY_MS;
    for (let attempt = 0; attempt < 3 && !this.stopped; attempt += 1) {
      const started = performance.now();
      this.usage.builds += 1;
      try {
        const snapshot = await this.build();
        if (snapshot === 'changed') continue;
        if (this.stopped) return;
        this.lastBuildMs = performance.now() - started;
        this.snapshot = snapshot;
        if (snapshot) {
          this.retryAt = 0;
          this.logger?.info({ ...this.stats() }, 'AML name index built');
        }
        return;
      } catch (error) {
        // After stop() the database may be closing under the build; that is not worth a warning.
        if (!this.stopped) this.logger?.warn({ err: error }, 'AML name index build failed; screens use pg_trgm');
        return;
      }
    }
  }

  /**
   * Reads every name page by page (keyset order), between two reads of the epoch: 'changed'
   * when they differ (a write committed meanwhile), null when a name cannot be indexed exactly.
   */
  private async build(): Promise<Snapshot | null | 'changed'> {
    const em = this.em.fork();
    const readEpoch = async () =>
      (await em.execute<{ epoch: string }[]>('select epoch::text as epoch from aml_name_epoch', [], 'all'))[0]?.epoch ?? '';
    const epoch = await readEpoch();
    const nameEntity = new Growable(new Uint32Array(1024), (n) => new Uint32Array(n));
    const nameList = new Growable(new Uint8Array(1024), (n) => new Uint8Array(n));
    const nameSize = new Growable(new Uint16Array(1024), (n) => new Uint16Array(n));
    const trigrams = new Growable(new Uint16Array(16384), (n) => new Uint16Array(n));
    const edits = new EditIndexBuilder();
    const entityIds: string[] = [];
    let lastEntity = '';
    let lastName = '';
    for (;;) {
      const rows = await em.execute<{ entity_id: string; source_list: AmlList; name_normalized: string }[]>(
        `select entity_id, source_list, name_normalized from aml_entity_name
         where (entity_id, name_normalized) > (?, ?) order by entity_id, name_normalized limit ?`,
        [lastEntity, lastName, BUILD_PAGE_ROWS],
        'all',
      );
      for (const row of rows) {
        const codes = trigramCodes(row.name_normalized);
        if (!codes) {
          this.logger?.warn({ entity: row.entity_id }, 'AML name index off: a listed name is outside the normalised alphabet');
          return null;
        }
        if (row.entity_id !== entityIds[entityIds.length - 1]) entityIds.push(row.entity_id);
        edits.add(nameEntity.length, row.name_normalized);
        nameEntity.push(entityIds.length - 1);
        nameList.push(1 << AML_LISTS.indexOf(row.source_list));
        nameSize.push(codes.length);
        for (const code of codes) trigrams.push(code);
      }
      if (rows.length < BUILD_PAGE_ROWS) break;
      lastEntity = rows[rows.length - 1]!.entity_id;
      lastName = rows[rows.length - 1]!.name_normalized;
      // Let requests run between pages: a build of a million entities takes seconds.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if ((await readEpoch()) !== epoch) return 'changed';
    // Compressed sparse rows: count per trigram, prefix sums, then fill in name order (ascending lists).
    const sizes = nameSize.trimmed();
    const codes = trigrams.array;
    const offsets = new Uint32Array(TRIGRAM_CODES + 1);
    for (let i = 0; i < trigrams.length; i += 1) offsets[codes[i]! + 1]! += 1;
    for (let t = 0; t < TRIGRAM_CODES; t += 1) offsets[t + 1]! += offsets[t]!;
    const cursor = offsets.slice(0, TRIGRAM_CODES);
    const postings = new Uint32Array(trigrams.length);
    let position = 0;
    for (let name = 0; name < sizes.length; name += 1) {
      for (let k = 0; k < sizes[name]!; k += 1) postings[cursor[codes[position++]!]!++] = name;
    }
    const encoded = entityIds.map((id) => Buffer.from(id, 'utf8'));
    const entityIdOffsets = new Uint32Array(encoded.length + 1);
    for (let i = 0; i < encoded.length; i += 1) entityIdOffsets[i + 1] = entityIdOffsets[i]! + encoded[i]!.length;
    return {
      epoch,
      offsets,
      postings,
      nameEntity: nameEntity.trimmed(),
      nameList: nameList.trimmed(),
      nameSize: sizes,
      entityIdBytes: Buffer.concat(encoded),
      entityIdOffsets,
      edits: edits.finish(),
    };
  }
}

/** True when the ascending `postings[from .. to)` holds `name` (binary search). */
function holds(postings: Uint32Array, from: number, to: number, name: number): boolean {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (postings[middle]! < name) low = middle + 1;
    else high = middle;
  }
  return low < to && postings[low] === name;
}

/** The id of entity ordinal `entity`. */
function entityIdOf(snapshot: Snapshot, entity: number): string {
  return snapshot.entityIdBytes.toString('utf8', snapshot.entityIdOffsets[entity], snapshot.entityIdOffsets[entity + 1]);
}
