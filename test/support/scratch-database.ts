import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';

/** A database no other test file sees, and how to get rid of it. */
export interface ScratchDatabase {
  database: Database;
  /** Closes the database and, on a server, drops it. */
  drop(): Promise<void>;
}

/**
 * Opens a fresh database of this test file's own: in-memory PGlite, or with DATABASE_URL a new
 * database on that server (named `<prefix>_<random>`), for tests that must not share global
 * tables (AML lists) or that run migrations step by step. `migrate` runs every migration first.
 */
export async function openScratchDatabase(prefix: string, options: { migrate: boolean }): Promise<ScratchDatabase> {
  const { DATABASE_URL: serverUrl, ...env } = process.env;
  let url: string | undefined;
  let admin: string | undefined;
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  if (serverUrl) {
    const adminUrl = new URL(serverUrl);
    adminUrl.pathname = '/postgres';
    admin = adminUrl.toString();
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const target = new URL(serverUrl);
    target.pathname = `/${name}`;
    url = target.toString();
  }
  const config = loadConfig({
    ...env,
    ...(url ? { DATABASE_URL: url, MASTER_KEY: 'test-master-key-not-for-production-0123456789' } : { PGLITE_DATA_DIR: 'memory' }),
    LOG_LEVEL: 'silent',
  });
  const database = await openDatabase(config, pino({ level: 'silent' }), { migrate: options.migrate });
  return {
    database,
    async drop() {
      await database.close();
      if (!admin) return;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
