/**
 * API keys in the console (issue 16): a signed-in admin lists, creates (secret shown once) and
 * revokes the organisation's keys of the environment they work in; other roles, other
 * organisations, the other environment and API keys themselves are refused; each change audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { codeOf, consoleGql, makeOperator, operatorAuditOf, signIn, type ConsoleCredential } from './support.js';

const API_KEYS = /* GraphQL */ `
  query {
    apiKeys(first: 100) {
      edges {
        node {
          id
          name
          prefix
          environment
          revokedAt
        }
      }
    }
  }
`;
const CREATE_API_KEY = /* GraphQL */ `
  mutation ($name: String!) {
    createApiKey(name: $name) {
      secret
      apiKey {
        id
        name
        prefix
        environment
      }
    }
  }
`;
const REVOKE_API_KEY = /* GraphQL */ `
  mutation ($id: String!) {
    revokeApiKey(id: $id) {
      id
      revokedAt
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let admin: ConsoleCredential;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin', 'Key Keeper'), 'sandbox');
}, 60_000);
afterAll(() => testApp?.close());

describe('admins manage API keys', () => {
  it('given a sandbox admin, when creating a key, then its secret works once shown, the list shows its prefix only, and revoking it stops it; audited', async () => {
    const created = await consoleGql(testApp, admin, CREATE_API_KEY, { name: 'CRM integration' });
    const { secret, apiKey } = created.body.data.createApiKey;
    const works = await testApp.rest('GET', '/v1/workflows', { key: secret });
    const listed = await consoleGql(testApp, admin, API_KEYS);
    const keys = listed.body.data.apiKeys.edges.map((edge: { node: unknown }) => edge.node);
    const revoked = await consoleGql(testApp, admin, REVOKE_API_KEY, { id: apiKey.id });
    const refused = await testApp.rest('GET', '/v1/workflows', { key: secret });

    expect(secret).toMatch(/^idv_sandbox_/);
    expect(apiKey).toMatchObject({ name: 'CRM integration', environment: 'sandbox', prefix: secret.slice(0, apiKey.prefix.length) });
    expect(works.status).toBe(200);
    expect(keys.find((key: { id: string }) => key.id === apiKey.id)).toEqual({
      id: apiKey.id,
      name: 'CRM integration',
      prefix: apiKey.prefix,
      environment: 'sandbox',
      revokedAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(keys.every((key: { environment: string }) => key.environment === 'sandbox')).toBe(true);
    expect(revoked.body.data.revokeApiKey.revokedAt).toEqual(expect.any(Number));
    expect(refused.status).toBe(401);
    const audit = await operatorAuditOf(testApp, apiKey.id);
    expect(audit).toEqual([
      { action: 'api_key.created', actor_name: 'Key Keeper', environment: 'sandbox' },
      { action: 'api_key.revoked', actor_name: 'Key Keeper', environment: 'sandbox' },
    ]);
  });

  it('given keys of the live environment and of another organisation, when a sandbox admin revokes them, then NOT_FOUND and they keep working', async () => {
    const live = await testApp.issueKey(tenant.id, 'live');
    const foreign = await testApp.issueKey(other.id, 'sandbox');

    expect(codeOf(await consoleGql(testApp, admin, REVOKE_API_KEY, { id: live.id }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, admin, REVOKE_API_KEY, { id: foreign.id }))).toBe('NOT_FOUND');
    const listed = (await consoleGql(testApp, admin, API_KEYS)).body.data.apiKeys.edges.map(
      (edge: { node: { id: string } }) => edge.node.id,
    );
    expect(listed).not.toContain(live.id);
    expect(listed).not.toContain(foreign.id);
    expect((await testApp.rest('GET', '/v1/workflows', { key: foreign.key })).status).toBe(200);
  });
});

describe('who may manage API keys', () => {
  it('given a reviewer, a viewer and an API key, when listing, creating or revoking keys, then each is FORBIDDEN', async () => {
    const reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'));
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    const target = await testApp.issueKey(tenant.id, 'sandbox');

    for (const credential of [reviewer, viewer]) {
      expect(codeOf(await consoleGql(testApp, credential, API_KEYS))).toBe('FORBIDDEN');
      expect(codeOf(await consoleGql(testApp, credential, CREATE_API_KEY, { name: 'mine' }))).toBe('FORBIDDEN');
      expect(codeOf(await consoleGql(testApp, credential, REVOKE_API_KEY, { id: target.id }))).toBe('FORBIDDEN');
    }
    for (const [query, variables] of [
      [API_KEYS, {}],
      [CREATE_API_KEY, { name: 'minted by a key' }],
      [REVOKE_API_KEY, { id: target.id }],
    ] as const)
      expect((await testApp.graphql(query, variables, tenant.sandboxKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await testApp.rest('GET', '/v1/workflows', { key: target.key })).status).toBe(200);
  });
});
