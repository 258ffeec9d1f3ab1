/**
 * Personal data at rest (audit N11; docs/security.md "Personal data at rest"): the one module that
 * seals and opens what names, dates of birth, document numbers, addresses and phone numbers the
 * service stores, and makes the keyed digests that stand in for them where SQL needs equality.
 *
 * - **JSON documents** (`session_node_result.details`, `session.expected_details`,
 *   `session.contact_details`, `check_run.result`) are sealed whole with the master key's envelope
 *   (`ServiceSecrets.encrypt`, `v2.`) under the key {@link SEALED_KEY}; beside it, in clear, only
 *   the few fields SQL reads and that name nobody ({@link CLEAR_FIELDS}: result codes, document
 *   type, countries). Whole documents rather than chosen fields: a new field an engine adds is
 *   sealed by default, readers get back exactly what was written (same keys, same order), and
 *   no reader needs to know which fields are personal.
 * - Entities read and write them through `SealedJsonType` (entities/sealed-json.type.ts), so ORM code sees plain objects;
 *   raw SQL goes through {@link openPersonalData} and {@link sealPersonalData}.
 * - **Equality without the value**: {@link phoneDigest} is an HMAC-SHA256 under a random
 *   service-wide key (the per-number SMS limit spans tenants) kept sealed in `personal_data_key`,
 *   so a master key rotation re-wraps it and the digests stay valid.
 *
 * The secrets of an ORM are bound once per process and ORM ({@link bindPersonalDataSealing}): a
 * custom type is shared by every ORM of the process, each with its own platform object.
 *
 * Raw SQL: (b) the per-row key's get-or-create (`insert … on conflict do nothing returning` in a
 * CTE), an `exists` over a table named at run time, and the one-off re-sealing: `for update`
 * batches over tables and columns named at run time, written back in bulk through
 * `jsonb_to_recordset`.
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Platform } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { bindSealedJsonCodec, SEALED_KEY, sealedJsonCodecOf } from '../../entities/sealed-json.type.js';
import type { ServiceSecrets } from './secrets.js';

export { SEALED_KEY };

/**
 * Fields kept in clear beside the sealed document, and nothing else: what SQL reads (assignment
 * rules by country, src/operators/workload.service.ts) and what says how a check ended. None of
 * them names a person; a country alone identifies nobody.
 */
const CLEAR_FIELDS: Record<string, true | readonly string[]> = {
  result_code: true,
  status: true,
  document_type: true,
  issuing_country: true,
  country: true,
  subject: ['country'],
};

/** Sealed forms remembered per secrets, by plaintext JSON: the ORM compares stored values, so unchanged content must seal to the same string. */
const SEALED_FORM_CACHE_SIZE = 2048;

/** What one ORM's sealing needs: its secrets, and the stored forms it made or opened lately, both ways. */
interface Sealing {
  secrets: ServiceSecrets;
  /** Plaintext JSON → stored JSON text. */
  storedForms: Map<string, string>;
  /** Sealed ciphertext → plaintext JSON: a document read again (a session polled, a decision built after a step) is not decrypted again. */
  plainForms: Map<string, string>;
}

const sealingBySecrets = new WeakMap<ServiceSecrets, Sealing>();

/** The sealing of one app's secrets (one per secrets object, whichever ORM uses it). */
function sealingOf(secrets: ServiceSecrets): Sealing {
  let sealing = sealingBySecrets.get(secrets);
  if (!sealing) sealingBySecrets.set(secrets, (sealing = { secrets, storedForms: new Map(), plainForms: new Map() }));
  return sealing;
}

/** Binds an ORM to the secrets its personal data is sealed with; call once after the ORM is made, before any entity is read or written. */
export function bindPersonalDataSealing(orm: { em: { getPlatform(): Platform } }, secrets: ServiceSecrets): void {
  const sealing = sealingOf(secrets);
  bindSealedJsonCodec(orm.em.getPlatform(), {
    seal: (document) => storedText(sealing, document),
    open: (stored) => opened(sealing, stored),
  });
}

/** Puts `key → value` in a bounded map, the least recently put going first. */
function put(forms: Map<string, string>, key: string, value: string): void {
  forms.delete(key);
  forms.set(key, value);
  if (forms.size > SEALED_FORM_CACHE_SIZE) forms.delete(forms.keys().next().value!);
}

