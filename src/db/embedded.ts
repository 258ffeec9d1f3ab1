import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded PostgreSQL (PGlite in WASM) reachable by ordinary drivers over loopback. */
export interface EmbeddedDatabase {
  /** `postgres://` URL of the loopback socket server. */
  url: string;
  /** Stops the socket server and closes the database, flushing it to disk. */
  close(): Promise<void>;
}

/** Most connections the socket server accepts at once; the pool and pg-boss stay under it. */
export const EMBEDDED_MAX_CONNECTIONS = 32;

/**
 * Starts PGlite with pg_trgm and pgvector and exposes it on a free loopback port, so the same
 * driver code (MikroORM, pg-boss, pg) runs on the embedded database and on a real server.
 * `dataDir` of `memory` keeps everything in memory (tests).
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const inMemory = dataDir === 'memory';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm, vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgres://postgres@${address}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
