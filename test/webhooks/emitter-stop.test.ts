/**
 * A stopping emitter gives back what it claimed and has not started: with the default lease it
 * holds up to two rounds of each destination's cap claimed ahead (emitter-loops.ts), and sending
 * them on the way out kept a stop waiting a receiver time-out per round. They go back to the
 * queue with their lease cleared, claimable at once; what is in flight is finished and recorded.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmitter } from '../../src/webhooks/run.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { WEBHOOK_TEST_ENV } from './support.js';

let testApp: TestApp;
/** Deliveries the receiver got (their `webhook-id`), each answered only when the test says so. */
const received: { id: string; response: ServerResponse }[] = [];
let onReceived: () => void = () => undefined;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received.push({ id: String(request.headers['webhook-id']), response });
    onReceived();
  });
});

beforeAll(async () => {
  testApp = await startTestApp({
    ...WEBHOOK_TEST_ENV,
    EMITTER_IN_PROCESS: 'false',
    // Long enough for rounds claimed ahead (prefetchFactor); one send at a time per destination.
    WEBHOOK_CLAIM_LEASE_SECONDS: '60',
    WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION: '1',
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
});
afterAll(async () => {
  await testApp?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Each delivery's status and whether it is leased, by id. */
async function stored(ids: string[]): Promise<Map<string, { status: string; leased: boolean }>> {
  const rows = await testApp.app.orm.em
    .fork()
    .execute<{ id: string; status: string; leased: boolean }[]>(
      'select id, status, claimed_until is not null as leased from webhook_delivery where id in (?)',
      [ids],
      'all',
    );
  return new Map(rows.map((row) => [row.id, { status: row.status, leased: row.leased }]));
}

describe('stopping the webhook emitter', () => {
  it('given deliveries claimed behind one in flight, when the emitter stops, then the one in flight is finished and the others go back to the queue unsent', async () => {
    const tenant = await testApp.tenant();
    const { port } = receiver.address() as AddressInfo;
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `http://127.0.0.1:${port}/stop` },
    });
    expect(destination.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const sent = await testApp.rest('POST', `/v1/webhook-destinations/${destination.body.uuid}/test`, { key: tenant.sandboxKey });
      expect(sent.status).toBe(202);
      ids.push(sent.body.id);
    }
    const first = new Promise<void>((resolve) => (onReceived = resolve));
    const { app } = testApp;
    const emitter = await startEmitter({
      url: app.database.url,
      config: app.config,
      secrets: app.services.secrets,
      logger: pino({ level: 'silent' }),
      sharedOrm: app.database.embedded ? app.orm : undefined,
    });
    // One in flight (the destination's cap), unanswered; the other two claimed behind it.
    await first;
    await expect.poll(async () => [...(await stored(ids)).values()].filter((row) => row.leased).length).toBe(3);

    const stopped = emitter.stop();
    received[0]!.response.writeHead(204).end();
    await stopped;

    const sentId = received[0]!.id;
    expect(received.map((delivery) => delivery.id)).toEqual([sentId]);
    const after = await stored(ids);
    expect(after.get(sentId)).toEqual({ status: 'succeeded', leased: false });
    for (const id of ids.filter((other) => other !== sentId)) expect(after.get(id)).toEqual({ status: 'pending', leased: false });
  });
});
