/**
 * One migrated database per test run, copied for every test file, instead of migrating again in
 * each file (about a hundred migrations took 8-13 s per file on 2 loaded cores; a copy takes 1).
 *
 * - Embedded PGlite: the global setup migrates an in-memory database once and writes PGlite's
 *   `dumpDataDir` tarball to a temporary file; each app or scratch database starts from it
 *   (`loadDataDir`).
 * - PostgreSQL server (DATABASE_URL): the global setup migrates DATABASE_URL's database, which then
 *   only serves as the template; each test file gets `CREATE DATABASE … TEMPLATE` of it
 *   (test/support/database-per-file.ts), so no file sees another's rows, jobs or deliveries.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';

declare module 'vitest' {
  /** What the global setup hands to every test file (vitest `provide` / `inject`). */
  export interface ProvidedContext {
    /** Path of the migrated PGlite dump, or null when the run uses a PostgreSQL server. */
    pgliteTemplatePath: string | null;
    /** URL of the migrated template database on the PostgreSQL server, or null on PGlite. */
    serverTemplateUrl: string | null;
  }
}

let pgliteTemplateLoad: Promise<Blob | undefined> | undefined;

/**
 * What the global setup provided, or null in a process vitest did not start (a child process a
 * test spawns, such as test/foundation/two-apps-process.ts): there `inject` has no worker to ask.
 */
function provided<K extends 'pgliteTemplatePath' | 'serverTemplateUrl'>(key: K): string | null {
  try {
    return inject(key) ?? null;
  } catch {
    return null;
  }
}

/** The migrated PGlite dump this run's global setup wrote, read once per test file (undefined on a server run). */
export function pgliteTemplate(): Promise<Blob | undefined> {
  pgliteTemplateLoad ??= (async () => {
    const path = provided('pgliteTemplatePath');
    return path ? new Blob([await readFile(path)]) : undefined;
  })();
  return pgliteTemplateLoad;
}

/** A database of its own on the PostgreSQL server, and how to get rid of it. */
export interface ServerDatabase {
  url: string;
  /** Drops it, disconnecting whoever is still connected. */
  drop(): Promise<void>;
}

/**
 * Creates `<prefix>_<random>` on the server of `serverUrl`: a copy of the run's migrated template
 * when `fromTemplate`, else empty (tests that run migrations step by step).
 */
export async function createServerDatabase(serverUrl: string, prefix: string, options: { fromTemplate: boolean }): Promise<ServerDatabase> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const template = options.fromTemplate ? provided('serverTemplateUrl') : null;
  if (options.fromTemplate && !template) throw new Error('no migrated template: the global setup runs only with DATABASE_URL set');
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const source = template ? ` template ${pg.escapeIdentifier(new URL(template).pathname.slice(1))}` : '';
    await client.query(`create database ${pg.escapeIdentifier(name)}${source}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: admin.toString() });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
