import { execFile } from 'node:child_process';
import { createCipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../../src/auth/master-key-rotation.js';
import { SEALED_COLUMNS } from '../../src/auth/sealed-columns.js';
import { createServiceSecrets, generateMasterKey } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/shared/config.js';
import { readCallbackSecret } from '../../src/tenants/callback-secrets.js';
import { completeStandardKyc, createSession } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { openScratchDatabase } from '../support/scratch-database.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const ROTATE_COMMAND = ['src/bin/cli.ts', 'secrets:rotate-master-key'];
/** An on-disk first start (initdb and every migration) takes tens of seconds on a loaded machine. */
const ON_DISK_START_MS = 180_000;

const dataDir = join(mkdtempSync(join(tmpdir(), 'master-key-rotation-')), 'pglite');
const keyPath = join(dataDir, 'master.key');
let testApp: TestApp | undefined;
let tenant: TestTenant;
let sessionId: string;
let serviceToken: string;
let liveCallbackSecret: string;

/** Starts the service on the on-disk embedded database of this file, its key from the key file. */
function startOnDisk(): Promise<TestApp> {
  return startTestApp({ PGLITE_DATA_DIR: dataDir, MASTER_KEY: '', DATABASE_URL: '', MIGRATE_ON_START: 'true' });
}

/** Runs the admin CLI on this file's data directory. */
function cli(args: string[], env: Record<string, string> = {}) {
  return run(join(ROOT, 'node_modules/.bin/tsx'), args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', MASTER_KEY: '', PGLITE_DATA_DIR: dataDir, NODE_NO_WARNINGS: '1', ...env },
  });
}

/**
 * A value sealed the way the first release did (AES-256-GCM directly under a key derived from the
 * master key, `v1.<iv>.<tag>.<ciphertext>`), written out here independently of the service code.
 */
function sealedInFirstFormat(masterKey: string, plaintext: string): string {
  const key = Buffer.from(hkdfSync('sha256', masterKey, 'openkyc', 'secrets-at-rest/v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Every sealed value in the database, per `table.column`. */
async function sealedValues(em: EntityManager): Promise<Map<string, string[]>> {
  const values = new Map<string, string[]>();
  for (const { table, column, jsonKey } of SEALED_COLUMNS) {
    const value = jsonKey ? `${column} ->> '${jsonKey}'` : column;
    const rows = await em.execute<{ v: string }[]>(`select ${value} as v from ${table} where ${value} is not null`);
    values.set(
      `${table}.${column}`,
      rows.map((row) => row.v),
    );
  }
  return values;
}

/** Text and JSON columns of the public schema holding a value in the sealed format (JSON: anywhere in its text). */
async function columnsHoldingSealedValues(em: EntityManager): Promise<string[]> {
  const columns = await em.execute<{ table_name: string; column_name: string; data_type: string }[]>(
    `select table_name, column_name, data_type from information_schema.columns
     where table_schema = 'public' and data_type in ('text', 'jsonb') order by table_name, column_name`,
  );
  const found: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const pattern = type === 'jsonb' ? `"${column}"::text ~ '"v[12]\\.'` : `"${column}" ~ '^v[12]\\.'`;
    const [row] = await em.execute<{ n: string }[]>(`select count(*) as n from "${table}" where ${pattern}`);
    if (Number(row!.n) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

beforeAll(async () => {
  testApp = await startOnDisk();
  tenant = await testApp.tenant();
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.liveKey,
    body: { url: 'https://example.com/hook' },
  });
  await testApp.rest('POST', `/v1/webhook-destinations/${destination.body.uuid}/test`, { key: tenant.liveKey });
  liveCallbackSecret = (await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.liveKey })).body.secret;
  sessionId = (await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'rotation' })).body.session_id;
  expect(await completeStandardKyc(testApp, { key: tenant.sandboxKey }, sessionId)).toBe('approved');
  serviceToken = (await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey })).body.service_token;
  expect(serviceToken).toBeTruthy();
}, ON_DISK_START_MS);
afterAll(async () => {
  await testApp?.close();
});

