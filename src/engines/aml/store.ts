/**
 * PostgreSQL storage of listed entities: bulk import (atomic replacement of whole lists) and
 * candidate retrieval through pg_trgm, followed by scoring with `screen()` in TypeScript.
 *
 * Tables (migration 20261122000300): `aml_entity` (one row per listed subject, id
 * `SOURCE_LIST:source_id`), `aml_entity_name` (one row per distinct candidate form of the
 * primary name and each alias: normalised variants and their consonant skeletons, under a
 * `gin_trgm_ops` index), `aml_list_import` (import log).
 *
 * Candidate retrieval: the query name is turned into the same forms as listed names
 * (`candidateForms`), and every listed name with `name_normalized % form` is a candidate. `%` is pg_trgm's
 * similarity operator and the one the GIN index serves; it compares trigram sets of words, so
 * token order does not matter. Its threshold is the `pg_trgm.similarity_threshold` setting,
 * left at PostgreSQL's default 0.3 on purpose: SET is shared by every connection of embedded
 * PGlite, so this module never changes it (a server configured with a higher value loses
 * recall, a lower one only costs time). The best CANDIDATE_LIMIT entities by trigram
 * similarity go to `screen()`, which computes the real score. Servers compute the same
 * candidates from an in-memory copy of the names (name-index.ts) and run this query only while
 * that copy is not current.
 *
 * Works through any MikroORM EntityManager on PostgreSQL 15+ and on PGlite: statements use
 * MikroORM's `?` placeholders with string/number values (arrays travel as JSON text and are
 * unpacked in SQL), and an import is one transaction on one connection that never waits on
 * another (docs/design.md "Storage and the embedded database").
 *
 * Raw SQL: (a) `npm run bench:aml`: the pg_trgm fallback screen (100k p95 15.6 ms on PostgreSQL)
 * and the bulk load (1M names in 304 s) — (b) with `set_config`, dropping and rebuilding the
 * trigram indexes (DDL), `gin_clean_pending_list`, bulk `jsonb_to_recordset` inserts, temporary
 * tables filled by COPY (src/db/copy.ts) and `distinct on` reads.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { copyIn, copyText, copyTextArray, supportsCopyIn } from '../../db/copy.js';
import { AML_LISTS, entityId, type AmlList, type SanctionedEntity } from './entity.js';
import type { AmlNameIndex } from './name-index.js';
import { nameVariants, skeletonName } from './normalize.js';
import { screen, type AmlQuery, type AmlScreening } from './score.js';

/** Entities per multi-row INSERT; ~1 MB of SQL per statement, well under any limit, few round trips. */
export const IMPORT_BATCH_SIZE = 1000;

/** Entities per COPY of a server import (copyIn): ~3 MB of rows each, so a million entities are 100 COPYs per table. */
export const COPY_BATCH_SIZE = 10_000;

/** Most entities handed from pg_trgm to `screen()` per screen; far above the hits a real name has. */
export const CANDIDATE_LIMIT = 50;

/**
 * Longest normalised name stored, in characters. Longer aliases (addresses pasted into name
 * fields happen) are cut, so the btree on `name_normalized` never meets its ~2.7 kB row limit.
 */
export const MAX_NORMALIZED_NAME_LENGTH = 300;

/** Options of importEntities. */
export interface ImportEntitiesOptions {
  /**
   * Lists this import replaces. Entities of other lists in the stream are skipped, and a given
   * list the stream does not mention ends up empty. When absent, every list the stream
   * mentions is replaced (an OFAC file replaces OFAC_SDN, an OpenSanctions file each list it holds).
   */
  lists?: readonly AmlList[];
  /** Importer format, recorded in `aml_list_import` (`ofac_sdn_xml`, ...). */
  fileFormat: string;
  /** SHA-256 hex of the source file, recorded in `aml_list_import`. */
  checksum: string;
}

/** What an import did. */
export interface ImportSummary {
  /** Lists whose previous entities were replaced, in the order first seen. */
  lists: AmlList[];
  /** Entities written per replaced list. */
  counts: Partial<Record<AmlList, number>>;
  /** Entities of the stream skipped because their list was not among `options.lists`. */
  skipped: number;
}

