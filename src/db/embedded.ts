import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded PostgreSQL (PGlite in WASM) reachable by ordinary drivers over loopback. */
export interface EmbeddedDatabase {
  /** `postgres://` URL of the loopback socket server. */
  url: string;
  /** True when another process owns the data directory and we only connect to its socket. */
  shared: boolean;
  /** Stops the socket server and closes the database, flushing it to disk (no-op when shared). */
  close(): Promise<void>;
}

/** Most connections the socket server accepts at once; the pool and pg-boss stay under it. */
export const EMBEDDED_MAX_CONNECTIONS = 32;

/** Lock file beside the data directory: `{pid, url}` of the process that owns it. */
function lockPathOf(dataDir: string): string {
  const absolute = resolve(dataDir);
  return join(dirname(absolute), `${absolute.split(/[\\/]/).pop()}.lock.json`);
}

/** True when a process with this pid is alive. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The URL of a live owner of the data directory, if there is one. */
function liveOwnerUrl(lockPath: string): string | null {
  try {
    const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number; url: string };
    return lock.pid !== process.pid && isAlive(lock.pid) ? lock.url : null;
  } catch {
    return null;
  }
}

/**
 * Starts PGlite with pg_trgm and pgvector and exposes it on a free loopback port, so the same
 * driver code (MikroORM, pg-boss, pg) runs on the embedded database and on a real server.
 * `dataDir` of `memory` keeps everything in memory (tests). PGlite allows one process per data
 * directory: when a live process already owns it (the server, while the CLI runs), we connect to
 * that process's socket instead of opening the files a second time.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const inMemory = dataDir === 'memory';
  const lockPath = inMemory ? null : lockPathOf(dataDir);
  if (lockPath) {
    const ownerUrl = liveOwnerUrl(lockPath);
    if (ownerUrl) return { url: ownerUrl, shared: true, close: async () => undefined };
    mkdirSync(dataDir, { recursive: true });
  }
  const db = await PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm, vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  if (lockPath) writeFileSync(lockPath, JSON.stringify({ pid: process.pid, url }));
  return {
    url,
    shared: false,
    async close() {
      await server.stop();
      await db.close();
      if (lockPath) rmSync(lockPath, { force: true });
    },
  };
}
