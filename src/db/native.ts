import type { Configuration } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** ORMs whose server keeps named prepared statements per connection (a real PostgreSQL server). */
const namedStatementOrms = new WeakSet<Configuration>();

/**
 * Lets hot statements on this ORM's pool be named prepared statements: PostgreSQL then parses and
 * plans them once per connection. Not for embedded PGlite, whose socket connections share one
 * backend session (a second connection preparing the same name would fail).
 */
export function enableNamedStatements(orm: MikroORM): void {
  namedStatementOrms.add(orm.config);
}

/** A pg pool as MikroORM's PostgreSQL driver exposes it. */
interface NativePool {
  query<T>(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: T[] }>;
}

/**
 * Runs one parameterised statement (`$1`, `$2`…) on the pool behind `em`, skipping the ORM's
 * client-side formatting: for the few statements every request makes. `name` makes it a prepared
 * statement where the database allows. Only outside transactions: a transaction's statements must
 * go through its own EntityManager. The ORM's query listener still sees the statement.
 */
export async function hotQuery<T>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  const logger = em.config.getLogger();
  if (logger.isEnabled('query')) logger.logQuery({ query: text, level: 'info' });
  const pool = (await em.getConnection().getNativeClient()) as unknown as NativePool;
  const { rows } = await pool.query<T>(namedStatementOrms.has(em.config) ? { name, text, values } : { text, values });
  return rows;
}
