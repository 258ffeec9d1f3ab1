/**
 * Subscription results written straight to the socket (src/graphql/shared-subscribe.ts,
 * `deliverDirectly`), seen from a bare graphql-transport-ws client: each change is one text frame
 * shaped as graphql-ws's own `next` messages, a frame shared by sockets whose operations have the
 * same id carries each socket's own id, and a completed operation gets nothing more. (A client
 * that stops reading: test/events/shared-subscribe.test.ts, where the socket's buffer is in the
 * test's hands; over loopback the kernel's buffers hold tens of megabytes first.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionStatusEvent } from '../../src/events/live-status.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { waitForSubscribers } from './support.js';

const SUBSCRIPTION = 'subscription { sessionStatusChanged { id sessionId status previousStatus changedAt } }';

let testApp: TestApp;
let tenant: TestTenant;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await waitForSubscribers(testApp.app.services.live, 0);
});
afterAll(async () => {
  await testApp?.close();
});

/** One message as received: its text, whether the frame was binary, and the parsed message. */
interface Received {
  text: string;
  binary: boolean;
  message: { id?: string; type: string; payload?: any };
}

/** A bare graphql-transport-ws socket signed in with the tenant's sandbox key. */
interface RawSocket {
  socket: WebSocket;
  received: Received[];
  /** Resolves once `predicate` holds for some received message, with that message. */
  waitFor(predicate: (received: Received) => boolean): Promise<Received>;
  /** Sends `subscribe` for operation `id`. */
  subscribe(id: string): void;
  /** Sends `complete` for operation `id`. */
  complete(id: string): void;
}

/** Opens a socket and resolves once the server acknowledged its connection_init. */
async function open(): Promise<RawSocket> {
  const socket = new WebSocket(`${testApp.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  sockets.push(socket);
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (data, binary) => {
    const text = String(data);
    received.push({ text, binary, message: JSON.parse(text) });
    for (const wake of waiters.splice(0)) wake();
  });
  const raw: RawSocket = {
    socket,
    received,
    waitFor(predicate) {
      return new Promise((resolve) => {
        const look = () => {
          const found = received.find(predicate);
          if (found) resolve(found);
          else waiters.push(look);
        };
        look();
      });
    },
    subscribe(id) {
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } }));
    },
    complete(id) {
      socket.send(JSON.stringify({ id, type: 'complete' }));
    },
  };
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': tenant.sandboxKey } }));
  await raw.waitFor((received) => received.message.type === 'connection_ack');
  return raw;
}

/** A status change of the tenant's sandbox, published to the hub as the fan-out does after a commit. */
function publish(overrides: Partial<SessionStatusEvent> = {}): SessionStatusEvent {
  const event: SessionStatusEvent = {
    id: randomUUID(),
    seq: 1,
    tenantId: tenant.id,
    environment: 'sandbox',
    sessionId: randomUUID(),
    workflowId: 'standard_kyc',
    vendorData: 'direct',
    status: 'pending',
    previousStatus: null,
    actor: 'api',
    reason: null,
    changedAt: 1_800_000_000,
    ...overrides,
  };
  testApp.app.services.live.publish(event);
  return event;
}

describe('subscription results written to the socket directly', () => {
  it('given two sockets whose operations share an id and one with another id, when changes are published, then each gets text frames of its own id, and nothing more once it completed', async () => {
    const [first, second, third] = await Promise.all([open(), open(), open()]);
    first.subscribe('1');
    second.subscribe('1');
    third.subscribe('op-7');
    await waitForSubscribers(testApp.app.services.live, 3);

    const event = publish();
    const expected = (id: string) => ({
      id,
      type: 'next',
      payload: {
        data: {
          sessionStatusChanged: {
            id: event.id,
            sessionId: event.sessionId,
            status: 'pending',
            previousStatus: null,
            changedAt: event.changedAt,
          },
        },
      },
    });
    for (const [raw, id] of [
      [first, '1'],
      [second, '1'],
      [third, 'op-7'],
    ] as const) {
      const next = await raw.waitFor((received) => received.message.type === 'next');
      expect(next.binary).toBe(false);
      // Byte for byte what graphql-ws's own `next` message is: id, type, payload, in that order.
      expect(next.text).toBe(JSON.stringify(expected(id)));
    }

    first.complete('1');
    await waitForSubscribers(testApp.app.services.live, 2);
    const later = publish({ status: 'in_progress', previousStatus: 'pending' });
    for (const raw of [second, third]) {
      const next = await raw.waitFor((received) => received.message.payload?.data?.sessionStatusChanged.id === later.id);
      expect(next.message.payload.data.sessionStatusChanged).toMatchObject({ status: 'in_progress', previousStatus: 'pending' });
    }
    expect(first.received.filter((received) => received.message.type === 'next')).toHaveLength(1);
  });
});
