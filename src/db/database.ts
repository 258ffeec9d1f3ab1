import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';
import { createOrm, migrate } from './orm.js';

/** An open database: the ORM, the URL other clients (pg-boss) connect to, and how to close it all. */
export interface Database {
  orm: MikroORM;
  url: string;
  /** True when running on embedded PGlite. */
  embedded: boolean;
  /** True when another process (a running server) owns the embedded database and we reach it through its socket. */
  sharedEmbedded: boolean;
  close(): Promise<void>;
}

/** Opens the configured database: `DATABASE_URL` when set, embedded PGlite otherwise; migrates when asked. */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: {
    migrate?: boolean;
    onQuery?: (sql: string, formatted?: string) => void;
    /**
     * A PGlite `dumpDataDir` of an already migrated database: an in-memory embedded database
     * starts from it, so tests migrate once per run instead of once per file (ignored on a server).
     */
    pgliteTemplate?: Blob;
  } = {},
): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedDatabase(config.PGLITE_DATA_DIR, { runtimeDir: config.RUNTIME_DIR, template: options.pgliteTemplate });
    url = embedded.url;
    logger.info({ dataDir: config.PGLITE_DATA_DIR }, 'embedded PostgreSQL (PGlite) started');
  }
  // PGlite runs one statement at a time and its socket interleaves the extended-protocol messages
  // of concurrent connections (seen: "unnamed prepared statement does not exist"), so embedded
  // mode funnels everything (ORM and jobs) through one connection.
  // PGlite runs one transaction at a time in one backend: no lock waits to bound, and its shared
  // session would carry the settings to every client. The timeouts are for a PostgreSQL server.
  const timeouts = embedded ? undefined : { statementMs: config.DB_STATEMENT_TIMEOUT_MS, lockMs: config.DB_LOCK_TIMEOUT_MS };
  const orm = await createOrm({ url, logger, onQuery: options.onQuery, poolMax: embedded ? 1 : undefined, timeouts });
  try {
    if (options.migrate ?? config.MIGRATE_ON_START) {
      const applied = await migrate(orm, { liftTimeouts: timeouts !== undefined });
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
  } catch (error) {
    await orm.close(true);
    await embedded?.close();
    throw error;
  }
  return {
    orm,
    url,
    embedded: embedded !== undefined,
    sharedEmbedded: embedded?.shared ?? false,
    async close() {
      await orm.close(true);
      await embedded?.close();
    },
  };
}
