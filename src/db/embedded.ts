import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DATA_FILE_MODE, ensurePrivateDirectory, restrictTree } from './private-files.js';

/** A running embedded PostgreSQL (PGlite in WASM) reachable by ordinary drivers over a Unix socket. */
export interface EmbeddedDatabase {
  /** `postgres://` URL of the socket server (its host is the socket's directory, percent-encoded). */
  url: string;
  /** True when another process owns the data directory and we only connect to its socket. */
  shared: boolean;
  /** Stops the socket server and closes the database, flushing it to disk (no-op when shared). */
  close(): Promise<void>;
  /** The data directory as a tarball (PGlite's `dumpDataDir`): tests migrate once and start each file from it. */
  dump(): Promise<Blob>;
}

/** Most connections the socket server accepts at once; the pool and pg-boss stay under it. */
export const EMBEDDED_MAX_CONNECTIONS = 32;

/**
 * Port in the socket's file name. pg clients connect to `<host>/.s.PGSQL.<port>` when the host is
 * a directory, so the URL names this port and the directory.
 */
const SOCKET_PORT = 5432;

/** Lock file inside the data directory: `{pid, url}` of the process that owns it. */
function lockPathOf(dataDir: string): string {
  return join(resolve(dataDir), 'openkyc.lock.json');
}

/** Default directory of the registry of running embedded servers: per user, in the temp directory. */
export function defaultRuntimeDir(): string {
  return join(tmpdir(), `openkyc-${process.getuid?.() ?? 'user'}`);
}

/** A process that owns an embedded data directory, as it registered itself while it runs. */
export interface RunningEmbeddedServer {
  pid: number;
  /** Absolute path of its data directory. */
  dataDir: string;
}

/** The registry folder of running embedded servers under a runtime directory. */
function registryOf(runtimeDir: string): string {
  return join(runtimeDir, 'embedded');
}

/**
 * The live processes registered as owners of an embedded data directory (not this one), so the
 * admin CLI can find the running server's database whatever PGLITE_DATA_DIR it was given. Entries
 * of processes that died are removed.
 */
export function runningEmbeddedServers(runtimeDir: string = defaultRuntimeDir()): RunningEmbeddedServer[] {
  const registry = registryOf(runtimeDir);
  let entries: string[];
  try {
    entries = readdirSync(registry).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const servers: RunningEmbeddedServer[] = [];
  for (const name of entries) {
    const path = join(registry, name);
    try {
      const entry = JSON.parse(readFileSync(path, 'utf8')) as RunningEmbeddedServer;
      if (!isAlive(entry.pid)) rmSync(path, { force: true });
      else if (entry.pid !== process.pid) servers.push({ pid: entry.pid, dataDir: entry.dataDir });
    } catch {
      // A half-written or foreign file: not a server we can name.
    }
  }
  return servers.sort((a, b) => a.pid - b.pid);
}

/** True when the directory already holds an embedded database (PostgreSQL's PG_VERSION file). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(resolve(dataDir), 'PG_VERSION'));
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

/** The URL pg, pg-boss and MikroORM all read as "Unix socket `.s.PGSQL.5432` in `directory`". */
function socketUrl(directory: string): string {
  return `postgres://postgres@${encodeURIComponent(directory)}:${SOCKET_PORT}/postgres?sslmode=disable`;
}

/**
 * Starts PGlite with pg_trgm and pgvector and exposes it on a Unix socket, so the same driver
 * code (MikroORM, pg-boss, pg) runs on the embedded database and on a real server. PGlite answers
 * every startup with "authentication ok", so the socket is the only lock: it lives in a fresh
 * 0700 directory of its own (`mkdtemp`), which only this user (and root) can enter, instead of a
 * loopback TCP port any local process could reach. `dataDir` of `memory` keeps everything in
 * memory (tests). PGlite allows one process per data directory: when a live process already owns
 * it (the server, while the CLI runs), we connect to that process's socket instead of opening the
 * files a second time.
 */
export async function startEmbeddedDatabase(
  dataDir: string,
  options: {
    runtimeDir?: string;
    /** A data-directory dump (PGlite's `dumpDataDir`) an in-memory database starts from instead of an empty one. */
    template?: Blob;
  } = {},
): Promise<EmbeddedDatabase> {
  const inMemory = dataDir === 'memory';
  const lockPath = inMemory ? null : lockPathOf(dataDir);
  if (lockPath) {
    const ownerUrl = liveOwnerUrl(lockPath);
    if (ownerUrl) {
      const dump = () => Promise.reject(new Error('the data directory belongs to another process; dump it there'));
      return { url: ownerUrl, shared: true, close: async () => undefined, dump };
    }
    ensurePrivateDirectory(dataDir);
  }
  // Only an in-memory database starts from a template: a data directory on disk is the operator's own.
  const loadDataDir = inMemory ? options.template : undefined;
  const db = await PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm, vector }, loadDataDir });
  if (!inMemory) restrictTree(dataDir);
  const socketDirectory = mkdtempSync(join(tmpdir(), 'openkyc-pglite-'));
  const server = new PGLiteSocketServer({
    db,
    path: join(socketDirectory, `.s.PGSQL.${SOCKET_PORT}`),
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    rmSync(socketDirectory, { recursive: true, force: true });
    throw error;
  }
  const url = socketUrl(socketDirectory);
  let registration: string | null = null;
  if (lockPath) {
    writeFileSync(lockPath, JSON.stringify({ pid: process.pid, url }), { mode: DATA_FILE_MODE });
    const registry = registryOf(options.runtimeDir ?? defaultRuntimeDir());
    ensurePrivateDirectory(registry);
    registration = join(registry, `${process.pid}.json`);
    const entry: RunningEmbeddedServer = { pid: process.pid, dataDir: resolve(dataDir) };
    writeFileSync(registration, JSON.stringify(entry), { mode: DATA_FILE_MODE });
  }
  return {
    url,
    shared: false,
    dump: () => db.dumpDataDir('none'),
    async close() {
      await server.stop();
      await db.close();
      rmSync(socketDirectory, { recursive: true, force: true });
      if (registration) rmSync(registration, { force: true });
      if (lockPath) {
        rmSync(lockPath, { force: true });
        // Files PGlite created while running came out 0666; tighten them before leaving.
        restrictTree(dataDir);
      }
    },
  };
}
