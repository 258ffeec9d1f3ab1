import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession } from '../sessions/support.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';
import { recordStatusEvents, transitions, waitForSubscribers } from './support.js';

/**
 * The live-status promise end to end: a console on graphql-ws and a webhook receiver both see
 * every status change of a sandbox session driven to a decision, with the same event ids, and
 * every delivery verifies with the official `standardwebhooks` library.
 */
describe('live status, console and webhook together', () => {
  let testApp: TestApp;
  let receiver: Receiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp(WEBHOOK_TEST_ENV);
    receiver = await startReceiver();
    tenant = await testApp.tenant();
  });
  afterAll(async () => {
    await testApp?.close();
    await receiver?.close();
  });

  it('given a console subscription and a webhook destination, when a sandbox session is driven to approved, then both see pending → in_progress → approved with the same event ids', async () => {
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/${tenant.id}`, events: ['session.status_changed'] },
    });
    expect(destination.status).toBe(201);
    receiver.secret = destination.body.secret;
    const subscribers = testApp.app.services.live.subscriberCount;
    const console = recordStatusEvents(testApp.ws({ 'x-api-key': tenant.sandboxKey }));
    await waitForSubscribers(testApp.app.services.live, subscribers + 1);

    const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'console-and-webhook' });
    const sessionId = created.body.session_id;
    expect(await completeStandardKyc(testApp, { key: tenant.sandboxKey }, sessionId)).toBe('approved');

    const seenByConsole = (await console.take(3)).filter((event) => event.sessionId === sessionId);
    expect(transitions(seenByConsole)).toEqual(['null→pending', 'pending→in_progress', 'in_progress→approved']);

    const forSession = (all: typeof receiver.received) => all.filter((item) => item.body?.data?.session_id === sessionId);
    const delivered = forSession(await receiver.waitFor((all) => forSession(all).length >= 3));
    expect(delivered.every((item) => item.verified)).toBe(true);
    const byStatus = new Map(delivered.map((item) => [item.body.data.status as string, item]));
    expect([...byStatus.keys()].sort()).toEqual(['approved', 'in_progress', 'pending']);
    for (const event of seenByConsole) expect(byStatus.get(event.status)?.body.id).toBe(event.id);
    expect(byStatus.get('approved')?.body.data).toMatchObject({ status: 'approved', compliance_level: 'standard' });
  });
});
