/**
 * Traces (issue 28, point 5): one trace from a step submission through the engine to the webhook
 * POST. The caller's `traceparent` is continued by the request's server span; the GraphQL
 * operation, its SQL statements and the engine task are its children; the event the step records
 * keeps the trace context, so the emitter's POST (outside any request) continues the same trace
 * and sends its own `traceparent`. Spans are exported by OTLP/HTTP to a real local receiver.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDocument, toDataUri, unlistedHolder } from '../id-verification/support/synthetic-document.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createSession, SUBMIT_DOCUMENT } from '../sessions/support.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';

/** A span as OTLP/JSON carries it (the fields this test reads). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A local OTLP/HTTP receiver: collects every span POSTed to /v1/traces (JSON encoding). */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces' && request.headers['content-type']?.includes('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans as OtlpSpan[]));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let testApp: TestApp;
let receiver: Receiver;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeAll(async () => {
  [otlp, receiver] = await Promise.all([startOtlpReceiver(), startReceiver()]);
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ENGINE_POOL_SIZE: '1' });
}, 120_000);
afterAll(async () => {
  await testApp?.close();
  await Promise.all([receiver?.close(), otlp?.close()]);
});

describe('traces', () => {
  it(
    'given a caller traceparent, when a live document step is submitted, then the request, its operation, SQL and engine task and the later webhook POST are spans of that one trace, and the POST carries it',
    { timeout: 180_000 },
    async () => {
      const tenant = await testApp.tenant();
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.liveKey,
        body: { name: 'Traced', nodes: [{ type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' }] },
      });
      expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
      const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
        key: tenant.liveKey,
        body: { url: `${receiver.url}/${tenant.id}` },
      });
      expect(destination.status).toBe(201);
      receiver.secret = destination.body.secret;
      const created = await createSession(testApp, tenant.liveKey, { workflow_id: workflow.body.workflow_id, vendor_data: 'traced-1' });
      expect(created.status).toBe(201);
      const sessionId = created.body.session_id;

      const traceId = randomBytes(16).toString('hex');
      const callerSpanId = randomBytes(8).toString('hex');
      const submitted = await fetch(`${testApp.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.liveKey, traceparent: `00-${traceId}-${callerSpanId}-01` },
        body: JSON.stringify({
          query: SUBMIT_DOCUMENT,
          variables: {
            sessionId,
            input: { country: 'GB', idType: 'PASSPORT', imageFront: toDataUri(await renderDocument(unlistedHolder()), 'image/png') },
          },
        }),
      });
      const body = (await submitted.json()) as { errors?: unknown; data: { submitDocument: { status: string } } };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const decided = body.data.submitDocument.status as string;

      // The webhook of the decision the step made carries the step's trace.
      const [post] = await receiver
        .waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId && r.body?.data?.status === decided), 60_000)
        .then((all) => all.filter((r) => r.body?.data?.session_id === sessionId && r.body?.data?.status === decided));
      const traceparent = String(post!.headers.traceparent ?? '');
      expect(traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(post!.verified).toBe(true);

      await testApp.app.tracing.flush();
      const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId);
      // The POST's span ends after its answer; wait for the one whose id its traceparent sent.
      const postSpanId = traceparent.split('-')[2]!;
      await expect.poll(() => inTrace().some((span) => span.spanId === postSpanId), { timeout: 20_000 }).toBe(true);
      const spans = inTrace();
      const named = (name: string) => spans.filter((span) => span.name === name);
      const server = named('POST /graphql');
      expect(server).toHaveLength(1);
      expect(server[0]!.parentSpanId).toBe(callerSpanId);
      expect(server[0]!.kind).toBe(2); // SERVER
      const operation = named('graphql mutation submitDocument');
      expect(operation).toHaveLength(1);
      expect(operation[0]!.parentSpanId).toBe(server[0]!.spanId);
      const engine = named('engine openkyc:mrz_ocr');
      expect(engine).toHaveLength(1);
      expect(named('db.query').length).toBeGreaterThan(3);
      // The POST is a client span whose id is the one its traceparent sent.
      const webhook = named('webhook POST').find((span) => traceparent.includes(span.spanId));
      expect(webhook, JSON.stringify(named('webhook POST'))).toBeDefined();
      expect(webhook!.kind).toBe(3); // CLIENT
    },
  );

  it('given no caller traceparent, when a session is created with traces exported, then the create starts a trace of its own and its webhook POST continues it', async () => {
    const tenant = await testApp.tenant();
    const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: `${receiver.url}/${tenant.id}` },
    });
    receiver.secret = destination.body.secret;
    const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'traced-2' });
    const [post] = (await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === created.body.session_id))).filter(
      (r) => r.body?.data?.session_id === created.body.session_id,
    );
    // Exported traces are on in this app: the create's server span began a trace, which the POST continues.
    const traceparent = String(post!.headers.traceparent ?? '');
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await testApp.app.tracing.flush();
    const traceId = traceparent.split('-')[1]!;
    await expect
      .poll(() => otlp.spans.filter((span) => span.traceId === traceId).map((span) => span.name), { timeout: 20_000 })
      .toContain('POST /v1/sessions');
  });
});