/** Remembers a plaintext document and its stored form, both ways (`ciphertext`: its sealed value, when it has one). */
function remember(sealing: Sealing, plaintext: string, stored: string, ciphertext: string | null): void {
  put(sealing.storedForms, plaintext, stored);
  if (ciphertext !== null) put(sealing.plainForms, ciphertext, plaintext);
}

/** True for a JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The clear part of a document: {@link CLEAR_FIELDS} only. */
function clearPart(document: Record<string, unknown>): Record<string, unknown> {
  const clear: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(CLEAR_FIELDS)) {
    const value = document[key];
    if (value === undefined) continue;
    if (rule === true) {
      if (!isObject(value) && !Array.isArray(value)) clear[key] = value;
    } else if (isObject(value)) {
      const nested = Object.fromEntries(rule.filter((field) => typeof value[field] === 'string').map((field) => [field, value[field]]));
      if (Object.keys(nested).length > 0) clear[key] = nested;
    }
  }
  return clear;
}

/** True when every field of the document is one kept in clear anyway (nothing to seal: `{}` of a pending step). */
function allClear(document: Record<string, unknown>): boolean {
  return JSON.stringify(clearPart(document)) === JSON.stringify(document);
}

/** True when a stored value is in the sealed form. */
export function isSealedDocument(value: unknown): value is Record<string, unknown> & { [SEALED_KEY]: string } {
  return isObject(value) && typeof value[SEALED_KEY] === 'string';
}

/** The stored JSON text of a document: sealed, or as is when nothing in it is personal. */
function storedText(sealing: Sealing, document: Record<string, unknown>): string {
  const plaintext = JSON.stringify(document);
  const known = sealing.storedForms.get(plaintext);
  if (known !== undefined) return known;
  const ciphertext = allClear(document) ? null : sealing.secrets.encrypt(plaintext);
  const stored = ciphertext === null ? plaintext : JSON.stringify({ ...clearPart(document), [SEALED_KEY]: ciphertext });
  remember(sealing, plaintext, stored, ciphertext);
  return stored;
}

/** The plain document of a stored value (sealed or not); remembers its stored form so an unchanged document is not written again. */
function opened(sealing: Sealing, stored: unknown): unknown {
  const value = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  if (!isSealedDocument(value)) return value;
  const ciphertext = value[SEALED_KEY];
  let plaintext = sealing.plainForms.get(ciphertext);
  if (plaintext === undefined) {
    plaintext = sealing.secrets.decrypt(ciphertext);
    remember(sealing, plaintext, JSON.stringify(value), ciphertext);
  }
  return JSON.parse(plaintext) as unknown;
}

/** Opens a personal-data JSON value read by raw SQL (sealed or from before sealing); null stays null. */
export function openPersonalData<T = Record<string, unknown>>(em: EntityManager, stored: unknown): T {
  if (stored == null) return stored as T;
  return sealedJsonCodecOf(em.getPlatform()).open(stored) as T;
}

/** The stored form of a personal-data document for a raw SQL write (JSON.stringify it for `?::jsonb`); null stays null. */
export function sealPersonalData(em: EntityManager, document: object | null | undefined): Record<string, unknown> | null {
  if (document == null) return null;
  return JSON.parse(sealedJsonCodecOf(em.getPlatform()).seal(document as Record<string, unknown>)) as Record<string, unknown>;
}

/** Random bytes of a digest key (256 bits). */
const DIGEST_KEY_BYTES = 32;
/** Unsealed digest keys, per secrets and table:id; they never change once made. */
const digestKeys = new WeakMap<ServiceSecrets, Map<string, KeyObject>>();

/** A table of sealed random keys: one row per owner, the key sealed by the master key (listed in SEALED_COLUMNS). */
export interface SealedKeyTable {
  table: string;
  /** The owner's column (primary key). */
  idColumn: string;
  /** The sealed key's column. */
  keyColumn: string;
}

/** `personal_data_key`: the keys of the personal-data digests, by scope (`service`). */
const PERSONAL_DATA_KEYS: SealedKeyTable = { table: 'personal_data_key', idColumn: 'scope', keyColumn: 'key_sealed' };

