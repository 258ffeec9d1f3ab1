/**
 * `COPY ... FROM STDIN` inside a MikroORM transaction on a PostgreSQL server (issue 29.5: a
 * million AML entities loaded in a minute). Not on embedded PGlite: its socket does not speak
 * the copy sub-protocol (the connection is closed with "protocol synchronization was lost").
 *
 * Raw SQL: (b) COPY is not an ORM statement.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type ControlledTransaction } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';

/** True when `em` talks to a PostgreSQL server, where copyIn works; false on embedded PGlite. */
export async function supportsCopyIn(em: EntityManager): Promise<boolean> {
  const rows = await em.execute<{ version: string }[]>('select version() as version', [], 'all');
  return !/PGlite|emscripten/i.test(rows[0]?.version ?? 'PGlite');
}

/** One value in COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyText(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (ch) => (ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r'));
}

/** A `text[]` value in COPY's text format: an array literal of quoted elements, then escaped as text. */
export function copyTextArray(values: readonly string[]): string {
  return copyText(`{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
}

/**
 * Runs `copySql` (`copy <table> (<columns>) from stdin`) on the connection of `tx`, which must be
 * inside a transaction, sending `data` (rows in COPY's text format: tab-separated, one a line,
 * values through copyText/copyTextArray); returns the rows written. The statement goes to the
 * transaction's `pg` client through Kysely, which hands any query object with `submit` (pg's
 * Submittable, as pg-copy-streams' stream is) to `client.query` unchanged.
 */
export async function copyIn(tx: EntityManager, copySql: string, data: string): Promise<number> {
  const transaction = tx.getTransactionContext<ControlledTransaction<Record<string, never>>>();
  if (!transaction) throw new Error('copyIn needs a transaction');
  const stream = copyFrom(copySql);
  await transaction.executeQuery(CompiledQuery.raw(stream as unknown as string));
  await pipeline(Readable.from([data]), stream);
  return stream.rowCount;
}
