import { gzipSync } from 'node:zlib';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES } from '../../src/rest/routes/index.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

describe('HTTP surface', () => {
  let testApp: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp({ BODY_LIMIT_BYTES: String(64 * 1024), GRAPHQL_MAX_DEPTH: '6', GRAPHQL_MAX_ALIASES: '3' });
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  it('given malformed JSON, when posting, then 400 malformed_json problem', async () => {
    const response = await testApp.rest('POST', '/v1/workflows', { key: tenant.sandboxKey, rawBody: '{"name": ' });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'malformed_json', status: 400 });
  });

  it('given an empty JSON body, when posting, then 400', async () => {
    const response = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('given a body over the limit, when posting, then 413 payload_too_large', async () => {
    const response = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: { name: 'x'.repeat(70 * 1024), nodes: [] },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('given a non-JSON content type, when posting, then 415 problem', async () => {
    const response = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
  });

  it('given an unknown route, when calling it, then 404 not_found problem', async () => {
    const response = await testApp.rest('GET', '/v1/nothing-here', { key: tenant.sandboxKey });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', status: 404, instance: '/v1/nothing-here' });
  });

  it('given a known path, when calling it with a method it does not serve, then 405 with Allow', async () => {
    const put = await testApp.rest('PUT', '/v1/sessions', { key: tenant.sandboxKey, body: {} });
    expect(put.status).toBe(405);
    expect(put.body).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(put.headers.get('allow')).toBe('POST, GET, HEAD, OPTIONS');
    const deleteList = await testApp.rest('DELETE', '/v1/lists', { key: tenant.sandboxKey });
    expect(deleteList.status).toBe(405);
    expect(deleteList.headers.get('allow')).toMatch(/GET/);
  });

  it('given a gzip-encoded body, when posting, then 415 saying to send it uncompressed', async () => {
    const response = await fetch(`${testApp.url}/v1/workflows`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.sandboxKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ name: 'x', nodes: [] })),
    });
    expect(response.status).toBe(415);
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe('unsupported_media_type');
    expect(body.detail).toMatch(/uncompressed/);
  });

  it('given limits, when a body is too large or not JSON, then the problem states the limit and the expected type', async () => {
    const tooLarge = await testApp.rest('POST', '/v1/workflows', { key: tenant.sandboxKey, body: { name: 'x'.repeat(70 * 1024) } });
    expect(tooLarge.body.detail).toContain(String(64 * 1024));
    const notJson = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(notJson.status).toBe(415);
    expect(notJson.body.detail).toContain('application/json');
  });

  it('given the standard introspection query (as graphql-js and GraphQL Codegen send it), when posting, then it is answered', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const response = await testApp.graphql(query, {}, tenant.sandboxKey);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.types.length).toBeGreaterThan(20);
  });

  it('given an introspection query nesting lists beyond its cost cap, when posting, then QUERY_TOO_COMPLEX', async () => {
    const response = await testApp.graphql(
      '{ __schema { types { fields { args { type { enumValues { name } } } } } } }',
      {},
      tenant.sandboxKey,
    );
    expect(response.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(response.body.data).toBeUndefined();
  });

  it('given a JSON body with bytes that are not UTF-8, when posted to REST or GraphQL, then 400 malformed_json and nothing is created (audit N14)', async () => {
    const vendorData = `utf8-${Date.now()}`;
    const bytes = Buffer.concat([
      Buffer.from(`{"workflow_id":"standard_kyc","vendor_data":"${vendorData}`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const rest = await fetch(`${testApp.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.sandboxKey },
      body: bytes,
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { code: string }).code).toBe('malformed_json');
    const graphql = await fetch(`${testApp.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.sandboxKey },
      body: Buffer.concat([Buffer.from('{"query":"{ __typename }","x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    });
    expect(graphql.status).toBe(400);
    const listed = await testApp.rest('GET', `/v1/sessions?vendor_data=${vendorData}`, { key: tenant.sandboxKey });
    expect(JSON.stringify(listed.body)).not.toContain(vendorData);
  });

  it('given a request id, when calling, then it is echoed; without one, one is generated', async () => {
    const echoed = await testApp.rest('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const generated = await testApp.rest('GET', '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('given a running server, when probing health and readiness, then both answer 200', async () => {
    expect((await testApp.rest('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await testApp.rest('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('given the route table, when fetching the OpenAPI document, then it is 3.1 and lists every route with its operation', async () => {
    const response = await testApp.rest('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    for (const route of REST_ROUTES) {
      const path = route.path.replace(/:([a-z_]+)/g, '{$1}');
      const operation = response.body.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
    }
    expect(response.body.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('given a query deeper than the limit, when posting it, then it is refused before execution', async () => {
    // A query mixing data and introspection is held to the ordinary depth limit.
    const deep = '{ workflows { nodes { type } } __schema { types { fields { type { fields { type { name } } } } } } }';
    const response = await testApp.graphql(deep, {}, tenant.sandboxKey);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(response.body.data).toBeUndefined();
  });

  it('given more aliases than the limit, when posting, then QUERY_TOO_COMPLEX', async () => {
    const aliased = '{ a: workflows { id } b: workflows { id } c: workflows { id } d: workflows { id } }';
    const response = await testApp.graphql(aliased, {}, tenant.sandboxKey);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('given a query within the limits, when posting, then it runs', async () => {
    const response = await testApp.graphql('{ a: workflows { id } b: workflows { name } }', {}, tenant.sandboxKey);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.a).toHaveLength(5);
  });

  it('given a GraphQL syntax error, when posting, then a GraphQL error and no 500', async () => {
    const response = await testApp.graphql('{ workflows { ', {}, tenant.sandboxKey);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});
