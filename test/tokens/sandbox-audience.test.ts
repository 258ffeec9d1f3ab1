/**
 * Sandbox service tokens and the live audience (audit N9, shaped like its `h1_naive_verify.mjs`): an
 * offline check of signature, issuer and the live audience, with jose and nothing else, accepts a
 * live token and refuses a sandbox one, for tokens issued now and for those issued before the
 * upgrade (Migration20261127000100H28SandboxAudience retires the sandbox key that signed them with
 * the live audience from the JWKS; introspection still answers for them).
 * Runs on a fresh database of its own: in-memory PGlite, or with DATABASE_URL a scratch database.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceSecrets } from '../../src/auth/secrets.js';
import type { Database } from '../../src/db/database.js';
import { ServiceTokens, type SubjectClaims } from '../../src/sessions/service-tokens.js';
import { openScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

/** The migration before the one under test: the database as the previous release left it. */
const PREVIOUS_MIGRATION = 'Migration20261126210000H27Flows';

const secrets = createServiceSecrets('test-master-key-not-for-production-0123456789');
let scratch: ScratchDatabase;
let database: Database;
let tokens: ServiceTokens;
const tenantId = randomUUID();
const oldSandboxKid = `sandbox-${randomUUID()}`;
/** The relying party's naive check: signature against the published JWKS, issuer and its live audience. */
const naiveCheck = (token: string) =>
  jwtVerify(token, createLocalJWKSet(tokens.publicKeys()), { issuer: 'openkyc', audience: `openkyc:service-token:${tenantId}` });
/** A sandbox token the previous release issued: the sandbox key, `env: sandbox`, and the live audience. */
const before = { sessionId: randomUUID(), jti: randomUUID(), token: '' };

/** Inserts an approved session of `environment` (the tokens' foreign key) and returns its id. */
async function approvedSession(environment: 'live' | 'sandbox', sessionId = randomUUID()): Promise<string> {
  await database.orm.em.fork().execute(
    `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, compliance_level, expires_at)
       values (?, ?, ?, 'aud_wf', ?, 'approved', 'basic', now() + interval '1 day')`,
    [sessionId, tenantId, environment, `aud-${sessionId}`],
    'run',
  );
  return sessionId;
}

beforeAll(async () => {
  scratch = await openScratchDatabase('tokens_audience', { migrate: false });
  database = scratch.database;
  await database.orm.migrator.up({ to: PREVIOUS_MIGRATION });
  const em = database.orm.em.fork();
  // The previous release's sandbox key, as ServiceTokens.createKey made it.
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true, crv: 'Ed25519' });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: oldSandboxKid, alg: 'EdDSA', use: 'sig' };
  await em.execute(
    `insert into signing_key (kid, environment, algorithm, public_jwk, private_key_encrypted, active, created_at)
     values (?, 'sandbox', 'EdDSA', ?, ?, true, now())`,
    [oldSandboxKid, JSON.stringify(publicJwk), secrets.encrypt(JSON.stringify(await exportJWK(privateKey)))],
    'run',
  );
  await em.execute(`insert into tenant (id, name, callback_secret, created_at) values (?, 'aud', 'secret', now())`, [tenantId], 'run');
  await em.execute(
    `insert into workflow (id, tenant_id, environment, name, type, built_in, nodes, compliance_level)
     values ('aud_wf', ?, 'sandbox', 'aud', 'user', false, '[]', 'basic')`,
    [tenantId],
    'run',
  );
  await approvedSession('sandbox', before.sessionId);
  before.token = await new SignJWT({
    session_id: before.sessionId,
    tenant_id: tenantId,
    workflow_id: 'aud_wf',
    compliance_level: 'basic',
    vendor_data: `aud-${before.sessionId}`,
    env: 'sandbox',
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: oldSandboxKid, typ: 'JWT' })
    .setIssuer('openkyc')
    .setAudience(`openkyc:service-token:${tenantId}`)
    .setSubject(before.sessionId)
    .setJti(before.jti)
    .setIssuedAt()
    .setExpirationTime('1y')
    .sign(privateKey);
  await em.execute(
    `insert into service_token (jti, session_id, tenant_id, environment, token_encrypted, issued_at, expires_at)
     values (?, ?, ?, 'sandbox', ?, now(), now() + interval '1 year')`,
    [before.jti, before.sessionId, tenantId, secrets.encrypt(before.token)],
    'run',
  );
  await database.orm.migrator.up();
  tokens = new ServiceTokens(secrets);
  await tokens.init(database.orm.em.fork());
}, 120_000);

afterAll(async () => {
  await scratch?.drop();
});

/** Issues and stores a token for a new approved session of `environment`. */
async function issue(environment: 'live' | 'sandbox'): Promise<string> {
  const sessionId = await approvedSession(environment);
  const em = database.orm.em.fork();
  const claims: SubjectClaims = {
    session_id: sessionId,
    tenant_id: tenantId,
    workflow_id: 'aud_wf',
    compliance_level: 'basic',
    vendor_data: `aud-${sessionId}`,
    env: environment,
  };
  const token = await tokens.issue(em, claims);
  await em.flush();
  return token;
}

describe('an offline check of signature, issuer and the live audience (jose.jwtVerify)', () => {
  it('given a live token, then it is accepted; given a sandbox token, then the audience check refuses it', async () => {
    const live = await issue('live');
    const sandbox = await issue('sandbox');

    const accepted = await naiveCheck(live);

    expect(accepted.payload).toMatchObject({ env: 'live', aud: `openkyc:service-token:${tenantId}` });
    expect(decodeJwt(sandbox).aud).toBe(`openkyc:service-token:sandbox:${tenantId}`);
    await expect(naiveCheck(sandbox)).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
    // Its own audience, checked the same naive way, is how a sandbox integration verifies its test tokens.
    const ownAudience = await jwtVerify(sandbox, createLocalJWKSet(tokens.publicKeys()), {
      issuer: 'openkyc',
      audience: `openkyc:service-token:sandbox:${tenantId}`,
    });
    expect(ownAudience.payload.env).toBe('sandbox');
  });

  it('given a sandbox token issued before the upgrade (live audience), then its key is no longer published and the naive check refuses it; introspection still says valid', async () => {
    expect(tokens.publicKeys().keys.map((key) => key.kid)).not.toContain(oldSandboxKid);
    expect(decodeProtectedHeader(await issue('sandbox')).kid).not.toBe(oldSandboxKid);

    await expect(naiveCheck(before.token)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    const introspected = await tokens.introspect(database.orm.em.fork(), { tenantId, environment: 'sandbox' }, before.token);
    expect(introspected).toMatchObject({ active: true, status: 'valid', claims: { env: 'sandbox', session_id: before.sessionId } });
    const asLive = await tokens.introspect(database.orm.em.fork(), { tenantId, environment: 'live' }, before.token);
    expect(asLive.status).toBe('invalid');
  });
});
