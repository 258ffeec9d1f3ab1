/**
 * A database of a bench's own on the PostgreSQL server of DATABASE_URL, so a bench that seeds a
 * million rows never fills (or reads) a database something else uses, and leaves nothing behind.
 */
import pg from 'pg';

/** A scratch database: its URL, and how to drop it. */
export interface BenchScratchDatabase {
  url: string;
  /** Drops it, closing any connection left to it. */
  drop(): Promise<void>;
}

/** Runs one statement on the server's maintenance connection of `serverUrl`. */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Creates `<prefix>_<pid>` on the server of `serverUrl`. */
export async function createBenchDatabase(serverUrl: string, prefix: string): Promise<BenchScratchDatabase> {
  const name = `${prefix}_${process.pid}`;
  await onServer(serverUrl, `create database ${pg.escapeIdentifier(name)}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`),
  };
}
