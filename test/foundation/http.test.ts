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

  it('given an unknown route, when calling it, then 404 route_not_found problem', async () => {
    const response = await testApp.rest('GET', '/v1/nothing-here', { key: tenant.sandboxKey });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'route_not_found', status: 404, instance: '/v1/nothing-here' });
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
    const deep = '{ workflows { nodes { type } } __schema { types { fields { type { ofType { ofType { name } } } } } } }';
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
