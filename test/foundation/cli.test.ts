/**
 * The admin CLI never surprises (issue 17): it says which database it uses, finds the running
 * server's embedded database whatever PGLITE_DATA_DIR it was given, refuses to create an empty one
 * unless asked, and a key it issues is one the running server accepts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** An on-disk first start (initdb and every migration) takes tens of seconds on a loaded machine. */
const ON_DISK_START_MS = 180_000;
/** A CLI run is a fresh tsx process: compile, open the database, run, close. */
const CLI_RUN_MS = 120_000;

/** What a CLI run printed and how it ended. */
interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run cli -- …` as its own process with the given environment on top of this one's. */
function cli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['src/bin/cli.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', MASTER_KEY: '', NODE_NO_WARNINGS: '1', LOG_LEVEL: 'warn', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const parent = mkdtempSync(join(tmpdir(), 'cli-test-'));
const serverDataDir = join(parent, 'server-data');
const runtimeDir = join(parent, 'runtime');
let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp({
    PGLITE_DATA_DIR: serverDataDir,
    RUNTIME_DIR: runtimeDir,
    MASTER_KEY: '',
    DATABASE_URL: '',
    MIGRATE_ON_START: 'true',
  });
}, ON_DISK_START_MS);
afterAll(async () => {
  await testApp?.close();
});

describe('admin CLI: which database', () => {
  it(
    'given a running server on another data directory, when the CLI is run with an empty PGLITE_DATA_DIR, then it says so, uses the server database, creates nothing, and the key it issues works on the server',
    async () => {
      const emptyDir = join(parent, 'empty');
      const env = { PGLITE_DATA_DIR: emptyDir, RUNTIME_DIR: runtimeDir };
      const created = await cli(['tenant:create', 'CLI Corp'], env);
      expect(created.code).toBe(0);
      expect(created.stderr).toContain(`PGLITE_DATA_DIR=${emptyDir} holds no database; using the running server's`);
      expect(created.stderr).toContain(`Database: embedded PGlite in ${serverDataDir}, through the running server's socket`);
      const tenantId = JSON.parse(created.stdout).tenant_id as string;

      const issued = await cli(['key:issue', tenantId, '--env', 'live'], env);
      expect(issued.code).toBe(0);
      const apiKey = JSON.parse(issued.stdout).api_key as string;
      const workflows = await testApp.rest('GET', '/v1/workflows', { key: apiKey });
      expect(workflows.status).toBe(200);
      expect(existsSync(emptyDir)).toBe(false);

      const listed = await cli(['tenant:list'], env);
      expect(JSON.parse(listed.stdout).map((tenant: { id: string }) => tenant.id)).toContain(tenantId);
    },
    CLI_RUN_MS * 3,
  );

  it(
    'given no running server and an empty data directory, when the CLI is run, then it refuses with the way out and creates nothing; with --create-database it creates one and says it opened it directly',
    async () => {
      const emptyDir = join(parent, 'nothing-here');
      const env = { PGLITE_DATA_DIR: emptyDir, RUNTIME_DIR: join(parent, 'no-servers') };
      const refused = await cli(['tenant:list'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('holds no database and no server is running on an embedded database');
      expect(refused.stderr).toContain('--create-database');
      expect(refused.stdout).toBe('');
      expect(existsSync(emptyDir)).toBe(false);

      const created = await cli(['tenant:list', '--create-database'], env);
      expect(created.code).toBe(0);
      expect(created.stderr).toContain(`Database: embedded PGlite in ${emptyDir}, opened directly (no server runs on it)`);
      expect(JSON.parse(created.stdout)).toEqual([]);
      expect(readdirSync(emptyDir)).toContain('PG_VERSION');
    },
    CLI_RUN_MS * 2,
  );

  it(
    'given the server data directory itself, when the CLI is run, then it names it and notes no other server',
    async () => {
      const run = await cli(['tenant:list'], { PGLITE_DATA_DIR: serverDataDir, RUNTIME_DIR: runtimeDir });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`Database: embedded PGlite in ${serverDataDir}, through the running server's socket`);
      expect(run.stderr).not.toContain('Note:');
    },
    CLI_RUN_MS,
  );

  it(
    'given a tenant, when operator:create is run without OPERATOR_PASSWORD, then it prints a generated password once and that operator signs in to the running server as an admin',
    async () => {
      const env = { PGLITE_DATA_DIR: serverDataDir, RUNTIME_DIR: runtimeDir };
      const tenantId = JSON.parse((await cli(['tenant:create', 'Operator Corp'], env)).stdout).tenant_id as string;

      const created = await cli(['operator:create', tenantId, 'First.Admin@Example.com', '--name', 'First Admin'], env);

      expect(created.code).toBe(0);
      const [json, passwordLine] = created.stdout.split(/\n(?=password: )/);
      expect(JSON.parse(json!)).toMatchObject({
        tenant_id: tenantId,
        email: 'first.admin@example.com',
        name: 'First Admin',
        role: 'admin',
      });
      expect(created.stderr).toContain('The password is shown once');
      const password = passwordLine!.replace('password: ', '').trim();
      const signedIn = await fetch(`${testApp.url}/console/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first.admin@example.com', password }),
      });
      expect(signedIn.status).toBe(200);
      expect(((await signedIn.json()) as { operator: { role: string } }).operator.role).toBe('admin');

      const again = await cli(['operator:create', tenantId, 'first.admin@example.com', '--name', 'Twice'], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('exists already');
    },
    CLI_RUN_MS * 3,
  );
});
