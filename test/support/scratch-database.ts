import pino from 'pino';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createServerDatabase, pgliteTemplate, type ServerDatabase } from './database-template.js';

/** A database no other test file sees, and how to get rid of it. */
export interface ScratchDatabase {
  database: Database;
  /** Closes the database and, on a server, drops it. */
  drop(): Promise<void>;
}

/**
 * Opens a fresh database of this test file's own: in-memory PGlite, or with DATABASE_URL a new
 * database on that server (named `<prefix>_<random>`), for tests that must not share global
 * tables (AML lists) or that run migrations step by step. `migrate` gives an already migrated
 * one (a copy of the run's template, test/support/database-template.ts); without it, it is empty.
 */
export async function openScratchDatabase(prefix: string, options: { migrate: boolean }): Promise<ScratchDatabase> {
  const { DATABASE_URL: serverUrl, ...env } = process.env;
  let server: ServerDatabase | undefined;
  if (serverUrl) server = await createServerDatabase(serverUrl, prefix, { fromTemplate: options.migrate });
  const config = loadConfig({
    ...env,
    ...(server ? { DATABASE_URL: server.url, MASTER_KEY: 'test-master-key-not-for-production-0123456789' } : { PGLITE_DATA_DIR: 'memory' }),
    LOG_LEVEL: 'silent',
  });
  const database = await openDatabase(config, pino({ level: 'silent' }), {
    // The copy is migrated already; the check still runs, so a template behind the code fails loudly.
    migrate: options.migrate,
    pgliteTemplate: options.migrate ? await pgliteTemplate() : undefined,
  });
  return {
    database,
    async drop() {
      await database.close();
      await server?.drop();
    },
  };
}
