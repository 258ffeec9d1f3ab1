/**
 * Raw SQL: (b) `set local statement_timeout` and `lock_timeout` around the migrations.
 */
import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { recordStatementSpan } from '../observability/tracing.js';
import type { Logger } from 'pino';
import { ALL_ENTITIES } from '../../entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

/** Connection pool size per process: enough for 50 concurrent requests without starving pg-boss. */
export const DB_POOL_MAX = 16;

/** Options for {@link createOrm}. */
export interface OrmOptions {
  /** PostgreSQL URL (a real server or the embedded socket). */
  url: string;
  /** Largest pool size, in connections. */
  poolMax?: number;
  /** Logs slow queries and errors; silent when absent. */
  logger?: Logger;
  /** Called with every SQL statement the ORM runs (tests count queries with it), and its text with the parameters inlined (tests plan it). */
  onQuery?: (sql: string, formatted?: string) => void;
  /** Server-side statement and lock timeouts of every pooled connection, in milliseconds (0 or absent: none). */
  timeouts?: { statementMs: number; lockMs: number };
}

/** Creates the ORM with every entity and the committed migrations. */
export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(
    defineConfig({
      clientUrl: options.url,
      entities: ALL_ENTITIES,
      extensions: [Migrator],
      pool: { min: 0, max: options.poolMax ?? DB_POOL_MAX },
      // Sent as startup parameters of each connection, so no request waits forever on a lock or a runaway query.
      ...(options.timeouts
        ? { driverOptions: { statement_timeout: options.timeouts.statementMs, lock_timeout: options.timeouts.lockMs } }
        : {}),
      migrations: {
        migrationsList: MIGRATIONS.map((migration) => ({ name: migration.name, class: migration })),
        tableName: 'mikro_orm_migrations',
        transactional: true,
        allOrNothing: true,
        snapshot: false,
        silent: true,
      },
      // Requests fork their own EntityManager; the global one must never hold request state.
      allowGlobalContext: false,
      ...queryLoggerOptions(options.onQuery),
    }),
  );
}

/**
 * ORM options that log nothing, record each statement as a span when traces are exported (MikroORM
 * reports every statement to its logger with its duration, in the caller's async context), and
 * report each to `onQuery` when given (tests count statements with it).
 */
function queryLoggerOptions(onQuery: ((sql: string, formatted?: string) => void) | undefined) {
  return {
    debug: onQuery ? (['query'] as 'query'[]) : false,
    loggerFactory: () => ({
      log: () => undefined,
      error: () => undefined,
      warn: () => undefined,
      setDebugMode: () => undefined,
      isEnabled: (namespace: string) => onQuery !== undefined && namespace === 'query',
      logQuery: (context: { query?: string; formatted?: string; took?: number; level?: string }) => {
        const query = context.query ?? '';
        recordStatementSpan(query, context.took, context.level === 'error');
        onQuery?.(query, context.formatted);
      },
    }),
  };
}

/**
 * Applies every pending migration; returns the names applied. With `liftTimeouts` (connections
 * that carry request timeouts) they run in one transaction with the timeouts lifted, since a
 * migration may rightly run long (an index on a big table). Not on a one-connection pool
 * (embedded PGlite): the migrator's own reads would wait for the transaction's connection.
 */
export async function migrate(orm: MikroORM, options: { liftTimeouts?: boolean } = {}): Promise<string[]> {
  if (!options.liftTimeouts) return (await orm.migrator.up()).map((migration) => migration.name);
  return orm.em.fork().transactional(async (em) => {
    await em.execute('set local statement_timeout = 0');
    await em.execute('set local lock_timeout = 0');
    const applied = await orm.migrator.up({ transaction: em.getTransactionContext() });
    return applied.map((migration) => migration.name);
  });
}
