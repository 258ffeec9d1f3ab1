/**
 * A relying party verifies offline that a service token is live, with jose against the real
 * `/.well-known/jwks.json`: the code below is the example of docs/service-tokens.md, run as is.
 */
import { SignJWT, createRemoteJWKSet, decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKeySchema } from '../../entities/service-token.entity.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { approvedToken } from './support.js';

/** docs/service-tokens.md: a verifier that accepts only live service tokens addressed to one application. */
function liveTokenVerifier(openkycUrl: string, myApplicationId: string) {
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', openkycUrl));

  // Resolves a token's key only when the JWKS marks that key as a live signing key.
  const liveKeys: JWTVerifyGetKey = async (header, token) => {
    const key = await jwks(header, token);
    const jwk = jwks.jwks()?.keys.find((candidate) => candidate.kid === header.kid) as (JWK & { env?: string }) | undefined;
    if (jwk?.env !== 'live') throw new Error(`key ${header.kid} does not sign live tokens`);
    return key;
  };

  return async function verifyLiveServiceToken(token: string) {
    const { payload } = await jwtVerify(token, liveKeys, {
      issuer: 'openkyc',
      audience: `openkyc:service-token:${myApplicationId}`,
      algorithms: ['EdDSA'],
    });
    if (payload.env !== 'live') throw new Error('not a live service token');
    return payload; // session_id, vendor_data, compliance_level, workflow_id, …
  };
}

/** The token with its protected header's `kid` replaced, signature untouched. */
function withKid(token: string, kid: string): string {
  const [, payload, signature] = token.split('.');
  const header = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(token), kid })).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

describe('offline verification that a service token is live', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let verifyLive: (token: string) => Promise<Record<string, unknown>>;
  let live: { sessionId: string; token: string };
  let sandbox: { sessionId: string; token: string };

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    verifyLive = liveTokenVerifier(testApp.url, tenant.id);
    [live, sandbox] = await Promise.all([approvedToken(testApp, tenant, 'live'), approvedToken(testApp, tenant, 'sandbox')]);
  });
  afterAll(() => testApp.close());

  it('given a live token, when verified against the JWKS endpoint, then it verifies as live with its subject', async () => {
    const payload = await verifyLive(live.token);
    expect(payload).toMatchObject({ env: 'live', session_id: live.sessionId, tenant_id: tenant.id, compliance_level: 'basic' });
  });

  it('given a sandbox token, when verified, then its signature is good but the live check refuses it', async () => {
    const { payload } = await jwtVerify(sandbox.token, createRemoteJWKSet(new URL('/.well-known/jwks.json', testApp.url)));
    expect(payload.env).toBe('sandbox');
    await expect(verifyLive(sandbox.token)).rejects.toThrow(/does not sign live tokens/);
  });

  it("given a sandbox token whose header kid is changed to the live key's, when verified, then the signature fails", async () => {
    const tampered = withKid(sandbox.token, decodeProtectedHeader(live.token).kid!);
    await expect(verifyLive(tampered)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it("given a live token whose header kid is changed to the sandbox key's, when verified, then it is refused", async () => {
    const tampered = withKid(live.token, decodeProtectedHeader(sandbox.token).kid!);
    await expect(verifyLive(tampered)).rejects.toThrow(/does not sign live tokens/);
  });

  it('given a token claiming env live but signed with the sandbox key, when verified, then the key check refuses it', async () => {
    const row = await testApp.app.orm.em.fork().findOneOrFail(SigningKeySchema, { environment: 'sandbox', active: true });
    const sandboxKey = await importJWK(JSON.parse(testApp.app.services.secrets.decrypt(row.privateKeyEncrypted)) as JWK, 'EdDSA');
    const forged = await new SignJWT({ env: 'live', tenant_id: tenant.id })
      .setProtectedHeader({ alg: 'EdDSA', kid: row.kid })
      .setIssuer('openkyc')
      .setAudience(`openkyc:service-token:${tenant.id}`)
      .setExpirationTime('1h')
      .sign(sandboxKey);
    await expect(verifyLive(forged)).rejects.toThrow(/does not sign live tokens/);
  });

  it("given another application's live token, when verified, then the audience check refuses it", async () => {
    const other = await testApp.tenant();
    const { token } = await approvedToken(testApp, other, 'live');
    await expect(verifyLive(token)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  });
});
