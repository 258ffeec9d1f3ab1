/**
 * The subscriber side of bench/events-subscribers.ts, in a worker thread so the server thread's
 * heap holds server-side state only. Opens sockets (graphql-ws subscriptions, or plain `ws`
 * sockets for the baseline), records the receive time of every event, and on request turns the
 * commit times the server thread sends into latency percentiles.
 */
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';

/** A command from the server thread. */
type Command =
  | { type: 'open'; kind: 'graphql' | 'graphql-raw' | 'plain'; url: string; key: string; sockets: number; perSocket: number }
  | { type: 'count' }
  | { type: 'collect'; committedAtMs: Record<string, number> }
  | { type: 'close' };

const SUBSCRIPTION = 'subscription { sessionStatusChanged { id sessionId status previousStatus changedAt } }';
/** Receive times, epoch milliseconds with sub-millisecond precision, one per delivered message. */
let receivedAtMs = new Float64Array(1 << 20);
/** Index into `eventIds` of each received message. */
let receivedEvent = new Uint32Array(1 << 20);
let received = 0;
const eventIndex = new Map<string, number>();
const eventIds: string[] = [];
const clients: Client[] = [];
const plainSockets: WebSocket[] = [];

/** Epoch milliseconds, comparable across the threads of one process. */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** Records one delivery of event `id`. */
function record(id: string): void {
  const at = nowMs();
  if (received === receivedAtMs.length) {
    const times = new Float64Array(received * 2);
    times.set(receivedAtMs);
    receivedAtMs = times;
    const events = new Uint32Array(received * 2);
    events.set(receivedEvent);
    receivedEvent = events;
  }
  let index = eventIndex.get(id);
  if (index === undefined) {
    index = eventIds.length;
    eventIds.push(id);
    eventIndex.set(id, index);
  }
  receivedAtMs[received] = at;
  receivedEvent[received] = index;
  received += 1;
}

/** Opens `sockets` graphql-ws connections with `perSocket` subscriptions each. */
async function openGraphql(url: string, key: string, sockets: number, perSocket: number): Promise<void> {
  const connected: Promise<void>[] = [];
  for (let i = 0; i < sockets; i += 1) {
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: (error) => console.error('socket failed', error),
    });
    clients.push(client);
    connected.push(new Promise((resolve) => client.on('connected', () => resolve())));
    for (let j = 0; j < perSocket; j += 1) {
      client.subscribe<{ sessionStatusChanged: { id: string } }>(
        { query: SUBSCRIPTION },
        {
          next: (result) => {
            if (result.data) record(result.data.sessionStatusChanged.id);
          },
          error: (error) => console.error('subscription failed', error),
          complete: () => undefined,
        },
      );
    }
    // Open in batches so the accept queue is not flooded.
    if (i % 250 === 249) await Promise.all(connected.slice(-250));
  }
  await Promise.all(connected);
}

/**
 * Opens `sockets` connections speaking graphql-transport-ws over a bare `ws` socket with
 * `perSocket` subscriptions each: the protocol's messages written and read with `JSON`, as the
 * baseline's client reads its broadcast, so both sides of the comparison pay the same client cost
 * and the difference is the server's. (graphql-ws's own client validates and dispatches every
 * message, which on a 2-core machine slows the receiving thread, not the server.)
 */
async function openGraphqlRaw(url: string, key: string, sockets: number, perSocket: number): Promise<void> {
  const acknowledged: Promise<void>[] = [];
  for (let i = 0; i < sockets; i += 1) {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    plainSockets.push(socket);
    acknowledged.push(
      new Promise((resolve, reject) => {
        socket.once('error', reject);
        socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': key } })));
        socket.on('message', (data) => {
          const message = JSON.parse(data.toString()) as { type: string; payload?: { data?: { sessionStatusChanged: { id: string } } } };
          if (message.type === 'next' && message.payload?.data) record(message.payload.data.sessionStatusChanged.id);
          else if (message.type === 'connection_ack') {
            for (let j = 0; j < perSocket; j += 1)
              socket.send(JSON.stringify({ id: String(j), type: 'subscribe', payload: { query: SUBSCRIPTION } }));
            resolve();
          } else if (message.type === 'error') console.error('subscription failed', message);
        });
      }),
    );
    if (i % 250 === 249) await Promise.all(acknowledged.slice(-250));
  }
  await Promise.all(acknowledged);
}

/** Opens `sockets` plain WebSocket connections for the broadcast baseline. */
async function openPlain(url: string, sockets: number): Promise<void> {
  const opened: Promise<void>[] = [];
  for (let i = 0; i < sockets; i += 1) {
    const socket = new WebSocket(url);
    plainSockets.push(socket);
    opened.push(new Promise((resolve, reject) => socket.once('open', () => resolve()).once('error', reject)));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { payload: { data: { sessionStatusChanged: { id: string } } } };
      record(message.payload.data.sessionStatusChanged.id);
    });
    if (i % 250 === 249) await Promise.all(opened.slice(-250));
  }
  await Promise.all(opened);
}

/** The value at quantile `q` of sorted `values`. */
function quantile(values: Float64Array, q: number): number {
  return values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;
}

parentPort!.on('message', async (command: Command) => {
  if (command.type === 'open') {
    if (command.kind === 'graphql') await openGraphql(command.url, command.key, command.sockets, command.perSocket);
    else if (command.kind === 'graphql-raw') await openGraphqlRaw(command.url, command.key, command.sockets, command.perSocket);
    else await openPlain(command.url, command.sockets);
    parentPort!.postMessage({ type: 'opened' });
    return;
  }
  if (command.type === 'count') {
    parentPort!.postMessage({ type: 'count', received });
    return;
  }
  if (command.type === 'collect') {
    const latencies = new Float64Array(received);
    let unknown = 0;
    for (let i = 0; i < received; i += 1) {
      const committedAt = command.committedAtMs[eventIds[receivedEvent[i]!]!];
      if (committedAt === undefined) unknown += 1;
      latencies[i] = committedAt === undefined ? Number.NaN : receivedAtMs[i]! - committedAt;
    }
    latencies.sort();
    parentPort!.postMessage({
      type: 'collected',
      received,
      unknown,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: latencies[latencies.length - 1 - unknown] ?? Number.NaN,
    });
    received = 0;
    eventIndex.clear();
    eventIds.length = 0;
    return;
  }
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  for (const socket of plainSockets.splice(0)) socket.close();
  parentPort!.postMessage({ type: 'closed' });
});
