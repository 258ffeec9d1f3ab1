/**
 * Direct delivery of shared subscriptions (src/graphql/shared-subscribe.ts) against a socket
 * whose buffer the test controls: frames carry each operation's id around one serialised payload,
 * a closing socket is skipped, and a client more than SUBSCRIBER_QUEUE_MAX_EVENTS messages behind
 * is cut off with the error a slow reader of the queue gets.
 */
import { randomUUID } from 'node:crypto';
import { buildSchema, parse, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import {
  LiveStatusHub,
  SubscriberTooSlowError,
  SUBSCRIBER_QUEUE_MAX_EVENTS,
  type SessionStatusEvent,
} from '../../src/events/live-status.js';
import { deliverDirectly, sharedSubscribe } from '../../src/graphql/shared-subscribe.js';

const TENANT = randomUUID();

/** A schema whose one subscription reads `hub`, as sessionStatusChanged does; `later` makes its resolver answer with a promise, as type-graphql's do. */
function schemaOn(hub: LiveStatusHub, later = false) {
  const schema = buildSchema(
    'type Query { ok: Boolean } type Subscription { changed: Change } type Change { id: String vendorData: String }',
  );
  const field = schema.getSubscriptionType()!.getFields().changed!;
  field.subscribe = () => hub.subscribe({ tenantId: TENANT, environment: 'sandbox' });
  field.resolve = later ? async (event: SessionStatusEvent) => event : (event: SessionStatusEvent) => event;
  return schema;
}

/** A stand-in for a server-side `ws` socket: records what is sent; the test sets its state and buffer. */
function fakeSocket() {
  const socket = {
    readyState: 1,
    bufferedAmount: 0,
    sent: [] as { data: string; binary: boolean }[],
    send(data: Buffer | string, options: { binary: boolean }) {
      socket.sent.push({ data: String(data), binary: options.binary });
    },
  };
  return socket;
}

/** A status change of the test tenant's sandbox. */
function statusEvent(vendorData = 'v'): SessionStatusEvent {
  return {
    id: randomUUID(),
    seq: 1,
    tenantId: TENANT,
    environment: 'sandbox',
    sessionId: randomUUID(),
    workflowId: 'w',
    vendorData,
    status: 'pending',
    previousStatus: null,
    actor: 'api',
    reason: null,
    changedAt: 1_800_000_000,
  };
}

/** Subscribes on `hub` and switches the subscription to direct delivery on `socket` as operation `id`. */
async function subscribeDirect(hub: LiveStatusHub, socket: ReturnType<typeof fakeSocket>, id: string, later = false) {
  const results = (await sharedSubscribe({
    schema: schemaOn(hub, later),
    document: parse('subscription { changed { id vendorData } }'),
  })) as AsyncIterableIterator<ExecutionResult>;
  expect(deliverDirectly(results, socket as unknown as WebSocket, id)).toBe(true);
  return results;
}

describe('shared subscriptions delivered directly', () => {
  it('given two operations with different ids, when a change is published, then each socket gets one text frame of its own id around the same payload', async () => {
    const hub = new LiveStatusHub();
    const [first, second] = [fakeSocket(), fakeSocket()];
    await subscribeDirect(hub, first, '1');
    await subscribeDirect(hub, second, 'x"y');
    const event = statusEvent();
    hub.publish(event);
    const payload = { data: { changed: { id: event.id, vendorData: 'v' } } };
    expect(first.sent).toEqual([{ data: JSON.stringify({ id: '1', type: 'next', payload }), binary: false }]);
    expect(second.sent).toEqual([{ data: JSON.stringify({ id: 'x"y', type: 'next', payload }), binary: false }]);
  });

  it('given a socket that is closing, when a change is published, then nothing is written and the subscription stays until graphql-ws ends it', async () => {
    const hub = new LiveStatusHub();
    const socket = fakeSocket();
    const results = await subscribeDirect(hub, socket, '1');
    socket.readyState = 2;
    hub.publish(statusEvent());
    expect(socket.sent).toEqual([]);
    expect(hub.subscriberCount).toBe(1);
    const end = results.next();
    await results.return!();
    expect(await end).toEqual({ done: true, value: undefined });
    expect(hub.subscriberCount).toBe(0);
  });

  it('given a client more messages behind than the queue bound, when one more change is written, then the subscription ends with the too-slow error', async () => {
    const hub = new LiveStatusHub();
    const socket = fakeSocket();
    const results = await subscribeDirect(hub, socket, '1');
    const end = results.next();
    const vendorData = 'x'.repeat(100);
    hub.publish(statusEvent(vendorData));
    const payloadBytes = JSON.stringify(JSON.parse(socket.sent[0]!.data).payload).length;
    // At the bound (as many waiting as the queue may hold, of this size): still served.
    socket.bufferedAmount = SUBSCRIBER_QUEUE_MAX_EVENTS * payloadBytes;
    hub.publish(statusEvent(vendorData));
    expect(hub.subscriberCount).toBe(1);
    // Over it: the frame is written (it is already in the buffer), then the subscription ends.
    socket.bufferedAmount += 1;
    hub.publish(statusEvent(vendorData));
    expect(socket.sent).toHaveLength(3);
    expect(hub.subscriberCount).toBe(0);
    await expect(end).rejects.toBeInstanceOf(SubscriberTooSlowError);
    hub.publish(statusEvent(vendorData));
    expect(socket.sent).toHaveLength(3);
  });

  it('given a resolver that answers with a promise, when changes are published, then each socket gets them in order once executed, and none after it completed', async () => {
    const hub = new LiveStatusHub();
    const [kept, ended] = [fakeSocket(), fakeSocket()];
    await subscribeDirect(hub, kept, '1', true);
    const completed = await subscribeDirect(hub, ended, '1', true);
    const events = [statusEvent('a'), statusEvent('b'), statusEvent('c')];
    for (const event of events) hub.publish(event);
    expect(kept.sent).toEqual([]);
    await completed.return!();
    await expect.poll(() => kept.sent.length).toBe(3);
    expect(kept.sent.map((frame) => JSON.parse(frame.data).payload.data.changed.vendorData)).toEqual(['a', 'b', 'c']);
    expect(ended.sent).toEqual([]);
  });
});
