import type { EntityManager } from '@mikro-orm/postgresql';

/** A pooled pg client as MikroORM's PostgreSQL driver hands it out. */
interface NativeClient {
  query<T>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }>;
  release(error?: Error): void;
}

/** A pg pool as MikroORM's PostgreSQL driver exposes it. */
interface NativePool {
  connect(): Promise<NativeClient>;
}

/**
 * A number per pooled client, made part of statement names with the process id: embedded
 * PGlite's socket connections share one backend session, so neither a client that replaces a
 * closed one nor another process (the CLI) may prepare a name already prepared there. On a server
 * each connection has its own names anyway.
 */
const clientNumbers = new WeakMap<NativeClient, number>();
let nextClientNumber = 0;

/** The number of a pooled client, assigned on first use. */
function clientNumberOf(client: NativeClient): number {
  let number = clientNumbers.get(client);
  if (number === undefined) {
    number = nextClientNumber++;
    clientNumbers.set(client, number);
  }
  return number;
}

/**
 * Runs one parameterised statement (`$1`, `$2`…) on the pool behind `em` as a named prepared
 * statement, skipping the ORM's client-side formatting: PostgreSQL parses and plans it once per
 * connection. For the few statements every request makes. Only outside transactions: a
 * transaction's statements must go through its own EntityManager. The ORM's query listener still
 * sees the statement.
 */
export async function hotQuery<T>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  const logger = em.config.getLogger();
  if (logger.isEnabled('query')) logger.logQuery({ query: text, level: 'info' });
  const pool = (await em.getConnection().getNativeClient()) as unknown as NativePool;
  const client = await pool.connect();
  try {
    const { rows } = await client.query<T>({ name: `${name}_${process.pid}_${clientNumberOf(client)}`, text, values });
    client.release();
    return rows;
  } catch (error) {
    // An error the server answered with leaves the connection usable; anything else (a broken
    // socket) destroys the client instead of returning it to the pool.
    const answeredByServer = typeof (error as { severity?: unknown }).severity === 'string';
    client.release(answeredByServer ? undefined : (error as Error));
    throw error;
  }
}
