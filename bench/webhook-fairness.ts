/**
 * Webhook fairness benchmark (issue 13.6, audit M6): `npm run bench:webhook-fairness`.
 *
 * Tenant A has one destination on a fast receiver; tenant B has 60 destinations on a receiver that
 * answers each request after 20 s (past the emitter's 15 s timeout, as in the audit). For each
 * emitter setting, A's latency (session create answered → webhook received) is measured for
 * `--samples` sessions while the server is idle, then again while B's 600 deliveries (10 sessions
 * × 60 destinations) are in flight. Printed: p50 / p95 / max idle and loaded, and loaded / idle.
 *
 * Runs: the defaults (fair: 16 per destination, 32 per tenant, 256 in all) and, as the baseline in
 * the same run, the caps switched off (per tenant = per destination = 256), which is the emitter
 * before fairness. Embedded PGlite unless DATABASE_URL is set.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startApp, type RunningApp } from '../src/app.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { DEFAULT_MAX_IN_FLIGHT_PER_TARGET, DEFAULT_MAX_IN_FLIGHT_PER_TENANT } from '../src/webhooks/emitter-loops.js';
import { benchAppConfig } from './support/app-config.js';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '20' },
    'slow-destinations': { type: 'string', default: '60' },
    'slow-sessions': { type: 'string', default: '10' },
    'slow-ms': { type: 'string', default: '20000' },
  },
});
const SAMPLES = Number(values.samples);
const SLOW_DESTINATIONS = Number(values['slow-destinations']);
const SLOW_SESSIONS = Number(values['slow-sessions']);
const SLOW_MS = Number(values['slow-ms']);

/** A receiver on 127.0.0.1:0 that answers after `delayMs` and calls `onReceive` with the parsed body. */
async function receiver(delayMs: number, onReceive: (body: any) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      onReceive(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const answer = () => response.writeHead(204).end();
      if (delayMs > 0) setTimeout(answer, delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** p-th percentile of sorted numbers (nearest rank). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One REST call to the running app. */
async function rest(app: RunningApp, key: string, method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** When each of A's sessions' first webhook arrived; a webhook may beat the create's answer. */
class Arrivals {
  private readonly times = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();
  /** Records an arrival and wakes whoever waits for it. */
  arrived(sessionId: string, at: number): void {
    if (this.times.has(sessionId)) return;
    this.times.set(sessionId, at);
    this.waiters.get(sessionId)?.(at);
  }
  /** Resolves with the arrival time of the session's webhook. */
  when(sessionId: string): Promise<number> {
    const known = this.times.get(sessionId);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => this.waiters.set(sessionId, resolve));
  }
}

/** A's latency per session: from the create's answer to the receipt of its webhook, in ms. */
async function measureA(app: RunningApp, key: string, arrivals: Arrivals, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const created = await rest(app, key, 'POST', '/v1/sessions', { workflow_id: 'aml_only', vendor_data: `a-${sample}-${Math.random()}` });
    const answeredAt = performance.now();
    latencies.push(Math.max(0, (await arrivals.when(created.session_id)) - answeredAt));
  }
  return latencies.sort((x, y) => x - y);
}

/** Runs both phases with one emitter setting; returns A's sorted latencies idle and loaded. */
async function run(perTenant: number, perDestination: number, samples: number): Promise<{ idle: number[]; loaded: number[] }> {
  const config = benchAppConfig({
    DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true',
    EMITTER_POLL_INTERVAL_MS: '50',
    WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: String(perTenant),
    WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION: String(perDestination),
  });
  const app = await startApp(config, { logger: pino({ level: 'silent' }) });
  const arrivals = new Arrivals();
  const fast = await receiver(0, (body) => {
    const sessionId = body?.data?.session_id;
    if (typeof sessionId === 'string') arrivals.arrived(sessionId, performance.now());
  });
  let slowReceived = 0;
  const slow = await receiver(SLOW_MS, () => (slowReceived += 1));
  try {
    const em = app.orm.em.fork();
    const tenantA = await createTenant(em, 'bench A');
    const tenantB = await createTenant(em, 'bench B');
    const keyA = (await issueApiKey(em, tenantA.id, 'sandbox')).key;
    const keyB = (await issueApiKey(em, tenantB.id, 'sandbox')).key;
    await rest(app, keyA, 'POST', '/v1/webhook-destinations', { url: `${fast.url}/a` });
    const idle = await measureA(app, keyA, arrivals, samples);
    for (let index = 0; index < SLOW_DESTINATIONS; index += 1)
      await rest(app, keyB, 'POST', '/v1/webhook-destinations', { url: `${slow.url}/b/${index}` });
    for (let index = 0; index < SLOW_SESSIONS; index += 1)
      await rest(app, keyB, 'POST', '/v1/sessions', { workflow_id: 'aml_only', vendor_data: `b-${index}` });
    // Wait until B's deliveries hold what the caps let them hold before measuring A.
    const expected = Math.min(perTenant, SLOW_DESTINATIONS * SLOW_SESSIONS);
    while (slowReceived < expected) await new Promise((resolve) => setTimeout(resolve, 20));
    const loaded = await measureA(app, keyA, arrivals, samples);
    return { idle, loaded };
  } finally {
    fast.server.close();
    slow.server.closeAllConnections();
    slow.server.close();
    await app.close();
  }
}

/** One printed row: p50 / p95 / max in ms. */
function row(latencies: number[]): string {
  return `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 95).toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms`;
}

const database = process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite';
console.log(
  `webhook fairness on ${database}: A ${SAMPLES} sessions idle and while B's ${SLOW_DESTINATIONS} destinations × ${SLOW_SESSIONS} sessions answer after ${SLOW_MS} ms`,
);
// The baseline's loaded samples each wait for B's slots (up to the 15 s timeout): fewer of them.
for (const [label, perTenant, perDestination, samples] of [
  [
    `fair (defaults: ${DEFAULT_MAX_IN_FLIGHT_PER_TENANT} per tenant, ${DEFAULT_MAX_IN_FLIGHT_PER_TARGET} per destination)`,
    DEFAULT_MAX_IN_FLIGHT_PER_TENANT,
    DEFAULT_MAX_IN_FLIGHT_PER_TARGET,
    SAMPLES,
  ],
  ['baseline: caps off (256 per tenant and destination)', 256, 256, Math.min(SAMPLES, 3)],
] as const) {
  const { idle, loaded } = await run(perTenant, perDestination, samples);
  const ratio = percentile(loaded, 95) / percentile(idle, 95);
  console.log(
    `${label}\n  A idle    p50/p95/max ${row(idle)}\n  A loaded  p50/p95/max ${row(loaded)}\n  loaded/idle p95 ${ratio.toFixed(2)}×`,
  );
}
process.exit(0);
