/**
 * Raw SQL: (b) one-off re-sealing of columns named at run time: `for update` batches written back
 * in bulk through `jsonb_to_recordset`, and the callback-secret move as one `insert … select … on
 * conflict do nothing`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PERSONAL_DATA_COLUMNS, SEALED_KEY } from './personal-data.js';
import type { ServiceSecrets } from './secrets.js';

/** A column whose every value is sealed with the master key, and the primary key that finds its row. */
export interface SealedColumn {
  table: string;
  column: string;
  /** Primary-key columns, compared as text. */
  key: readonly string[];
  /** A jsonb column whose sealed value sits under this key of its object (src/auth/personal-data.ts); absent: the text column is the sealed value. */
  jsonKey?: string;
}

/**
 * Every column sealed with the master key. A master key rotation re-wraps all of them in one
 * transaction, so a column missing here would be unreadable after a rotation: anything new that
 * calls `secrets.encrypt(` must be listed (test/foundation/master-key-rotation.test.ts checks
 * the list against the code).
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'signing_key', column: 'private_key_encrypted', key: ['kid'] },
  { table: 'service_token', column: 'token_encrypted', key: ['jti'] },
  { table: 'session_portrait', column: 'embedding_encrypted', key: ['session_id'] },
  { table: 'face_template_key', column: 'sealed_secret', key: ['tenant_id'] },
  { table: 'webhook_destination', column: 'secret_encrypted', key: ['id'] },
  { table: 'callback_secret', column: 'secret_sealed', key: ['tenant_id', 'environment'] },
  { table: 'webhook_delivery', column: 'body', key: ['id'] },
  { table: 'outbox_event', column: 'snapshot', key: ['id'] },
  { table: 'tenant_data_key', column: 'key_sealed', key: ['tenant_id'] },
  { table: 'operator_totp', column: 'secret_sealed', key: ['operator_id'] },
  { table: 'session_search_key', column: 'sealed_secret', key: ['tenant_id'] },
  { table: 'list_entry', column: 'label_sealed', key: ['id'] },
  { table: 'personal_data_key', column: 'key_sealed', key: ['scope'] },
  ...PERSONAL_DATA_COLUMNS.map((column) => ({ ...column, jsonKey: SEALED_KEY })),
];

/** Rows read and rewritten per statement: bounded memory on a large delivery history. */
const BATCH_ROWS = 500;

/** The SQL that identifies a row of `column` by its key as one text value. */
function rowKeyOf(column: SealedColumn, alias = ''): string {
  const prefix = alias ? `${alias}.` : '';
  return column.key.length === 1
    ? `${prefix}${column.key[0]}::text`
    : `concat_ws(E'\\x1f', ${column.key.map((part) => `${prefix}${part}::text`).join(', ')})`;
}

/**
 * Rewrites, batch by batch, every value of `column` that `transform` changes (it returns null to
 * keep a value). Rows are walked in key order after the last key seen, so each is read once.
 */
async function rewriteColumn(
  em: EntityManager,
  column: SealedColumn,
  where: string,
  transform: (value: string) => string | null,
): Promise<number> {
  let after = '';
  let rewritten = 0;
  const value = column.jsonKey ? `${column.column} ->> '${column.jsonKey}'` : column.column;
  const assigned = column.jsonKey ? `jsonb_set(t.${column.column}, '{${column.jsonKey}}', to_jsonb(x.v))` : 'x.v';
  for (;;) {
    const rows = await em.execute<{ k: string; v: string }[]>(
      `select ${rowKeyOf(column)} as k, ${value} as v from ${column.table}
       where ${rowKeyOf(column)} > ? and ${where.replaceAll('$value', value)} order by 1 limit ${BATCH_ROWS} for update`,
      [after],
    );
    if (rows.length === 0) return rewritten;
    after = rows.at(-1)!.k;
    const changed = rows.flatMap((row) => {
      const value = transform(row.v);
      return value === null ? [] : [{ k: row.k, v: value }];
    });
    if (changed.length > 0) {
      await em.execute(
        `update ${column.table} t set ${column.column} = ${assigned}
         from jsonb_to_recordset(?::jsonb) as x(k text, v text) where ${rowKeyOf(column, 't')} = x.k`,
        [JSON.stringify(changed)],
        'run',
      );
      rewritten += changed.length;
    }
  }
}

/**
 * Seals what older versions stored in clear, in one transaction, at every start (a no-op once
 * done): each tenant's plaintext `tenant.callback_secret` becomes its sealed `live` callback
 * secret, and plaintext `webhook_delivery.body` rows are sealed in place. Done by code rather
 * than in the migration because only the running service holds the master key. Readers then
 * accept the sealed form only; two instances starting at once serialise on the row locks.
 */
export async function sealLegacyPlaintext(em: EntityManager, secrets: ServiceSecrets, logger?: Pick<Logger, 'info'>): Promise<void> {
  await em.transactional(async (tx) => {
    const tenants = await tx.execute<{ id: string; callback_secret: string }[]>(
      'select id, callback_secret from tenant where callback_secret is not null for update',
    );
    if (tenants.length > 0) {
      await tx.execute(
        `insert into callback_secret (tenant_id, environment, secret_sealed)
         select x.id, 'live', x.sealed from jsonb_to_recordset(?::jsonb) as x(id uuid, sealed text)
         on conflict (tenant_id, environment) do nothing`,
        [JSON.stringify(tenants.map((tenant) => ({ id: tenant.id, sealed: secrets.encrypt(tenant.callback_secret) })))],
        'run',
      );
      await tx.execute('update tenant set callback_secret = null where callback_secret is not null', [], 'run');
    }
    const bodies = await rewriteColumn(
      tx as EntityManager,
      { table: 'webhook_delivery', column: 'body', key: ['id'] },
      `body not like 'v2.%'`,
      (body) => secrets.encrypt(body),
    );
    if (tenants.length > 0 || bodies > 0)
      logger?.info(
        { callbackSecrets: tenants.length, deliveryBodies: bodies },
        'sealed plaintext secrets and webhook bodies left by an older version',
      );
  });
}

/**
 * Re-wraps every sealed value for a new master key inside `em`'s transaction; returns the count
 * per column. Throws (and so rolls back) when a value does not open under the current key.
 */
export async function rewrapSealedColumns(em: EntityManager, rewrap: (sealed: string) => string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const column of SEALED_COLUMNS)
    counts[`${column.table}.${column.column}`] = await rewriteColumn(em, column, `$value is not null`, (value) => rewrap(value));
  return counts;
}
