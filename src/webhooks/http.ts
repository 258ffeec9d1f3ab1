import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { guardedLookup, literalHostRefusal, RefusedAddressError } from './ssrf.js';

/** Longest a delivery attempt may take by default, connect to last byte, in milliseconds (docs/design.md "Events and webhooks": 15 s; WEBHOOK_TIMEOUT_SECONDS). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
/** Most response-body bytes read and kept per attempt; the rest is discarded unread. */
export const RESPONSE_BODY_CAP_BYTES = 4096;
/** Sockets kept per receiver origin; enough for the emitter's concurrency. */
const CONNECTIONS_PER_ORIGIN = 128;

/** What one POST produced. */
export interface SendResult {
  /** HTTP status, or null when no response came. */
  statusCode: number | null;
  /** Start to end of the attempt, in milliseconds. */
  durationMs: number;
  /** The first {@link RESPONSE_BODY_CAP_BYTES} of the response, as text. */
  responseBody: string | null;
  /** `Retry-After` as sent. */
  retryAfter: string | null;
  /** Why no response came (refused address, timeout, network). */
  error: string | null;
  /** True when the target was refused by the SSRF guard: retrying cannot help. */
  refused: boolean;
}

/** Posts signed webhook bodies: no redirects, a hard timeout, capped bodies, and the SSRF guard on every connection. */
export class WebhookHttpClient {
  private readonly agent: Agent;

  /** `allowLoopback` lets development point destinations at 127.0.0.1; `timeoutMs` bounds each attempt, connect to last byte. */
  constructor(
    private readonly allowLoopback: boolean,
    private readonly timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS,
  ) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(allowLoopback), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: CONNECTIONS_PER_ORIGIN,
    });
  }

  /** POSTs `body` with `headers`; never throws. undici follows no redirects, so a 3xx is just a failed attempt. */
  async post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { statusCode: null, durationMs: 0, responseBody: null, retryAfter: null, error: 'invalid url', refused: true };
    }
    const refusal = literalHostRefusal(target.hostname, this.allowLoopback);
    if (refusal)
      return { statusCode: null, durationMs: 0, responseBody: null, retryAfter: null, error: `refused: ${refusal}`, refused: true };
    try {
      const response = await request(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'idv-service-webhooks/1', ...headers },
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const responseBody = await readCapped(response.body);
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        durationMs: elapsed(),
        responseBody,
        retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null,
        error: null,
        refused: false,
      };
    } catch (error) {
      const refused = error instanceof RefusedAddressError || (error as { cause?: unknown }).cause instanceof RefusedAddressError;
      const message = error instanceof Error ? error.message : String(error);
      return {
        statusCode: null,
        durationMs: elapsed(),
        responseBody: null,
        retryAfter: null,
        error: refused ? `refused: ${message}` : message,
        refused,
      };
    }
  }

  /** Closes idle sockets. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Reads at most {@link RESPONSE_BODY_CAP_BYTES} of a body, then drops the connection's remaining bytes. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_CAP_BYTES) {
      body.destroy();
      break;
    }
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_CAP_BYTES).toString('utf8');
}