/**
 * The forms of one name that candidate retrieval compares by trigrams, cut to
 * MAX_NORMALIZED_NAME_LENGTH: every normalised variant, and the consonant skeleton of each.
 * The skeletons are the second way to a candidate: a name misspelt in every word, or written in
 * Arabic or Persian script (consonants only), shares few trigrams with the listed spelling but
 * usually all of its skeleton ("Nicloas Madruo Moors" and "Nicolas Maduro Moros" → "nkls mdr
 * mrs"; "قاسم سليماني" and "Qasem Soleimani" → "ksm slmn"). The scorer then decides on the names.
 */
export function candidateForms(name: string): string[] {
  const forms = new Set<string>();
  for (const variant of nameVariants(name)) {
    for (const form of [variant, skeletonName(variant)]) {
      const cut = form.slice(0, MAX_NORMALIZED_NAME_LENGTH).trim();
      if (cut.length > 0) forms.add(cut);
    }
  }
  return [...forms];
}

/**
 * Distinct candidate forms (candidateForms) of an entity's primary name and aliases: its rows of
 * `aml_entity_name`. `formsOf` is candidateForms or an import's memo of it (FormsMemo).
 */
export function normalizedNamesOf(
  entity: Pick<SanctionedEntity, 'primary_name' | 'aliases'>,
  formsOf: (name: string) => string[] = candidateForms,
): string[] {
  return [...new Set([entity.primary_name, ...entity.aliases].flatMap(formsOf))];
}

/**
 * Writes rows of `aml_entity_name` from one JSON parameter, an array of `{ e: entity id, l: list,
 * n: candidate form }`; shared by imports and by the migration that recomputes the forms.
 */
export const INSERT_NAME_ROWS_SQL = `insert into aml_entity_name (entity_id, source_list, name_normalized)
  select x.e, x.l, x.n from jsonb_to_recordset(?::jsonb) as x(e text, l text, n text)
  on conflict do nothing`;

/**
 * Names an import writes before it sets the name table's secondary indexes aside and builds them
 * again in one pass at its end (issue 29.5): kept up row by row, the trigram GIN index and the
 * two btrees cost most of a large import (docs/performance.md "AML at a million names"); a small
 * import (a list update of a few thousand names) keeps them.
 */
export const BULK_INDEX_BUILD_NAMES = 50_000;

/** The secondary indexes of `aml_entity_name` (migration AmlEntities), as they are made again after a bulk import. */
const NAME_INDEXES = [
  ['aml_entity_name_trgm_index', 'using gin (name_normalized gin_trgm_ops)'],
  ['aml_entity_name_name_index', '(name_normalized)'],
  ['aml_entity_name_source_list_index', '(source_list)'],
] as const;

/**
 * Counts the names an import writes; past BULK_INDEX_BUILD_NAMES drops the name indexes (inside
 * the import's transaction: a failed import gets them back with its rollback) and `finish` builds
 * them again. Meanwhile other readers of `aml_entity_name` wait for the commit (screens served
 * by the in-memory index read only `aml_entity`).
 */
class NameIndexBuild {
  private names = 0;
  private dropped = false;

  async wrote(tx: EntityManager, names: number): Promise<void> {
    this.names += names;
    if (this.dropped || this.names < BULK_INDEX_BUILD_NAMES) return;
    for (const [name] of NAME_INDEXES) await tx.execute(`drop index if exists ${name}`, [], 'run');
    this.dropped = true;
  }

  /** Builds the dropped indexes (sorted bulk builds), or merges the GIN pending list when nothing was dropped. */
  async finish(tx: EntityManager): Promise<void> {
    if (!this.dropped) return flushTrigramIndex(tx);
    // Transaction-local: the builds are one pass over every name (a million entities' GIN build takes
    // minutes on a loaded server), which the per-statement timeout meant for requests must not cancel.
    await tx.execute(`select set_config('maintenance_work_mem', '256MB', true), set_config('statement_timeout', '0', true)`, [], 'all');
    for (const [name, definition] of NAME_INDEXES) await tx.execute(`create index ${name} on aml_entity_name ${definition}`, [], 'run');
  }
}

/** Deletes every entity of one list (names first, so the cascade finds nothing to do). */
async function deleteList(em: EntityManager, list: AmlList): Promise<void> {
  await em.execute('delete from aml_entity_name where source_list = ?', [list], 'run');
  await em.execute('delete from aml_entity where source_list = ?', [list], 'run');
}

