/**
 * `GET /metrics` (issue 28, point 4): closed unless the operator opens it, by a token on the API
 * port or by a listener of its own; once open, the Prometheus text carries the request, GraphQL,
 * engine, outbox, webhook, subscription and pool series, with labels bounded by what the server
 * defines (route patterns, root fields), never by what a client sends.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';

const TOKEN = 'metrics-token-for-tests-0123456789abcdef';
let testApp: TestApp;
let closed: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  [testApp, closed, receiver] = await Promise.all([
    startTestApp({ ...WEBHOOK_TEST_ENV, METRICS_TOKEN: TOKEN, METRICS_PORT: '0', ENGINE_POOL_SIZE: '1' }),
    startTestApp(),
    startReceiver(),
  ]);
  // Two apps start side by side; a loaded machine needs more than the default hook minute.
}, 180_000);
afterAll(async () => {
  await Promise.all([testApp?.close(), closed?.close(), receiver?.close()]);
});

/** Scrapes the API port's `/metrics` with `authorization`. */
const scrape = (authorization?: string) => fetch(`${testApp.url}/metrics`, { headers: authorization ? { authorization } : {} });

/** The value of the sample `name{labels}` in a Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('given neither METRICS_TOKEN nor METRICS_PORT, when /metrics is requested, then it is an ordinary 404 and no listener runs', async () => {
    const response = await fetch(`${closed.url}/metrics`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(closed.app.metricsListener).toBeNull();
  });

  it('given METRICS_TOKEN, when scraped without it or with another token, then 401 problem details and no metric', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
      const response = await scrape(authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      const body = await response.json();
      expect(body).toMatchObject({ status: 401, code: 'unauthenticated' });
      expect(JSON.stringify(body)).not.toContain('idv_');
    }
  });

  it('given a token shorter than 32 characters, when the configuration loads, then it is refused naming METRICS_TOKEN', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });

  it('given requests to REST routes, /graphql and an unknown path, when scraped, then each is counted by route pattern and root field, never by the raw URL or the client-chosen operation name', async () => {
    const tenant = await testApp.tenant();
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'm-1' },
    });
    expect(created.status).toBe(201);
    expect((await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.sandboxKey })).status).toBe(200);
    expect((await fetch(`${testApp.url}/no/such/path-${Math.random()}`)).status).toBe(404);
    const graphql = await fetch(`${testApp.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.sandboxKey },
      body: JSON.stringify({
        query: 'query AttackerChosenName1234 { sessions(first: 1) { pageInfo { hasNextPage } } }',
        operationName: 'AttackerChosenName1234',
      }),
    });
    expect(graphql.status).toBe(200);

    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(sample(text, 'idv_http_requests_total', { method: 'POST', route: '/v1/sessions', status: '201' })).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'idv_http_requests_total', { method: 'GET', route: '/v1/sessions/:session_id/decision', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'idv_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'idv_http_request_duration_seconds_count', { method: 'POST', route: '/v1/sessions' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'idv_graphql_operations_total', { operation: 'sessions', type: 'query', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('AttackerChosenName1234');
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'idv_subscriptions_open')).toBe(0);
    expect(sample(text, 'idv_websocket_connections')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'idv_process_resident_memory_bytes')).toBeGreaterThan(0);
    // The pool is the server database's; the embedded one has a single connection and no pool series.
    if (process.env.DATABASE_URL) expect(sample(text, 'idv_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    else expect(sample(text, 'idv_db_pool_connections')).toBeUndefined();
  });

  it('given a webhook destination, when a session is created and delivered, then attempts are counted per destination and the outbox and backlog gauges are served', async () => {
    const tenant = await testApp.tenant();
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/${tenant.id}` },
    });
    expect(destination.status).toBe(201);
    receiver.secret = destination.body.secret;
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'm-2' },
    });
    const received = await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === created.body.session_id));
    // No exporter and no caller traceparent here: the POST carries no trace context made up from nothing.
    expect(received.find((r) => r.body?.data?.session_id === created.body.session_id)!.headers.traceparent).toBeUndefined();
    // The emitter reports its attempt as the receiver answers; the scrape after that answer sees it.
    let text = '';
    await expect
      .poll(async () => {
        text = await (await scrape(`Bearer ${TOKEN}`)).text();
        return sample(text, 'idv_webhook_attempts_total', { destination: destination.body.uuid, outcome: 'succeeded' });
      })
      .toBeGreaterThanOrEqual(1);
    expect(sample(text, 'idv_webhook_attempt_duration_seconds_count', { destination: destination.body.uuid })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'idv_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'idv_outbox_pending_events')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE idv_webhook_pending_deliveries gauge');
  });

  it(
    'given engine work on the thread pool, when a task ends, then its wait, run and outcome are recorded per engine',
    { timeout: 120_000 },
    async () => {
      const blank = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const outcome = await testApp.app.engines.executor.run({
        kind: 'face',
        imageBase64: blank,
        options: { field: 'selfie', pick: 'only' },
      });
      expect(outcome.ok).toBe(false);
      const text = await (await scrape(`Bearer ${TOKEN}`)).text();
      expect(sample(text, 'idv_engine_tasks_total', { engine: 'openkyc:face', outcome: 'error' })).toBe(1);
      expect(sample(text, 'idv_engine_task_wait_seconds_count', { engine: 'openkyc:face' })).toBe(1);
      expect(sample(text, 'idv_engine_task_run_seconds_count', { engine: 'openkyc:face' })).toBe(1);
      expect(sample(text, 'idv_engine_queue_depth')).toBe(0);
    },
  );

  it('given METRICS_PORT, when its listener is scraped without a token, then it serves the same registry and nothing but GET /metrics', async () => {
    const listener = testApp.app.metricsListener!;
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${listener.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('idv_http_requests_total');
    expect((await fetch(`${listener.url}/v1/sessions`)).status).toBe(404);
    expect((await fetch(`${listener.url}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('given the Grafana dashboard of docs/, when its queries are read, then every series they name is one the service exposes', async () => {
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const named = new Set([...dashboard.matchAll(/idv_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, '')));
    expect(named.size).toBeGreaterThanOrEqual(10);
    const text = await (await scrape(`Bearer ${TOKEN}`)).text();
    for (const name of named) expect(text, name).toContain(`# TYPE ${name} `);
  });
});
