import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * Settings every webhook test file uses, so that on a shared server database any file's emitter
 * may deliver any file's messages the same way: loopback allowed, retries in tens of
 * milliseconds, a short lease (a killed emitter's claims come back quickly), fast polls.
 */
export const WEBHOOK_TEST_ENV: Record<string, string> = {
  EMITTER_IN_PROCESS: 'true',
  DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true',
  WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,0.05,0.05,0.05,0.05',
  WEBHOOK_CLAIM_LEASE_SECONDS: '2',
  EMITTER_POLL_INTERVAL_MS: '50',
};

/** One POST the receiver got, verified with the official `standardwebhooks` library. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  /** True when the signature verified against the receiver's current secret. */
  verified: boolean;
  /** The status the receiver answered. */
  answered: number;
}

/** What the receiver answers the nth request (1-based) to a path. */
export type Responder = (attempt: number, body: any) => { status: number; headers?: Record<string, string>; body?: string };

/** A real HTTP receiver on 127.0.0.1:0 that verifies every delivery with `standardwebhooks`. */
export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** The secret signatures are checked against; set it from the create or rotate response. */
  secret: string | null;
  /** Answers per request; 204 by default. */
  respond: Responder;
  /** Milliseconds each answer is held back (a slow receiver keeps a burst in flight). */
  delayMs: number;
  /** Resolves once `predicate` holds over the received list (polls every 10 ms), or rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Starts a receiver; `path` tells destinations apart on one receiver. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    secret: null,
    respond: () => ({ status: 204 }),
    delayMs: 0,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met in ${timeoutMs} ms (${receiver.received.length} received)`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const attemptsById = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers;
      let verified = false;
      if (receiver.secret) {
        try {
          new Webhook(receiver.secret).verify(rawBody, {
            'webhook-id': String(headers['webhook-id']),
            'webhook-timestamp': String(headers['webhook-timestamp']),
            'webhook-signature': String(headers['webhook-signature']),
          });
          verified = true;
        } catch {
          verified = false;
        }
      }
      const id = String(headers['webhook-id']);
      const attempt = (attemptsById.get(id) ?? 0) + 1;
      attemptsById.set(id, attempt);
      let body: any;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const answer = receiver.respond(attempt, body);
      receiver.received.push({
        id,
        timestamp: String(headers['webhook-timestamp']),
        headers,
        rawBody,
        body,
        verified,
        answered: answer.status,
      });
      const send = () => {
        response.writeHead(answer.status, answer.headers ?? {});
        response.end(answer.body ?? '');
      };
      if (receiver.delayMs > 0) setTimeout(send, receiver.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