/** The columns of `aml_entity` an import writes, in order (imported_at is the import's `now()`). */
const ENTITY_COLUMNS = 'id, source_list, source_id, kind, primary_name, aliases, dates_of_birth, countries, programs, topics';

/** What an import does when an entity id is already stored: the new version replaces it, keeping its names (names are only added). */
const ENTITY_UPSERT = `on conflict (id) do update set kind = excluded.kind, primary_name = excluded.primary_name, aliases = excluded.aliases,
       dates_of_birth = excluded.dates_of_birth, countries = excluded.countries, programs = excluded.programs,
       topics = excluded.topics, imported_at = excluded.imported_at`;

/**
 * Memo of candidateForms for one import: a name is turned into its forms once, however many
 * entities or aliases carry it (real lists repeat names; an alias is often the primary name
 * re-cased). Emptied when full, so a million-entity import holds a bounded number.
 */
class FormsMemo {
  private readonly forms = new Map<string, string[]>();
  private static readonly LIMIT = 200_000;

  /** candidateForms of a name, computed on its first sight. */
  readonly formsOf = (name: string): string[] => {
    let forms = this.forms.get(name);
    if (!forms) {
      if (this.forms.size >= FormsMemo.LIMIT) this.forms.clear();
      forms = candidateForms(name);
      this.forms.set(name, forms);
    }
    return forms;
  };
}

/** Writes the entities of an import (and their rows of `aml_entity_name`) inside its transaction. */
interface EntityWriter {
  /** Entities handed to `write` at a time. */
  readonly batchSize: number;
  /** Writes one batch (duplicates within it: last wins); returns how many name rows it adds. */
  write(batch: SanctionedEntity[]): Promise<number>;
  /** Writes what `write` left pending; called before the name indexes are built. */
  finish(): Promise<void>;
}

/** One batch's entities, the last of each id, with their name rows. */
function batchRows(batch: SanctionedEntity[], memo: FormsMemo): { id: string; entity: SanctionedEntity; names: string[] }[] {
  const byId = new Map<string, SanctionedEntity>();
  for (const entity of batch) byId.set(entityId(entity), entity);
  return [...byId].map(([id, entity]) => ({ id, entity, names: normalizedNamesOf(entity, memo.formsOf) }));
}

/** Multi-row INSERTs from JSON parameters, IMPORT_BATCH_SIZE entities each: any database, embedded PGlite included. */
class StatementWriter implements EntityWriter {
  readonly batchSize = IMPORT_BATCH_SIZE;
  private readonly memo = new FormsMemo();

  constructor(private readonly tx: EntityManager) {}

  async write(batch: SanctionedEntity[]): Promise<number> {
    const rows = batchRows(batch, this.memo);
    const entities = rows.map(({ id, entity: e }) => ({
      id,
      source_list: e.source_list,
      source_id: e.source_id,
      kind: e.kind,
      primary_name: e.primary_name,
      aliases: e.aliases,
      dates_of_birth: e.dates_of_birth,
      countries: e.countries,
      programs: e.programs,
      topics: e.topics,
    }));
    const names = rows.flatMap(({ id, entity, names }) => names.map((n) => ({ e: id, l: entity.source_list, n })));
    await this.tx.execute(
      `insert into aml_entity (${ENTITY_COLUMNS}, imported_at)
       select x.id, x.source_list, x.source_id, x.kind, x.primary_name, x.aliases, x.dates_of_birth, x.countries, x.programs, x.topics, now()
       from jsonb_to_recordset(?::jsonb) as x(id text, source_list text, source_id text, kind text, primary_name text,
         aliases text[], dates_of_birth text[], countries text[], programs text[], topics text[])
       ${ENTITY_UPSERT}`,
      [JSON.stringify(entities)],
      'run',
    );
    if (names.length === 0) return 0;
    await this.tx.execute(INSERT_NAME_ROWS_SQL, [JSON.stringify(names)], 'run');
    return names.length;
  }

  async finish(): Promise<void> {}
}

/**
 * COPY into two temporary tables of the transaction, COPY_BATCH_SIZE entities at a time, then one
 * INSERT ... SELECT per table at the end (the last version of a repeated id wins, stored ids are
 * updated, names only added, as with StatementWriter): a PostgreSQL server only (copyIn). Parsing
 * JSON parameters and planning an INSERT per thousand entities was most of the server's share of a
 * large import (docs/performance.md "AML at a million names").
 */
