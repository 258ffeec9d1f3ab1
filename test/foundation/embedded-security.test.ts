import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PG_MODULE = join(ROOT, 'node_modules/pg');
/** An unprivileged account to connect as: the socket must refuse it. */
const NOBODY_UID = 65534;

/** Starts the service on an on-disk embedded database in `dataDir`, with no MASTER_KEY and no DATABASE_URL. */
function startOnDisk(dataDir: string): Promise<TestApp> {
  return startTestApp({ PGLITE_DATA_DIR: dataDir, MASTER_KEY: '', DATABASE_URL: '', MIGRATE_ON_START: 'true' });
}

/** Octal permission bits of a path. */
function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** Every entry under a directory with its permission bits. */
function modesUnder(directory: string): { path: string; directory: boolean; mode: number }[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return [];
    const own = { path, directory: stats.isDirectory(), mode: stats.mode & 0o777 };
    return stats.isDirectory() ? [own, ...modesUnder(path)] : [own];
  });
}

/** Connects with a real `pg` client from a child process running as `uid`; resolves with `connected` or the error code. */
function connectAs(uid: number, url: string): Promise<string> {
  const script = `const pg = require(${JSON.stringify(PG_MODULE)});
    const client = new pg.Client({ connectionString: ${JSON.stringify(url)} });
    client.connect().then(() => client.query('select count(*) from tenant')).then(
      () => { console.log('connected'); process.exit(0); },
      (error) => { console.log(error.code ?? error.message); process.exit(0); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { uid, gid: uid, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(output.trim()));
  });
}

/** An on-disk first start (initdb and every migration) takes tens of seconds on a loaded machine. */
const ON_DISK_START_MS = 180_000;

const parent = mkdtempSync(join(tmpdir(), 'embedded-security-'));
const dataDir = join(parent, 'pglite');
let testApp: TestApp | undefined;

beforeAll(async () => {
  testApp = await startOnDisk(dataDir);
}, ON_DISK_START_MS);
afterAll(async () => {
  await testApp?.close();
});

describe('embedded database security', () => {
  it('given a fresh data directory, when the service has started, then the directory is 0700, its files 0600, the master key inside it, and the database only on a private Unix socket', () => {
    expect(modeOf(dataDir)).toBe(0o700);
    const entries = modesUnder(dataDir);
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.filter((entry) => entry.mode !== (entry.directory ? 0o700 : 0o600))).toEqual([]);
    expect(modeOf(join(dataDir, 'master.key'))).toBe(0o600);
    expect(existsSync(join(parent, 'master.key'))).toBe(false);
    const url = new URL(testApp!.app.database.url);
    const socketDirectory = decodeURIComponent(url.hostname);
    expect(socketDirectory.startsWith('/')).toBe(true);
    expect(modeOf(socketDirectory)).toBe(0o700);
    expect(statSync(socketDirectory).uid).toBe(process.getuid!());
  });

  it('given the running database, when the owner connects with pg, then it is served', async () => {
    const client = new pg.Client({ connectionString: testApp!.app.database.url });
    await client.connect();
    const { rows } = await client.query<{ one: number }>('select 1 as one');
    await client.end();
    expect(rows).toEqual([{ one: 1 }]);
  });

  it.runIf(process.getuid?.() === 0)(
    'given the running database, when another local user connects with pg, then the socket refuses it',
    async () => {
      const refused = await connectAs(NOBODY_UID, testApp!.app.database.url);
      expect(refused).toBe('EACCES');
    },
  );

  it(
    'given the running server, when the admin CLI runs on the same data directory, then it reaches the database through the server socket',
    async () => {
      const tenant = await testApp!.tenant('cli-visible');
      const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), ['src/bin/cli.ts', 'callback-secret', tenant.id], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', MASTER_KEY: '', PGLITE_DATA_DIR: dataDir, NODE_NO_WARNINGS: '1' },
      });
      const secrets = JSON.parse(stdout) as { live: string; sandbox: string };
      expect(secrets.live).toMatch(/^whsec_/);
      expect(secrets.sandbox).toMatch(/^whsec_/);
      expect(secrets.live).not.toBe(secrets.sandbox);
    },
    ON_DISK_START_MS,
  );

  it(
    'given a master key readable by others, when the service starts, then it refuses, naming the file and the chmod that fixes it',
    async () => {
      await testApp!.close();
      testApp = undefined;
      const keyPath = join(dataDir, 'master.key');
      chmodSync(keyPath, 0o644);

      await expect(startOnDisk(dataDir)).rejects.toThrow(`chmod 600 ${keyPath}`);

      chmodSync(keyPath, 0o600);
    },
    ON_DISK_START_MS,
  );

  it(
    'given an installation whose key sits in the parent directory (old layout), when the service starts, then the key is moved inside and the data still opens',
    async () => {
      const keyPath = join(dataDir, 'master.key');
      const key = readFileSync(keyPath, 'utf8');
      renameSync(keyPath, join(parent, 'master.key'));

      testApp = await startOnDisk(dataDir);

      expect(readFileSync(keyPath, 'utf8')).toBe(key);
      expect(modeOf(keyPath)).toBe(0o600);
      expect(existsSync(join(parent, 'master.key'))).toBe(false);
      // The signing key was sealed under that key at the first start; the JWKS needs it opened.
      const jwks = await testApp.rest('GET', '/.well-known/jwks.json');
      expect(jwks.status).toBe(200);
    },
    ON_DISK_START_MS,
  );

  it(
    'given a stray master.key beside a NEW data directory, when the service starts, then the key is not adopted',
    async () => {
      const freshParent = mkdtempSync(join(tmpdir(), 'embedded-stray-'));
      const planted = 'planted-key-planted-key-planted-key-0123456789';
      writeFileSync(join(freshParent, 'master.key'), planted, { mode: 0o600 });
      const fresh = await startOnDisk(join(freshParent, 'pglite'));
      try {
        expect(readFileSync(join(freshParent, 'pglite', 'master.key'), 'utf8').trim()).not.toBe(planted);
        expect(readFileSync(join(freshParent, 'master.key'), 'utf8')).toBe(planted);
        expect(dirname(join(freshParent, 'pglite', 'master.key'))).toBe(join(freshParent, 'pglite'));
      } finally {
        await fresh.close();
      }
    },
    ON_DISK_START_MS,
  );
});
