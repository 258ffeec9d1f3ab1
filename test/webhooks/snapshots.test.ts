/**
 * Webhook bodies are snapshots of their event (issue 13.11, audit L2): a v3 body's `data` is the
 * decision as it was when the status changed, with the change's fields beside it. The session is
 * taken to `approved` while no emitter runs; only then is one started, so every body is built
 * after the verdict and must still say what was true at its own moment.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmitter, type RunningEmitter } from '../../src/webhooks/run.js';
import { completeStandardKyc } from '../sessions/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

let testApp: TestApp;
let receiver: Receiver;
let emitter: RunningEmitter | undefined;

beforeAll(async () => {
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await emitter?.stop();
  await testApp?.close();
  await receiver?.close();
});

describe('webhook bodies as snapshots', () => {
  it('given a session approved before any webhook was built, when they are sent, then each carries the decision of its own moment as data', async () => {
    const tenant = await testApp.tenant();
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/${tenant.id}`, version: 'v3' },
    });
    receiver.secret = destination.body.secret;
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'snapshot-user', metadata: { plan: 'gold' } },
    });
    const sessionId = created.body.session_id as string;
    expect(await completeStandardKyc(testApp, { key: tenant.sandboxKey }, sessionId)).toBe('approved');

    const { app } = testApp;
    emitter = await startEmitter({
      url: app.database.url,
      config: app.config,
      secrets: app.services.secrets,
      logger: pino({ level: 'silent' }),
      sharedOrm: app.database.embedded ? app.orm : undefined,
    });
    const ofSession = (all: typeof receiver.received) => all.filter((item) => item.body?.data?.session_id === sessionId);
    const delivered = ofSession(await receiver.waitFor((all) => ofSession(all).length >= 3));
    expect(delivered.every((item) => item.verified)).toBe(true);
    const byStatus = new Map(delivered.map((item) => [item.body.data.status as string, item.body.data]));

    const pending = byStatus.get('pending');
    expect(pending).toMatchObject({ previous_status: null, workflow_id: 'standard_kyc', vendor_data: 'snapshot-user', reasons: [] });
    expect(pending.metadata).toEqual({ plan: 'gold' });
    expect(Object.values(pending.node_results).every((node: any) => node.status === 'pending')).toBe(true);

    const inProgress = byStatus.get('in_progress');
    expect(inProgress).toMatchObject({ previous_status: 'pending' });
    expect(inProgress).not.toHaveProperty('service_token');
    expect(inProgress).not.toHaveProperty('compliance_level');
    // The first step's result is in; the last step's is not yet.
    expect(Object.values(inProgress.node_results).some((node: any) => node.status === 'pending')).toBe(true);

    const approved = byStatus.get('approved');
    expect(approved).toMatchObject({ previous_status: 'in_progress', compliance_level: 'standard' });
    expect(approved.service_token).toMatch(/^ey/);
    // Every required step has its result (standard_kyc's optional phone step was never submitted).
    expect(Object.values(approved.node_results).some((node: any) => node.required && node.status === 'pending')).toBe(false);
    for (const data of byStatus.values()) expect(data).not.toHaveProperty('decision');

    // The decision endpoint answers what the approved snapshot says.
    const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
    expect(approved).toMatchObject(decision.body);
  });
});