/**
 * A random 256-bit key kept sealed in `table` for `id`, made on first use (race-safe: one insert
 * wins, every caller reads the winner's), unsealed and cached for the life of the process. For
 * keyed digests that must stay valid across master key rotations (a rotation re-wraps the row).
 *
 * Two cases need care. When another transaction inserts the row between this statement's snapshot
 * and its insert, the insert does nothing and the snapshot does not show the winner's row: a second
 * statement (a new snapshot, READ COMMITTED) reads it. And a key this transaction made itself is not
 * cached until it is seen committed, so a rollback cannot leave the process digesting with a key no
 * other process will ever read.
 */
export async function sealedRandomKey(em: EntityManager, secrets: ServiceSecrets, table: SealedKeyTable, id: string): Promise<KeyObject> {
  let cache = digestKeys.get(secrets);
  if (!cache) digestKeys.set(secrets, (cache = new Map()));
  const cacheKey = `${table.table}:${id}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const { table: name, idColumn, keyColumn } = table;
  // `ours`: the row is this transaction's own, not yet committed (made now or earlier in it).
  const ours = `xmin = pg_current_xact_id_if_assigned()::xid`;
  let [row] = await em.execute<{ sealed: string; ours: boolean }[]>(
    `with made as (
       insert into ${name} (${idColumn}, ${keyColumn}) values (?, ?) on conflict (${idColumn}) do nothing returning ${keyColumn} as sealed
     )
     select sealed, true as ours from made
     union all select ${keyColumn} as sealed, coalesce(${ours}, false) as ours from ${name} where ${idColumn} = ?`,
    [id, secrets.encrypt(randomBytes(DIGEST_KEY_BYTES).toString('base64url')), id],
    'all',
  );
  row ??= (
    await em.execute<{ sealed: string; ours: boolean }[]>(
      `select ${keyColumn} as sealed, coalesce(${ours}, false) as ours from ${name} where ${idColumn} = ?`,
      [id],
      'all',
    )
  )[0];
  if (!row) throw new Error(`the key of ${cacheKey} could not be made`);
  const key = createSecretKey(Buffer.from(secrets.decrypt(row.sealed), 'base64url'));
  if (!row.ours) cache.set(cacheKey, key);
  return key;
}

/** A digest key of `personal_data_key`. */
function digestKey(em: EntityManager, secrets: ServiceSecrets, scope: string): Promise<KeyObject> {
  return sealedRandomKey(em, secrets, PERSONAL_DATA_KEYS, scope);
}

/**
 * Keyed digest (HMAC-SHA256, base64url) of an E.164 number: what `phone_otp` keeps instead of
 * the number, to count codes per number across sessions and tenants. Service-wide key, because
 * the per-number limit spans tenants.
 */
export async function phoneDigest(em: EntityManager, secrets: ServiceSecrets, phone: string): Promise<string> {
  return createHmac('sha256', await digestKey(em, secrets, 'service'))
    .update(`phone\0${phone}`)
    .digest('base64url');
}

/** A JSON column of personal data and the key that walks its rows. */
export interface PersonalDataColumn {
  table: string;
  column: string;
  /** Primary-key columns, compared as text. */
  key: readonly string[];
}

/** Every JSON column sealed by this module (master key rotation re-wraps them, src/auth/sealed-columns.ts). */
export const PERSONAL_DATA_COLUMNS: readonly PersonalDataColumn[] = [
  { table: 'session_node_result', column: 'details', key: ['session_id', 'node_type'] },
  { table: 'session', column: 'expected_details', key: ['id'] },
  { table: 'session', column: 'contact_details', key: ['id'] },
  { table: 'check_run', column: 'result', key: ['id'] },
];

/** Rows sealed per transaction: bounded memory and short locks on a large history. */
const LEGACY_BATCH_ROWS = 500;

/** The condition of a document still in clear: the predicate of its partial index (migration H30UnsealedProbe). */
function unsealedSql(column: string): string {
  return `${column} is not null and jsonb_typeof(${column}) = 'object' and ${column} -> '${SEALED_KEY}' is null and ${column} <> '{}'::jsonb`;
}

/** Whether any row of `table` matches `condition`: one probe of a partial index that is empty once all is sealed. */
async function anyUnsealed(em: EntityManager, table: string, condition: string): Promise<boolean> {
  const [row] = await em.execute<{ found: boolean }[]>(`select exists (select 1 from ${table} where ${condition}) as found`);
  return Boolean(row?.found);
}

/** The SQL that identifies a row by its key as one text value. */
function rowKeySql(key: readonly string[]): string {
  return key.length === 1 ? `${key[0]}::text` : `concat_ws(E'\\x1f', ${key.map((part) => `${part}::text`).join(', ')})`;
}

/**
 * Seals the personal data older versions stored in clear: every document of
 * {@link PERSONAL_DATA_COLUMNS} without {@link SEALED_KEY}, and every `phone_otp.phone`
 * (replaced by its digest). Batches of {@link LEGACY_BATCH_ROWS} rows, each in its own
 * transaction, walked in key order; idempotent (a sealed row is never selected again), so an
 * interrupted run resumes and two instances starting at once only repeat each other's work.
 * Done in code at start rather than in the migration, as only the running service holds the key.
 * Returns the rows sealed per column; `batchRows` is for tests.
 */
export async function sealLegacyPersonalData(
  em: EntityManager,
  secrets: ServiceSecrets,
  logger?: Pick<Logger, 'info'>,
  batchRows = LEGACY_BATCH_ROWS,
): Promise<Record<string, number>> {
  const sealing = sealingOf(secrets);
  // The digest key is made here, at start and committed on its own, so requests find it made
  // (`sealedRandomKey` copes with a first use inside a request too).
  await digestKey(em, secrets, 'service');
  const counts: Record<string, number> = {};
  for (const column of PERSONAL_DATA_COLUMNS) {
    counts[`${column.table}.${column.column}`] = 0;
    // Every start asks; once sealed the answer comes from an empty partial index (migration H30UnsealedProbe).
    if (!(await anyUnsealed(em, `${column.table}`, unsealedSql(column.column)))) continue;
    const rowKey = rowKeySql(column.key);
    let after = '';
    let sealed = 0;
    for (;;) {
      const batch = await em.transactional(async (tx) => {
        const rows = await tx.execute<{ k: string; v: unknown }[]>(
          `select ${rowKey} as k, ${column.column} as v from ${column.table}
            where ${rowKey} > ? and ${unsealedSql(column.column)}
            order by 1 limit ? for update`,
          [after, batchRows],
        );
        const changed = rows.flatMap((row) => {
          const document = (typeof row.v === 'string' ? JSON.parse(row.v) : row.v) as Record<string, unknown>;
          const stored = storedText(sealing, document);
          return stored === JSON.stringify(document) ? [] : [{ k: row.k, v: stored }];
        });
        if (changed.length > 0)
          await tx.execute(
            `update ${column.table} t set ${column.column} = x.v::jsonb
               from jsonb_to_recordset(?::jsonb) as x(k text, v text) where ${rowKeySql(column.key.map((part) => `t.${part}`))} = x.k`,
            [JSON.stringify(changed)],
            'run',
          );
        return { last: rows.at(-1)?.k, changed: changed.length };
      });
      if (batch.last === undefined) break;
      after = batch.last;
      sealed += batch.changed;
    }
    counts[`${column.table}.${column.column}`] = sealed;
  }
  let phones = 0;
  const phonesLeft = await anyUnsealed(em, 'phone_otp', 'phone is not null');
  while (phonesLeft) {
    const done = await em.transactional(async (tx) => {
      const rows = await tx.execute<{ id: string; phone: string }[]>(
        `select id, phone from phone_otp where phone is not null order by id limit ? for update`,
        [batchRows],
      );
      if (rows.length === 0) return 0;
      const digests = await Promise.all(
        rows.map(async (row) => ({ id: row.id, d: await phoneDigest(tx as EntityManager, secrets, row.phone) })),
      );
      await tx.execute(
        `update phone_otp t set phone_digest = x.d, phone = null from jsonb_to_recordset(?::jsonb) as x(id uuid, d text) where t.id = x.id`,
        [JSON.stringify(digests)],
        'run',
      );
      return rows.length;
    });
    if (done === 0) break;
    phones += done;
  }
  counts['phone_otp.phone'] = phones;
  if (Object.values(counts).some((count) => count > 0)) logger?.info(counts, 'sealed personal data left in clear by an older version');
  return counts;
}
