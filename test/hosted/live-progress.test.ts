/**
 * `hostedFlowChanged`: the hosted flow's page follows one session's status over graphql-ws with
 * the session token of its link. The token reaches its own session only; another tenant's or
 * environment's key gets NOT_FOUND, like every other operation.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, SANDBOX_IMAGE, tokenOf } from '../sessions/support.js';
import { waitForSubscribers } from '../events/support.js';

const SUBSCRIPTION = 'subscription ($sessionId: String!) { hostedFlowChanged(sessionId: $sessionId) { sessionId status previousStatus } }';

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const clients: Client[] = [];

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  other = await testApp.tenant('Other');
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await testApp.close();
});

/** Subscribes; resolves the first `count` events, or rejects with the first error. */
function subscribe(connectionParams: Record<string, string>, sessionId: string, count: number) {
  const client = testApp.ws(connectionParams);
  clients.push(client);
  const events: any[] = [];
  return new Promise<any[]>((resolve, reject) => {
    client.subscribe(
      { query: SUBSCRIPTION, variables: { sessionId } },
      {
        next: (message) => {
          if (message.errors) return reject(message.errors[0]);
          events.push(message.data!.hostedFlowChanged);
          if (events.length === count) resolve(events);
        },
        error: (error) => reject(Array.isArray(error) ? error[0] : error),
        complete: () => resolve(events),
      },
    );
  });
}

describe('hostedFlowChanged', () => {
  it("given the session token, when the session moves on, then the page receives that session's status changes", async () => {
    const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'live-progress' });
    const token = tokenOf(created.body.url);
    const sessionId = created.body.session_id as string;
    const live = testApp.app.services.live;
    const before = live.subscriberCount;
    const received = subscribe({ 'x-session-token': token, 'x-session-id': sessionId }, sessionId, 1);
    await waitForSubscribers(live, before + 1);
    const submitted = await testApp.rest('POST', `/v1/sessions/${sessionId}/steps/document`, {
      headers: { 'x-session-token': token },
      body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE },
    });
    expect(submitted.status).toBe(200);
    expect(await received).toEqual([{ sessionId, status: 'in_progress', previousStatus: 'pending' }]);
  });

  it.each([
    ["another session's token", (): Record<string, string> => ({ 'x-session-token': 'x' })],
    ["another tenant's key", (): Record<string, string> => ({ 'x-api-key': other.sandboxKey })],
    ["the other environment's key", (): Record<string, string> => ({ 'x-api-key': tenant.liveKey })],
  ])('given %s, when it subscribes to a session, then NOT_FOUND', async (_who, params) => {
    const created = await createSession(testApp, tenant.sandboxKey, {
      workflow_id: 'aml_only',
      vendor_data: `live-progress-${Math.random()}`,
    });
    let credentials = params();
    if (credentials['x-session-token']) {
      const elsewhere = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'aml_only',
        vendor_data: `elsewhere-${Math.random()}`,
      });
      // A real link of another session: its socket opens, and the operation on this session is NOT_FOUND.
      credentials = { 'x-session-token': tokenOf(elsewhere.body.url), 'x-session-id': elsewhere.body.session_id };
    }
    await expect(subscribe(credentials, created.body.session_id, 1)).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });
});
