import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceSecrets } from '../../src/auth/secrets.js';
import { sealLegacyPlaintext } from '../../src/auth/sealed-columns.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

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

/** A tenant with one v3 destination pointing at the receiver. */
async function tenantWithDestination(): Promise<{ tenant: TestTenant; id: string }> {
  const tenant = await testApp.tenant();
  const created = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.sandboxKey,
    body: { url: `${receiver.url}/${tenant.id}` },
  });
  expect(created.status).toBe(201);
  receiver.secret = created.body.secret;
  return { tenant, id: created.body.uuid };
}

/** Stored body of every delivery of a session. */
async function storedBodies(sessionId: string): Promise<string[]> {
  const rows = await testApp.app.orm.em
    .fork()
    .execute<{ body: string }[]>('select body from webhook_delivery where session_id = ?', [sessionId]);
  return rows.map((row) => row.body);
}

describe('webhook bodies at rest', () => {
  it('given a destination, when a session event is delivered, then the stored body is sealed and the receiver gets the signed plaintext', async () => {
    const { tenant } = await tenantWithDestination();
    const vendorData = `person-${randomUUID()}`;
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: vendorData },
    });
    const sessionId = created.body.session_id as string;

    const [item] = (await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId))).filter(
      (r) => r.body?.data?.session_id === sessionId,
    );

    expect(item!.verified).toBe(true);
    expect(item!.body.data.vendor_data).toBe(vendorData);
    const [stored] = await storedBodies(sessionId);
    expect(stored).toMatch(/^v2\./);
    expect(stored).not.toContain(vendorData);
    expect(JSON.parse(testApp.app.services.secrets.decrypt(stored!))).toEqual(item!.body);
  });

  it('given a sealed body, when opened with another master key, then it is refused', async () => {
    const { tenant, id } = await tenantWithDestination();
    const sent = await testApp.rest('POST', `/v1/webhook-destinations/${id}/test`, { key: tenant.sandboxKey });
    expect(sent.status).toBeLessThan(300);
    const [row] = await testApp.app.orm.em
      .fork()
      .execute<{ body: string }[]>('select body from webhook_delivery where destination_id = ?', [id]);
    expect(row!.body).toMatch(/^v2\./);
    expect(() => createServiceSecrets('another-master-key-of-at-least-32-characters').decrypt(row!.body)).toThrow();
  });

  it('given a plaintext body left by an older version, when the start-up step runs and the delivery is replayed, then it is sealed and sent unchanged', async () => {
    const { tenant, id } = await tenantWithDestination();
    const deliveryId = randomUUID();
    const legacyBody = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { legacy: deliveryId } });
    const em = testApp.app.orm.em.fork();
    // Finished already, so no emitter picks it up before the start-up step seals it.
    await em.execute(
      `insert into webhook_delivery (id, tenant_id, environment, event_type, destination_id, target, body, status)
       values (?, ?, 'sandbox', 'webhook.test', ?, ?, ?, 'dead')`,
      [deliveryId, tenant.id, id, id, legacyBody],
      'run',
    );

    await sealLegacyPlaintext(em, testApp.app.services.secrets);
    const [row] = await em.execute<{ body: string }[]>('select body from webhook_delivery where id = ?', [deliveryId]);
    expect(row!.body).toMatch(/^v2\./);
    const replayed = await testApp.rest('POST', `/v1/webhook-deliveries/${deliveryId}/replay`, { key: tenant.sandboxKey });
    expect(replayed.status).toBe(202);

    const [item] = (await receiver.waitFor((all) => all.some((r) => r.id === deliveryId))).filter((r) => r.id === deliveryId);
    expect(item!.rawBody).toBe(legacyBody);
    expect(item!.verified).toBe(true);
  });
});
