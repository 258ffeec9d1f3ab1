import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/tenants/tenant.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const LIST_WORKFLOWS = /* GraphQL */ `
  query {
    workflows {
      id
    }
  }
`;

/** Resolves with the close code of a graphql-ws client that the server refuses. */
function closeCodeOf(testApp: TestApp, params: Record<string, unknown> | undefined): Promise<number> {
  return new Promise((resolve) => {
    const client = testApp.ws(params);
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}

describe('authentication', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let revokedKey: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    const revoked = await testApp.issueKey(tenant.id, 'sandbox');
    await revokeApiKey(testApp.app.orm.em.fork(), revoked.prefix, testApp.app.services.apiKeys);
    revokedKey = revoked.key;
  });
  afterAll(() => testApp.close());

  const badKeys: [string, () => string | null][] = [
    ['missing', () => null],
    ['unknown', () => 'idv_sandbox_notarealkey'],
    ['revoked', () => revokedKey],
  ];

  describe.each(badKeys)('given a %s key', (_label, key) => {
    it('when calling REST, then 401 problem+json', async () => {
      const response = await testApp.rest('GET', '/v1/workflows', { key: key() });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 401, code: 'unauthenticated', title: 'Unauthenticated' });
    });

    it('when calling GraphQL over HTTP, then 401 with UNAUTHENTICATED', async () => {
      const response = await testApp.graphql(LIST_WORKFLOWS, {}, key());
      expect(response.status).toBe(401);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(response.body.data).toBeUndefined();
    });

    it('when a REST write is attempted, then nothing is created', async () => {
      const response = await testApp.rest('POST', '/v1/workflows', {
        key: key(),
        body: { name: 'sneaky', nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }] },
      });
      expect(response.status).toBe(401);
      const list = await testApp.rest('GET', '/v1/workflows', { key: tenant.sandboxKey });
      expect(list.body.workflows.map((workflow: { name: string }) => workflow.name)).not.toContain('sneaky');
    });
  });

  it('given no key in connection_init, when opening a socket, then it closes with 4401', async () => {
    expect(await closeCodeOf(testApp, undefined)).toBe(4401);
  });

  it('given an unknown key in connection_init, when opening a socket, then it closes with 4403', async () => {
    expect(await closeCodeOf(testApp, { 'x-api-key': 'idv_live_unknown' })).toBe(4403);
  });

  it('given a revoked key in connection_init, when opening a socket, then it closes with 4403', async () => {
    expect(await closeCodeOf(testApp, { 'x-api-key': revokedKey })).toBe(4403);
  });

  it('given a valid key in connection_init, when querying over the socket, then it answers', async () => {
    const client = testApp.ws({ 'x-api-key': tenant.sandboxKey });
    const result = await new Promise<any>((resolve, reject) => {
      client.subscribe({ query: LIST_WORKFLOWS }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(result.data.workflows).toHaveLength(5);
  });

  it('given a socket opened with a key that is then revoked, when it sends another operation, then UNAUTHENTICATED', async () => {
    const extra = await testApp.issueKey(tenant.id, 'live');
    const client = testApp.ws({ 'x-api-key': extra.key });
    const first = await new Promise<any>((resolve, reject) => {
      client.subscribe({ query: LIST_WORKFLOWS }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(first.data.workflows).toHaveLength(5);
    await revokeApiKey(testApp.app.orm.em.fork(), extra.id, testApp.app.services.apiKeys);
    const errors = await new Promise<any>((resolve) => {
      client.subscribe({ query: LIST_WORKFLOWS }, { next: () => undefined, error: resolve, complete: () => undefined });
    });
    expect(errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('given a revoked key, when it is revoked again, then it stays revoked and keeps its first revocation time', async () => {
    const em = testApp.app.orm.em.fork();
    const again = await revokeApiKey(em, revokedKey.slice(0, 'idv_sandbox_'.length + 8));
    expect(again.prefix).toBe(revokedKey.slice(0, 'idv_sandbox_'.length + 8));
    expect((await testApp.rest('GET', '/v1/workflows', { key: revokedKey })).status).toBe(401);
  });

  it('given an overlong key header, when calling REST, then 401 without hashing it', async () => {
    const response = await testApp.rest('GET', '/v1/workflows', { key: 'x'.repeat(5000) });
    expect(response.status).toBe(401);
  });
});
