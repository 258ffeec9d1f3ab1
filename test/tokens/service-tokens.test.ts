/**
 * Service tokens say where they come from (audit H1) and only their owner may ask about them
 * (audit L5): each token carries `env` and `aud` and is signed by its environment's key; the
 * JWKS publishes both keys marked with their environment; introspection and revocation answer
 * only the token's own tenant with a key of the token's environment, over REST and GraphQL.
 */
import { SignJWT, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { ServiceTokenSchema, SigningKeySchema } from '../../entities/service-token.entity.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { approvedToken } from './support.js';

const INTROSPECT = /* GraphQL */ `
  query ($token: String!) {
    introspectServiceToken(token: $token) {
      active
      status
      jti
      sessionId
      tenantId
      vendorData
      revokedAt
    }
  }
`;
const REVOKE = /* GraphQL */ `
  mutation ($token: String!, $reason: String!) {
    revokeServiceToken(token: $token, reason: $reason) {
      active
      status
      revokedAt
    }
  }
`;

/** What introspection answers for any token that is not the caller's: nothing but `invalid`. */
const INVALID_REST = { active: false, status: 'invalid' };
const INVALID_GRAPHQL = { active: false, status: 'invalid', jti: null, sessionId: null, tenantId: null, vendorData: null, revokedAt: null };

describe('service tokens are scoped to their tenant and environment', () => {
  let testApp: TestApp;
  let owner: TestTenant;
  let stranger: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    [owner, stranger] = await Promise.all([testApp.tenant('owner'), testApp.tenant('stranger')]);
  });
  afterAll(() => testApp.close());

  /** The key of `tenant` in `environment`. */
  const keyOf = (tenant: TestTenant, environment: ApiKeyEnvironment) => (environment === 'live' ? tenant.liveKey : tenant.sandboxKey);
  const other = (environment: ApiKeyEnvironment): ApiKeyEnvironment => (environment === 'live' ? 'sandbox' : 'live');

  /** Callers that are not the token's owner in its environment, by name. */
  const OUTSIDERS = [
    ['a key of the other environment of the same tenant', (env: ApiKeyEnvironment) => keyOf(owner, other(env))],
    ["another tenant's key of the same environment", (env: ApiKeyEnvironment) => keyOf(stranger, env)],
    ["another tenant's key of the other environment", (env: ApiKeyEnvironment) => keyOf(stranger, other(env))],
  ] as const;

  describe.each(['sandbox', 'live'] as const)('given a %s token', (environment) => {
    let token: string;
    let sessionId: string;

    beforeAll(async () => {
      ({ token, sessionId } = await approvedToken(testApp, owner, environment));
    });

    it('then it carries its environment, its tenant as audience and a kid of its environment', () => {
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({
        env: environment,
        aud: environment === 'live' ? `openkyc:service-token:${owner.id}` : `openkyc:service-token:sandbox:${owner.id}`,
        iss: 'openkyc',
        tenant_id: owner.id,
      });
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', kid: expect.stringMatching(new RegExp(`^${environment}-`)) });
    });

    it('then its stored row records the environment', async () => {
      const row = await testApp.app.orm.em.fork().findOneOrFail(ServiceTokenSchema, { jti: decodeJwt(token).jti! });
      expect(row).toMatchObject({ environment, tenantId: owner.id, sessionId });
    });

    it('when its own tenant introspects it with a key of its environment, then it is valid with its claims (REST and GraphQL)', async () => {
      const rest = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: keyOf(owner, environment), body: { token } });
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ active: true, status: 'valid', session_id: sessionId, tenant_id: owner.id });
      const graphql = await testApp.graphql(INTROSPECT, { token }, keyOf(owner, environment));
      expect(graphql.body.data.introspectServiceToken).toMatchObject({ active: true, status: 'valid', sessionId, tenantId: owner.id });
    });

    it.each(OUTSIDERS)('when %s introspects it, then it answers exactly as for a forged token (REST and GraphQL)', async (_name, key) => {
      const forged = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: key(environment), body: { token: `${token}x` } });
      const rest = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: key(environment), body: { token } });
      expect(rest.status).toBe(200);
      expect(rest.body).toEqual(INVALID_REST);
      expect(rest.body).toEqual(forged.body);
      const graphql = await testApp.graphql(INTROSPECT, { token }, key(environment));
      expect(graphql.body).toEqual({ data: { introspectServiceToken: INVALID_GRAPHQL } });
    });

    it.each(OUTSIDERS)(
      'when %s revokes it, then 404 not_found as for an unknown token, and it stays valid with no agent.revoked (REST and GraphQL)',
      async (_name, key) => {
        const rest = await testApp.rest('POST', '/v1/service-tokens/revoke', {
          key: key(environment),
          body: { token, reason: 'not mine' },
        });
        expect(rest.status).toBe(404);
        expect(rest.body).toMatchObject({ status: 404, code: 'not_found' });
        const unknown = await testApp.rest('POST', '/v1/service-tokens/revoke', {
          key: key(environment),
          body: { token: `${token}x`, reason: 'not mine' },
        });
        expect(unknown.body.detail).toBe(rest.body.detail);
        const graphql = await testApp.graphql(REVOKE, { token, reason: 'not mine' }, key(environment));
        expect(graphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
        const still = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: keyOf(owner, environment), body: { token } });
        expect(still.body).toMatchObject({ active: true, status: 'valid' });
        expect(await testApp.app.orm.em.fork().count(OutboxEventSchema, { sessionId, type: 'agent.revoked' })).toBe(0);
      },
    );

    it('when its own tenant revokes it with a key of its environment over GraphQL, then it is revoked once with agent.revoked', async () => {
      const { token: revocable, sessionId: revocableSession } = await approvedToken(testApp, owner, environment);
      const graphql = await testApp.graphql(REVOKE, { token: revocable, reason: 'account closed' }, keyOf(owner, environment));
      expect(graphql.body.data.revokeServiceToken).toMatchObject({ active: false, status: 'revoked', revokedAt: expect.any(Number) });
      const rest = await testApp.rest('POST', '/v1/service-tokens/revoke', {
        key: keyOf(owner, environment),
        body: { token: revocable, reason: 'again' },
      });
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ active: false, status: 'revoked', revoked_at: graphql.body.data.revokeServiceToken.revokedAt });
      expect(await testApp.app.orm.em.fork().count(OutboxEventSchema, { sessionId: revocableSession, type: 'agent.revoked' })).toBe(1);
    });
  });

  describe('given an expired sandbox token', () => {
    let token: string;

    beforeAll(async () => {
      // Re-signs an issued token's claims with an expiry in the past, with the server's own sandbox key.
      const issued = await approvedToken(testApp, owner, 'sandbox');
      const em = testApp.app.orm.em.fork();
      const row = await em.findOneOrFail(SigningKeySchema, { environment: 'sandbox', active: true });
      const key = await importJWK(JSON.parse(testApp.app.services.secrets.decrypt(row.privateKeyEncrypted)) as JWK, 'EdDSA');
      const { iat: _iat, exp: _exp, ...claims } = decodeJwt(issued.token);
      token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid: row.kid })
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
        .sign(key);
    });

    it('when its own tenant introspects it, then expired with its claims; to anyone else it is invalid', async () => {
      const own = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: owner.sandboxKey, body: { token } });
      expect(own.body).toMatchObject({ active: false, status: 'expired', tenant_id: owner.id });
      for (const key of [owner.liveKey, stranger.sandboxKey]) {
        const response = await testApp.rest('POST', '/v1/service-tokens/introspect', { key, body: { token } });
        expect(response.body).toEqual(INVALID_REST);
      }
    });
  });

  describe('given /.well-known/jwks.json', () => {
    let keys: Record<string, unknown>[];

    beforeAll(async () => {
      const response = await testApp.rest('GET', '/.well-known/jwks.json');
      expect(response.status).toBe(200);
      keys = response.body.keys;
    });

    it('then it publishes public Ed25519 keys only, each marked with the environment it signs for and a kid of that environment', () => {
      for (const key of keys) {
        expect(key).toMatchObject({
          kty: 'OKP',
          crv: 'Ed25519',
          alg: 'EdDSA',
          use: 'sig',
          env: expect.stringMatching(/^(live|sandbox|legacy)$/),
        });
        expect(key).not.toHaveProperty('d');
        if (key.env !== 'legacy') expect(String(key.kid).startsWith(`${key.env}-`)).toBe(true);
      }
      expect(new Set(keys.map((key) => key.kid)).size).toBe(keys.length);
    });

    it('then the kid of a live token is a live key and the kid of a sandbox token a sandbox key, and they differ', async () => {
      const [live, sandbox] = await Promise.all([approvedToken(testApp, owner, 'live'), approvedToken(testApp, owner, 'sandbox')]);
      const liveKid = decodeProtectedHeader(live.token).kid;
      const sandboxKid = decodeProtectedHeader(sandbox.token).kid;
      expect(liveKid).not.toBe(sandboxKid);
      expect(keys.find((key) => key.kid === liveKid)?.env).toBe('live');
      expect(keys.find((key) => key.kid === sandboxKid)?.env).toBe('sandbox');
    });
  });
});
