/**
 * Bounds on graphql-ws (audit M11): a socket runs at most WS_MAX_SUBSCRIPTIONS_PER_SOCKET
 * operations at once (the next is refused with TOO_MANY_SUBSCRIPTIONS), and a tenant holds at most
 * WS_MAX_SOCKETS_PER_TENANT sockets on one server (the next is closed with 4430). Both free up
 * as operations and sockets end.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WS_CLOSE_TOO_MANY_SOCKETS } from '../../src/http/fastify-server.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { SESSION_STATUS_CHANGED, waitForSubscribers } from './support.js';

const OPERATIONS_PER_SOCKET = 3;
const SOCKETS_PER_TENANT = 2;

let testApp: TestApp;
let tenantA: TestTenant;
let tenantB: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({
    WS_MAX_SUBSCRIPTIONS_PER_SOCKET: String(OPERATIONS_PER_SOCKET),
    WS_MAX_SOCKETS_PER_TENANT: String(SOCKETS_PER_TENANT),
  });
  [tenantA, tenantB] = await Promise.all([testApp.tenant(), testApp.tenant()]);
});

afterAll(async () => {
  await testApp?.close();
});

/** Subscribes; resolves with the errors if the server refuses the operation, never for an accepted one. */
function subscribe(client: Client): { refused: Promise<{ extensions?: { code?: string } }[]>; stop: () => void } {
  let stop: () => void = () => undefined;
  const refused = new Promise<{ extensions?: { code?: string } }[]>((resolve) => {
    stop = client.subscribe(
      { query: SESSION_STATUS_CHANGED },
      { next: () => undefined, error: (errors) => resolve(errors as never), complete: () => undefined },
    );
  });
  return { refused, stop };
}

/** Resolves with the close code once the socket is acknowledged (0) or closed by the server. */
function outcomeOf(client: Client): Promise<number> {
  return new Promise((resolve) => {
    client.on('connected', () => resolve(0));
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}

describe('graphql-ws bounds', () => {
  it('given a socket running the most operations it may, when one more subscribes, then it is refused with TOO_MANY_SUBSCRIPTIONS until one ends', async () => {
    const client = testApp.ws({ 'x-api-key': tenantA.sandboxKey });
    const running = Array.from({ length: OPERATIONS_PER_SOCKET }, () => subscribe(client));
    await waitForSubscribers(testApp.app.services.live, OPERATIONS_PER_SOCKET);

    const extra = subscribe(client);
    const [error] = await extra.refused;
    expect(error?.extensions?.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    expect(testApp.app.services.live.subscriberCount).toBe(OPERATIONS_PER_SOCKET);

    running[0]!.stop();
    await waitForSubscribers(testApp.app.services.live, OPERATIONS_PER_SOCKET - 1);
    const replacement = subscribe(client);
    await waitForSubscribers(testApp.app.services.live, OPERATIONS_PER_SOCKET);
    for (const operation of [...running.slice(1), replacement]) operation.stop();
    await waitForSubscribers(testApp.app.services.live, 0);
    await client.dispose();
  });

  it('given a tenant holding the most sockets it may, when it opens one more, then that one is closed with 4430 while another tenant still connects', async () => {
    const held = Array.from({ length: SOCKETS_PER_TENANT }, () => testApp.ws({ 'x-api-key': tenantA.liveKey }));
    expect(await Promise.all(held.map(outcomeOf))).toEqual(held.map(() => 0));

    const oneMore = testApp.ws({ 'x-api-key': tenantA.liveKey });
    expect(await outcomeOf(oneMore)).toBe(WS_CLOSE_TOO_MANY_SOCKETS);
    const otherTenant = testApp.ws({ 'x-api-key': tenantB.liveKey });
    expect(await outcomeOf(otherTenant)).toBe(0);

    await held[0]!.dispose();
    // The server counts the socket down when it sees the close; a new socket is accepted once it has.
    let outcome = WS_CLOSE_TOO_MANY_SOCKETS;
    while (outcome === WS_CLOSE_TOO_MANY_SOCKETS) {
      const retry = testApp.ws({ 'x-api-key': tenantA.liveKey });
      outcome = await outcomeOf(retry);
      if (outcome !== 0) await retry.dispose();
    }
    expect(outcome).toBe(0);
  });
});