class CopyWriter implements EntityWriter {
  readonly batchSize = COPY_BATCH_SIZE;
  private readonly memo = new FormsMemo();
  private order = 0;
  private created = false;

  constructor(private readonly tx: EntityManager) {}

  async write(batch: SanctionedEntity[]): Promise<number> {
    if (!this.created) {
      await this.tx.execute(
        `create temporary table aml_entity_load (ord bigint not null, id text not null, source_list text not null, source_id text not null,
           kind text not null, primary_name text not null, aliases text[] not null, dates_of_birth text[] not null, countries text[] not null,
           programs text[] not null, topics text[] not null) on commit drop`,
        [],
        'run',
      );
      await this.tx.execute(
        'create temporary table aml_entity_name_load (entity_id text not null, source_list text not null, name_normalized text not null) on commit drop',
        [],
        'run',
      );
      this.created = true;
    }
    let entities = '';
    let names = '';
    let nameCount = 0;
    for (const { id, entity: e, names: forms } of batchRows(batch, this.memo)) {
      this.order += 1;
      const list = copyText(e.source_list);
      const arrays = [e.aliases, e.dates_of_birth, e.countries, e.programs, e.topics].map(copyTextArray).join('\t');
      entities += `${this.order}\t${copyText(id)}\t${list}\t${copyText(e.source_id)}\t${copyText(e.kind)}\t${copyText(e.primary_name)}\t${arrays}\n`;
      for (const form of forms) names += `${copyText(id)}\t${list}\t${copyText(form)}\n`;
      nameCount += forms.length;
    }
    await copyIn(this.tx, `copy aml_entity_load (ord, ${ENTITY_COLUMNS}) from stdin`, entities);
    if (nameCount > 0) await copyIn(this.tx, 'copy aml_entity_name_load (entity_id, source_list, name_normalized) from stdin', names);
    return nameCount;
  }

  /**
   * Moves the loaded rows into the real tables: the last version of each id, then the names in
   * primary-key order, so the key's btree and the foreign key's lookups go page by page, not at random.
   */
  async finish(): Promise<void> {
    if (!this.created) return;
    // Transaction-local, as the index builds: one sort of every loaded entity, which a request's timeout must not cancel.
    await this.tx.execute(`select set_config('work_mem', '256MB', true), set_config('statement_timeout', '0', true)`, [], 'all');
    await this.tx.execute(
      `insert into aml_entity (${ENTITY_COLUMNS}, imported_at)
       select distinct on (id) ${ENTITY_COLUMNS}, now() from aml_entity_load order by id, ord desc
       ${ENTITY_UPSERT}`,
      [],
      'run',
    );
    await this.tx.execute(
      `insert into aml_entity_name (entity_id, source_list, name_normalized)
       select entity_id, source_list, name_normalized from aml_entity_name_load order by entity_id, name_normalized
       on conflict do nothing`,
      [],
      'run',
    );
    // Gone now rather than at the commit, so a second import in the same transaction can make them again.
    await this.tx.execute('drop table aml_entity_load, aml_entity_name_load', [], 'run');
    this.created = false;
  }
}

/** The fastest writer the database takes: COPY on a PostgreSQL server, INSERT statements on embedded PGlite. */
async function entityWriter(tx: EntityManager): Promise<EntityWriter> {
  return (await supportsCopyIn(tx)) ? new CopyWriter(tx) : new StatementWriter(tx);
}

/**
 * Records, in the transaction that changed them, that `lists` need their approved subjects
 * screened again (ongoing monitoring's outbox, worked through by src/sessions/aml-monitoring.ts).
 */
async function requestRescreen(tx: EntityManager, lists: readonly AmlList[]): Promise<void> {
  if (lists.length === 0) return;
  await tx.execute(
    `insert into aml_rescreen_request (id, lists, requested_at) select ?, array(select jsonb_array_elements_text(?::jsonb)), now()`,
    [randomUUID(), JSON.stringify(lists)],
    'run',
  );
}

/**
 * Merges the GIN index's pending list into the index proper. Batched inserts land in that
 * unsorted list (`fastupdate`), and every `%` query scans it linearly until autovacuum merges
 * it: measured at 10k fresh entities, screens took 50 ms instead of 6 ms.
 */
async function flushTrigramIndex(em: EntityManager): Promise<void> {
  await em.execute(`select gin_clean_pending_list('aml_entity_name_trgm_index'::regclass)`, [], 'all');
}

