import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sealLegacyPlaintext } from '../../src/auth/sealed-columns.js';
import { readCallbackSecret } from '../../src/tenants/callback-secrets.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type ReceivedWebhook, type Receiver } from './support.js';

const ROTATE = 'mutation { rotateCallbackSecret }';

let testApp: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  await testApp?.close();
  await receiver?.close();
});

/** Standard Webhooks headers of a received delivery. */
function headersOf(item: ReceivedWebhook): Record<string, string> {
  return { 'webhook-id': item.id, 'webhook-timestamp': item.timestamp, 'webhook-signature': String(item.headers['webhook-signature']) };
}

/** Creates a session with a callback to the receiver and waits for its first callback. */
async function callbackOf(key: string): Promise<ReceivedWebhook> {
  const vendorData = `callback-${randomUUID()}`;
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'standard_kyc', vendor_data: vendorData, callback: `${receiver.url}/callback` },
  });
  expect(created.status).toBe(201);
  const sessionId = created.body.session_id as string;
  const [item] = (await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId))).filter(
    (r) => r.body?.data?.session_id === sessionId,
  );
  return item!;
}

/** The stored callback secret rows of a tenant. */
async function storedSecrets(tenant: TestTenant) {
  return testApp.app.orm.em
    .fork()
    .execute<{ environment: string; secret_sealed: string }[]>(
      'select environment, secret_sealed from callback_secret where tenant_id = ? order by environment',
      [tenant.id],
    );
}

describe('callback secrets per environment, sealed at rest', () => {
  it('given both environments rotated, when a sandbox and a live session call back, then each is signed with its own environment secret only', async () => {
    const tenant = await testApp.tenant();
    const sandbox = await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey });
    const live = await testApp.graphql<{ rotateCallbackSecret: string }>(ROTATE, {}, tenant.liveKey);
    expect(sandbox.status).toBe(200);
    const sandboxSecret = sandbox.body.secret as string;
    const liveSecret = live.body.data!.rotateCallbackSecret;
    expect(sandboxSecret).toMatch(/^whsec_/);
    expect(liveSecret).not.toBe(sandboxSecret);

    const sandboxCallback = await callbackOf(tenant.sandboxKey);
    expect(() => new Webhook(sandboxSecret).verify(sandboxCallback.rawBody, headersOf(sandboxCallback))).not.toThrow();
    expect(() => new Webhook(liveSecret).verify(sandboxCallback.rawBody, headersOf(sandboxCallback))).toThrow();
    const liveCallback = await callbackOf(tenant.liveKey);
    expect(() => new Webhook(liveSecret).verify(liveCallback.rawBody, headersOf(liveCallback))).not.toThrow();
    expect(() => new Webhook(sandboxSecret).verify(liveCallback.rawBody, headersOf(liveCallback))).toThrow();
  });

  it('given a live secret, when the sandbox key rotates, then the live secret is unchanged', async () => {
    const tenant = await testApp.tenant();
    const live = (await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.liveKey })).body.secret as string;
    await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey });
    await testApp.graphql(ROTATE, {}, tenant.sandboxKey);
    const secrets = testApp.app.services.secrets;
    expect(await readCallbackSecret(testApp.app.orm.em.fork(), secrets, tenant.id, 'live')).toBe(live);
    const liveCallback = await callbackOf(tenant.liveKey);
    expect(() => new Webhook(live).verify(liveCallback.rawBody, headersOf(liveCallback))).not.toThrow();
  });

  it('given rotated secrets, when reading the table, then no secret is stored in clear', async () => {
    const tenant = await testApp.tenant();
    const live = (await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.liveKey })).body.secret as string;
    const rows = await storedSecrets(tenant);
    expect(rows.map((row) => row.environment)).toEqual(['live']);
    expect(rows[0]!.secret_sealed).toMatch(/^v2\./);
    expect(rows[0]!.secret_sealed).not.toContain(live.slice('whsec_'.length, 20));
    expect(testApp.app.services.secrets.decrypt(rows[0]!.secret_sealed)).toBe(live);
  });

  it('given a tenant that never rotated, when its sandbox session calls back, then a sandbox secret is made on first use and the CLI reader returns it', async () => {
    const tenant = await testApp.tenant();
    const callback = await callbackOf(tenant.sandboxKey);
    const sandboxSecret = await readCallbackSecret(testApp.app.orm.em.fork(), testApp.app.services.secrets, tenant.id, 'sandbox');
    expect(() => new Webhook(sandboxSecret).verify(callback.rawBody, headersOf(callback))).not.toThrow();
  });

  it('given no key or an unknown tenant, when rotating or reading, then 401 and not found', async () => {
    expect((await testApp.rest('POST', '/v1/callback-secret/rotate', { key: null })).status).toBe(401);
    await expect(readCallbackSecret(testApp.app.orm.em.fork(), testApp.app.services.secrets, randomUUID(), 'live')).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('given a tenant of an older version with a plaintext callback secret, when the start-up step runs, then it becomes the sealed live secret and the column is emptied', async () => {
    const em = testApp.app.orm.em.fork();
    const tenantId = randomUUID();
    const legacy = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
    await em.execute(
      `insert into tenant (id, name, callback_secret, created_at) values (?, 'legacy', ?, now())`,
      [tenantId, legacy],
      'run',
    );

    await sealLegacyPlaintext(em, testApp.app.services.secrets);

    const [tenant] = await em.execute<{ callback_secret: string | null }[]>('select callback_secret from tenant where id = ?', [tenantId]);
    expect(tenant!.callback_secret).toBeNull();
    expect(await readCallbackSecret(em, testApp.app.services.secrets, tenantId, 'live')).toBe(legacy);
    const sandbox = await readCallbackSecret(em, testApp.app.services.secrets, tenantId, 'sandbox');
    expect(sandbox).toMatch(/^whsec_/);
    expect(sandbox).not.toBe(legacy);
  });
});
