/**
 * Migration20261123000200ServiceTokenEnvironments on a database whose one signing key signed
 * sandbox and live tokens alike: the key is retired from signing and stays published as
 * `env: "legacy"`, each stored token takes its session's environment, new keys are made per
 * environment, and the legacy tokens still introspect for their own tenant and environment only.
 * Runs on a fresh database of its own: in-memory PGlite, or with DATABASE_URL a scratch database.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { ServiceTokenSchema, SigningKeySchema } from '../../entities/service-token.entity.js';
import { createServiceSecrets } from '../../src/auth/secrets.js';
import type { Database } from '../../src/db/database.js';
import { ServiceTokens } from '../../src/sessions/service-tokens.js';
import { openScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

/** The migration before this one: the database as the previous release left it. */
const PREVIOUS_MIGRATION = 'Migration20261122001300AmlRescreenRequests';

const secrets = createServiceSecrets('test-master-key-not-for-production-0123456789');
let scratch: ScratchDatabase;
let database: Database;
const tenantId = randomUUID();
const legacyKid = randomUUID();
/** A token the legacy key signed for a session of each environment, as the previous release issued them. */
const legacy = {} as Record<ApiKeyEnvironment, { sessionId: string; jti: string; token: string }>;

beforeAll(async () => {
  scratch = await openScratchDatabase('tokens_migration', { migrate: false });
  database = scratch.database;
  await database.orm.migrator.up({ to: PREVIOUS_MIGRATION });
  const em = database.orm.em.fork();
  // The previous release's key: a bare uuid kid, active, signing every environment.
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true, crv: 'Ed25519' });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: legacyKid, alg: 'EdDSA', use: 'sig' };
  await em.execute(
    `insert into signing_key (kid, algorithm, public_jwk, private_key_encrypted, active, created_at) values (?, 'EdDSA', ?, ?, true, now())`,
    [legacyKid, JSON.stringify(publicJwk), secrets.encrypt(JSON.stringify(await exportJWK(privateKey)))],
    'run',
  );
  await em.execute(`insert into tenant (id, name, callback_secret, created_at) values (?, 'legacy', 'secret', now())`, [tenantId], 'run');
  await em.execute(
    `insert into workflow (id, tenant_id, name, type, built_in, nodes, compliance_level) values ('legacy_wf', ?, 'legacy', 'user', false, '[]', 'basic')`,
    [tenantId],
    'run',
  );
  for (const environment of ['live', 'sandbox'] as const) {
    const sessionId = randomUUID();
    const jti = randomUUID();
    await em.execute(
      `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, compliance_level, expires_at)
       values (?, ?, ?, 'legacy_wf', ?, 'approved', 'basic', now() + interval '1 day')`,
      [sessionId, tenantId, environment, `legacy-${environment}`],
      'run',
    );
    // Exactly the claims the previous release signed: no env, no aud.
    const token = await new SignJWT({
      session_id: sessionId,
      tenant_id: tenantId,
      workflow_id: 'legacy_wf',
      compliance_level: 'basic',
      vendor_data: `legacy-${environment}`,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: legacyKid, typ: 'JWT' })
      .setIssuer('openkyc')
      .setSubject(sessionId)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime('1y')
      .sign(privateKey);
    await em.execute(
      `insert into service_token (jti, session_id, tenant_id, token_encrypted, issued_at, expires_at) values (?, ?, ?, ?, now(), now() + interval '1 year')`,
      [jti, sessionId, tenantId, secrets.encrypt(token)],
      'run',
    );
    legacy[environment] = { sessionId, jti, token };
  }
  await database.orm.migrator.up();
}, 120_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('the legacy signing key after the service-token environments migration', () => {
  let tokens: ServiceTokens;

  beforeAll(async () => {
    // Two instances starting at once on the migrated database: both must settle on one key per environment.
    const instances = [new ServiceTokens(secrets), new ServiceTokens(secrets)];
    await Promise.all(instances.map((instance) => instance.init(database.orm.em.fork())));
    tokens = instances[0]!;
    const kids = instances.map((instance) =>
      instance
        .publicKeys()
        .keys.map((key) => key.kid)
        .sort(),
    );
    expect(kids[1]).toEqual(kids[0]);
  });

  it('given the migrated rows, then each stored token has its session environment and the legacy key signs nothing', async () => {
    const em = database.orm.em.fork();
    for (const environment of ['live', 'sandbox'] as const) {
      expect((await em.findOneOrFail(ServiceTokenSchema, { jti: legacy[environment].jti })).environment).toBe(environment);
    }
    expect(await em.findOneOrFail(SigningKeySchema, { kid: legacyKid })).toMatchObject({ environment: null, active: false });
    expect(await em.count(SigningKeySchema, { active: true })).toBe(2);
  });

  it('given the JWKS, then it publishes the legacy key marked legacy and one new key per environment', () => {
    const published = tokens.publicKeys().keys.map((key) => [key.env, key.env === 'legacy' ? key.kid : String(key.kid).split('-')[0]]);
    expect(published.sort()).toEqual([
      ['legacy', legacyKid],
      ['live', 'live'],
      ['sandbox', 'sandbox'],
    ]);
  });

  it('given a legacy token, when its tenant introspects it with a key of its environment, then valid; with the other environment, invalid', async () => {
    for (const environment of ['live', 'sandbox'] as const) {
      const other = environment === 'live' ? 'sandbox' : 'live';
      const own = await tokens.introspect(database.orm.em.fork(), { tenantId, environment }, legacy[environment].token);
      expect(own).toMatchObject({ active: true, status: 'valid', claims: { session_id: legacy[environment].sessionId } });
      const crossed = await tokens.introspect(database.orm.em.fork(), { tenantId, environment: other }, legacy[environment].token);
      expect(crossed).toEqual({ active: false, status: 'invalid', claims: null, revokedAt: null });
      const stranger = await tokens.introspect(database.orm.em.fork(), { tenantId: randomUUID(), environment }, legacy[environment].token);
      expect(stranger.status).toBe('invalid');
    }
  });

  it('given a new approval, when a token is issued, then the key of its environment signs it, not the legacy key', async () => {
    const em = database.orm.em.fork();
    const token = await tokens.issue(em, {
      session_id: legacy.live.sessionId,
      tenant_id: tenantId,
      workflow_id: 'legacy_wf',
      compliance_level: 'basic',
      vendor_data: 'legacy-live',
      env: 'live',
    });
    await em.flush();
    expect(decodeProtectedHeader(token).kid).toMatch(/^live-/);
    expect(await tokens.introspect(database.orm.em.fork(), { tenantId, environment: 'live' }, token)).toMatchObject({ status: 'valid' });
  });
});