/**
 * Imports a stream of entities, replacing whole lists atomically: one transaction deletes each
 * replaced list and writes its new entities in IMPORT_BATCH_SIZE batches, then logs the import
 * in `aml_list_import` and requests the re-screening of the replaced lists
 * (`aml_rescreen_request`). Screens running meanwhile see the old list until the commit (on
 * PGlite they wait for it, since it runs one transaction at a time).
 */
export async function importEntities(
  em: EntityManager,
  entities: AsyncIterable<SanctionedEntity> | Iterable<SanctionedEntity>,
  options: ImportEntitiesOptions,
): Promise<ImportSummary> {
  const wanted = options.lists ? new Set<AmlList>(options.lists) : undefined;
  return em.fork().transactional(async (tx) => {
    const counts: Partial<Record<AmlList, number>> = {};
    const replaced: AmlList[] = [];
    let skipped = 0;
    const replace = async (list: AmlList) => {
      if (counts[list] !== undefined) return;
      await deleteList(tx, list);
      counts[list] = 0;
      replaced.push(list);
    };
    for (const list of options.lists ?? []) await replace(list);
    const indexes = new NameIndexBuild();
    const writer = await entityWriter(tx);
    let batch: SanctionedEntity[] = [];
    for await (const entity of entities) {
      if (wanted && !wanted.has(entity.source_list)) {
        skipped += 1;
        continue;
      }
      await replace(entity.source_list);
      counts[entity.source_list] = (counts[entity.source_list] ?? 0) + 1;
      batch.push(entity);
      if (batch.length >= writer.batchSize) {
        await indexes.wrote(tx, await writer.write(batch));
        batch = [];
      }
    }
    if (batch.length > 0) await indexes.wrote(tx, await writer.write(batch));
    await writer.finish();
    for (const list of replaced) {
      await tx.execute(
        'insert into aml_list_import (id, source_list, file_format, entity_count, checksum, imported_at) values (?, ?, ?, ?, ?, now())',
        [randomUUID(), list, options.fileFormat, counts[list] ?? 0, options.checksum],
        'run',
      );
    }
    await requestRescreen(tx, replaced);
    await indexes.finish(tx);
    return { lists: replaced, counts, skipped };
  });
}

/**
 * Adds or updates entities without replacing any list (no delete, no import log), in
 * IMPORT_BATCH_SIZE batches inside one transaction. For feeds that deliver changes rather than
 * whole lists, and for loading synthetic data in the benchmark; requests the re-screening of the
 * lists written, like an import; returns the entities written.
 */
export async function upsertEntities(
  em: EntityManager,
  entities: AsyncIterable<SanctionedEntity> | Iterable<SanctionedEntity>,
): Promise<number> {
  return em.fork().transactional(async (tx) => {
    let written = 0;
    const lists = new Set<AmlList>();
    const indexes = new NameIndexBuild();
    const writer = await entityWriter(tx);
    let batch: SanctionedEntity[] = [];
    for await (const entity of entities) {
      batch.push(entity);
      lists.add(entity.source_list);
      written += 1;
      if (batch.length >= writer.batchSize) {
        await indexes.wrote(tx, await writer.write(batch));
        batch = [];
      }
    }
    if (batch.length > 0) await indexes.wrote(tx, await writer.write(batch));
    await writer.finish();
    await requestRescreen(tx, [...lists]);
    await indexes.finish(tx);
    return written;
  });
}

