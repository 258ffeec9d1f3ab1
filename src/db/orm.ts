import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
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
  /** Called with every SQL statement the ORM runs (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

/** Creates the ORM with every entity and the committed migrations. */
export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(
    defineConfig({
      clientUrl: options.url,
      entities: ALL_ENTITIES,
      extensions: [Migrator],
      pool: { min: 0, max: options.poolMax ?? DB_POOL_MAX },
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
      ...(options.onQuery ? queryListenerOptions(options.onQuery) : { debug: false }),
    }),
  );
}

/** ORM options that report every query to a listener and log nothing. */
function queryListenerOptions(onQuery: (sql: string) => void) {
  return {
    debug: ['query'] as 'query'[],
    loggerFactory: () => ({
      log: () => undefined,
      error: () => undefined,
      warn: () => undefined,
      setDebugMode: () => undefined,
      isEnabled: (namespace: string) => namespace === 'query',
      logQuery: (context: { query: string }) => onQuery(context.query),
    }),
  };
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