describe('master key rotation', () => {
  it('given sealed data, when listing the columns that hold sealed values, then every one is in the list a rotation re-wraps', async () => {
    const listed = SEALED_COLUMNS.map(({ table, column }) => `${table}.${column}`);
    const found = await columnsHoldingSealedValues(testApp!.app.orm.em.fork());
    expect(found.length).toBeGreaterThanOrEqual(5);
    // The session's personal data is sealed inside its JSON columns (src/auth/personal-data.ts).
    expect(found).toEqual(expect.arrayContaining(['session_node_result.details']));
    expect(found.filter((column) => !listed.includes(column))).toEqual([]);
  });

  it(
    'given the server running on the data directory, when rotating, then the CLI refuses and nothing changes',
    async () => {
      const before = readFileSync(keyPath, 'utf8');
      await expect(cli(ROTATE_COMMAND)).rejects.toMatchObject({ stderr: expect.stringContaining('stop it') });
      expect(readFileSync(keyPath, 'utf8')).toBe(before);
    },
    ON_DISK_START_MS,
  );

  it('given a value sealed under another key, when rotating, then nothing is re-wrapped and the key stays', async () => {
    const em = testApp!.app.orm.em.fork();
    const oldKey = readFileSync(keyPath, 'utf8').trim();
    const stray = createServiceSecrets(generateMasterKey()).encrypt('not ours');
    await em.execute(
      `insert into callback_secret (tenant_id, environment, secret_sealed) values (?, 'sandbox', ?)`,
      [tenant.id, stray],
      'run',
    );
    const before = await sealedValues(em);
    const config = loadConfig({ PGLITE_DATA_DIR: dataDir });

    await expect(rotateMasterKey(em, config, oldKey)).rejects.toThrow();

    expect(await sealedValues(em)).toEqual(before);
    expect(readFileSync(keyPath, 'utf8').trim()).toBe(oldKey);
    expect(existsSync(`${keyPath}.new`)).toBe(false);
    await em.execute(`delete from callback_secret where tenant_id = ? and environment = 'sandbox'`, [tenant.id], 'run');
  });

  it(
    'given the server stopped, when the CLI rotates, then every sealed value opens with the new key only, the key file is swapped 0600, and the service reads its data',
    async () => {
      const oldKey = readFileSync(keyPath, 'utf8').trim();
      const oldSecrets = createServiceSecrets(oldKey);
      const before = await sealedValues(testApp!.app.orm.em.fork());
      await testApp!.close();
      testApp = undefined;

      const { stdout } = await cli(ROTATE_COMMAND);

      const rotation = JSON.parse(stdout) as { rewrapped: Record<string, number>; keyFile: string };
      expect(rotation.keyFile).toBe(keyPath);
      for (const [column, values] of before) expect(rotation.rewrapped[column], column).toBe(values.length);
      const newKey = readFileSync(keyPath, 'utf8').trim();
      expect(newKey).not.toBe(oldKey);
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
      expect(existsSync(`${keyPath}.new`)).toBe(false);

      testApp = await startOnDisk();
      const newSecrets = createServiceSecrets(newKey);
      const after = await sealedValues(testApp.app.orm.em.fork());
      for (const [column, values] of after) {
        expect(values.length, column).toBe(before.get(column)!.length);
        for (const [index, value] of values.entries()) {
          expect(() => oldSecrets.decrypt(value), column).toThrow();
          expect(() => newSecrets.decrypt(value), column).not.toThrow();
          if (before.get(column)!.includes(value)) throw new Error(`${column} kept a value sealed under the old key (row ${index})`);
        }
      }
      const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.service_token).toBe(serviceToken);
      expect(await readCallbackSecret(testApp.app.orm.em.fork(), testApp.app.services.secrets, tenant.id, 'live')).toBe(liveCallbackSecret);
    },
    ON_DISK_START_MS,
  );

  it(
    'given MASTER_KEY from the environment (a server database) and values in both sealed formats, when rotating to NEW_MASTER_KEY, then all open with the new key only and no key file is written',
    async () => {
      const scratch = await openScratchDatabase('rotation', { migrate: true });
      try {
        const em = scratch.database.orm.em.fork();
        const oldKey = 'old-master-key-for-the-rotation-test-0123456789';
        const newKey = 'new-master-key-for-the-rotation-test-0123456789';
        const tenantId = randomUUID();
        await em.execute(`insert into tenant (id, name, created_at) values (?, 'rotation', now())`, [tenantId], 'run');
        await em.execute(`insert into callback_secret (tenant_id, environment, secret_sealed) values (?, 'live', ?), (?, 'sandbox', ?)`, [
          tenantId,
          createServiceSecrets(oldKey).encrypt('whsec_envelope'),
          tenantId,
          sealedInFirstFormat(oldKey, 'whsec_first_format'),
        ]);
        const config = loadConfig({ DATABASE_URL: 'postgres://unused@127.0.0.1/unused', MASTER_KEY: oldKey });

        const rotation = await rotateMasterKey(em, config, oldKey, newKey);

        expect(rotation.keyFile).toBeNull();
        expect(rotation.rewrapped['callback_secret.secret_sealed']).toBeGreaterThanOrEqual(2);
        const rows = await em.execute<{ environment: string; secret_sealed: string }[]>(
          'select environment, secret_sealed from callback_secret where tenant_id = ? order by environment',
          [tenantId],
        );
        expect(rows.map((row) => createServiceSecrets(newKey).decrypt(row.secret_sealed))).toEqual([
          'whsec_envelope',
          'whsec_first_format',
        ]);
        for (const row of rows) {
          expect(row.secret_sealed).toMatch(/^v2\./);
          expect(() => createServiceSecrets(oldKey).decrypt(row.secret_sealed)).toThrow();
        }
      } finally {
        await scratch.drop();
      }
    },
    ON_DISK_START_MS,
  );

  it('given MASTER_KEY from the environment and no NEW_MASTER_KEY, when rotating, then it is refused with what to set', async () => {
    const config = loadConfig({ PGLITE_DATA_DIR: dataDir, MASTER_KEY: 'x'.repeat(40) });
    await expect(rotateMasterKey(testApp!.app.orm.em.fork(), config, 'x'.repeat(40))).rejects.toThrow('NEW_MASTER_KEY');
  });
});