/** SHA-256 (hex) of a file, streamed; recorded with each import. */
export async function fileChecksum(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Trigram similarity (0..1) a listed name needs with a query variant to become a candidate: the
 * `pg_trgm.similarity_threshold` the `%` operator and the GIN index work with. 0.4 keeps
 * reordered, re-spaced, one-letter-off and middle-name-missing spellings (≥ 0.5 on the fixtures)
 * while letting the index skip most names that only share common trigrams; PostgreSQL's
 * default 0.3 doubles the index time at 100k entities for no hit that could score ≥ 50.
 */
export const CANDIDATE_MIN_SIMILARITY = 0.4;

/**
 * Entities whose normalised names are trigram-similar (pg_trgm `%`) to one of the query's
 * normalised variants, restricted to `lists`: the `limit` most similar, best first.
 *
 * Runs in its own short transaction so that two planner settings can be `SET LOCAL`
 * (`set_config(..., true)`), never session-wide, which matters on PGlite where every
 * connection shares one session: the similarity threshold above, and `enable_seqscan = off`,
 * because the planner underestimates the cost of `%` per row and picks a sequential scan on
 * tables of up to ~50k names, which is 5–10 times slower than the GIN index. When `em` is
 * already inside a transaction the settings are restored before returning, so they do not
 * leak into the caller's transaction.
 *
 * With `index` (the process's in-memory copy of the names, name-index.ts) the same answer is
 * computed in memory and only the entities are read; the query above runs when the index cannot
 * answer (still building, or the lists changed since it was built). With `index` and
 * `options.edits`, up to `limit` further entities follow: those whose names are one edit per
 * word from the query's (`AmlNameIndex.candidates`), which trigram similarity misses when every
 * word is misspelt; the pg_trgm query has no such path.
 */
export async function findCandidates(
  em: EntityManager,
  fullName: string,
  lists: readonly AmlList[] = AML_LISTS,
  limit = CANDIDATE_LIMIT,
  index?: AmlNameIndex | null,
  options: { edits?: boolean } = {},
): Promise<SanctionedEntity[]> {
  const variants = candidateForms(fullName);
  if (variants.length === 0 || lists.length === 0) return [];
  if (index) {
    // Spelled variants only for the edit path: consonant skeletons are short words one edit from thousands of others.
    const editForms = options.edits ? nameVariants(fullName) : [];
    const indexed = await index.candidates(em, variants, lists, CANDIDATE_MIN_SIMILARITY, limit, editForms);
    if (indexed) return indexed;
  }
  // One `%` per form (two to six): OR-ed, they become a BitmapOr over the GIN index.
  const similarity = variants.map(() => 'similarity(n.name_normalized, ?)').join(', ');
  const matches = variants.map(() => 'n.name_normalized % ?').join(' or ');
  const sql = `select e.source_list, e.source_id, e.kind, e.primary_name, e.aliases, e.dates_of_birth, e.countries, e.programs, e.topics
     from (
       select n.entity_id, max(greatest(${similarity})) as sim
       from aml_entity_name n
       where (${matches}) and n.source_list in (?)
       group by n.entity_id
       order by sim desc, n.entity_id
       limit ?
     ) c
     join aml_entity e on e.id = c.entity_id
     order by c.sim desc, e.id`;
  const rows = await em.transactional(async (tx) => {
    // Transaction-local settings (is_local = true) end with this transaction, on PGlite too. The
    // threshold GUC exists only once pg_trgm is loaded in the backend, so it is set, never read.
    await tx.execute(`select set_config('pg_trgm.similarity_threshold', ?, true), set_config('enable_seqscan', 'off', true)`, [
      String(CANDIDATE_MIN_SIMILARITY),
    ]);
    // The select list is exactly SanctionedEntity's columns, so rows need no reshaping.
    return tx.execute<SanctionedEntity[]>(sql, [...variants, ...variants, [...lists], limit], 'all');
  });
  return rows;
}

/**
 * Screens a query against the stored lists: trigram candidates (from `index` when given and
 * current, else pg_trgm), with `index` also the names one edit per word away (findCandidates'
 * `edits`), then `screen()`.
 */
export async function screenStored(
  em: EntityManager,
  query: AmlQuery,
  lists: readonly AmlList[] = AML_LISTS,
  index?: AmlNameIndex | null,
): Promise<AmlScreening> {
  const candidates = await findCandidates(em, query.fullName, lists, CANDIDATE_LIMIT, index, { edits: true });
  return screen(query, candidates, lists);
}

/** One row of the import log. */
export interface ListImportRecord {
  source_list: AmlList;
  file_format: string;
  /** Entities the import wrote for this list. */
  entity_count: number;
  /** SHA-256 hex of the imported file. */
  checksum: string;
  imported_at: Date;
}

/** The latest import of each list, for operators and monitoring. */
export async function latestImports(em: EntityManager): Promise<ListImportRecord[]> {
  const rows = await em.execute<(Omit<ListImportRecord, 'imported_at'> & { imported_at: string | Date })[]>(
    `select distinct on (source_list) source_list, file_format, entity_count, checksum, imported_at
     from aml_list_import order by source_list, imported_at desc`,
    [],
    'all',
  );
  return rows.map((row) => ({ ...row, entity_count: Number(row.entity_count), imported_at: new Date(row.imported_at) }));
}
