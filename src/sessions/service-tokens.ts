/**
 * Raw SQL: (b) the first signing key is `insert … on conflict (environment) where active do
 * nothing` (a partial unique index).
 */
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SignJWT,
  createLocalJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { API_KEY_ENVIRONMENTS, type ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { ServiceTokenSchema, SigningKeySchema, type ServiceToken, type SigningKey } from '../../entities/service-token.entity.js';
import { agentRevoked } from '../domain/events.js';
import type { TenantScope } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { ApiError, notFound } from '../shared/errors.js';
import { transactionWithEvents, type EventBatch, type EventBus } from '../events/outbox.js';

/**
 * The current (newest unrevoked) service token of each session, decrypted; sessions without one
 * are absent. The one read of "the session's token" for the API's loader and the decision snapshots.
 */
export async function currentTokens(
  em: EntityManager,
  secrets: ServiceSecrets,
  sessionIds: readonly string[],
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  if (sessionIds.length === 0) return tokens;
  const rows = await em.find(
    ServiceTokenSchema,
    { sessionId: { $in: [...sessionIds] }, revokedAt: null },
    { orderBy: { issuedAt: 'desc' } },
  );
  for (const row of rows) if (!tokens.has(row.sessionId)) tokens.set(row.sessionId, secrets.decrypt(row.tokenEncrypted));
  return tokens;
}

/** Signature algorithm of service tokens. */
export const SERVICE_TOKEN_ALGORITHM = 'EdDSA';
/** Issuer claim of service tokens. */
export const SERVICE_TOKEN_ISSUER = 'openkyc';
/** Lifetime of a service token, in seconds (one year). */
export const SERVICE_TOKEN_TTL_SECONDS = 365 * 24 * 3600;
/** Prefix of the audience claim; the tenant id follows it (see {@link serviceTokenAudience}). */
export const SERVICE_TOKEN_AUDIENCE_PREFIX = 'openkyc:service-token:';
/**
 * The `env` member of a published key that signed tokens of both environments before they had
 * keys of their own: it vouches for neither, signs nothing any more, and stays published so the
 * tokens it signed still verify.
 */
export const LEGACY_KEY_ENVIRONMENT = 'legacy';

/** Which tokens a published key vouches for. */
export type SigningKeyEnvironment = ApiKeyEnvironment | typeof LEGACY_KEY_ENVIRONMENT;

/** A public key as `/.well-known/jwks.json` publishes it: the JWK plus the environment it signs for. */
export type ServiceTokenJwk = JWK & { env: SigningKeyEnvironment };

/**
 * The audience of a tenant's service tokens of one environment: the application the verification
 * was run for, and for sandbox the environment too (audit N9). A relying party that checks the
 * live audience accepts no token minted by another tenant of the same server, nor any sandbox
 * token. Live keeps the audience it always had, so existing live checks go on working.
 */
export function serviceTokenAudience(tenantId: string, environment: ApiKeyEnvironment = 'live'): string {
  return environment === 'live'
    ? `${SERVICE_TOKEN_AUDIENCE_PREFIX}${tenantId}`
    : `${SERVICE_TOKEN_AUDIENCE_PREFIX}${environment}:${tenantId}`;
}

/** What a service token says about the verified subject, and the environment that verified it. */
export interface SubjectClaims {
  session_id: string;
  tenant_id: string;
  workflow_id: string;
  compliance_level: string;
  vendor_data: string;
  /** `live` or `sandbox`: the environment of the session, so a relying party can refuse sandbox approvals. */
  env: ApiKeyEnvironment;
}

/** Every claim of a verified service token: the subject's plus the registered JWT claims (`env` absent on legacy tokens). */
export type ServiceTokenClaims = Omit<SubjectClaims, 'env'> & { env?: ApiKeyEnvironment } & JWTPayload;

/** Who asks about a token: only its own tenant, with a key of the token's environment, learns anything. */
export type TokenScope = TenantScope;

/** A key jose can sign with. */
type SigningKeyMaterial = Awaited<ReturnType<typeof importJWK>>;

/** What introspection says of a token. */
export interface Introspection {
  /** True only when the signature verifies, it has not expired and it is not revoked. */
  active: boolean;
  status: 'valid' | 'expired' | 'revoked' | 'invalid';
  claims: ServiceTokenClaims | null;
  /** Unix seconds, when revoked. */
  revokedAt: number | null;
}

/** The answer for anything that is not one of the caller's tokens: it says nothing more. */
const INVALID: Introspection = { active: false, status: 'invalid', claims: null, revokedAt: null };

/** A token whose signature verified, with the environment its key vouches for. */
interface VerifiedToken {
  claims: ServiceTokenClaims;
  /** Null when the legacy key signed it: the stored row then says the environment. */
  environment: ApiKeyEnvironment | null;
  expired: boolean;
}

/**
 * Signs and verifies service tokens with EdDSA keys kept encrypted in the database: one signing
 * key per environment, so a sandbox token can never pass for a live one (audit H1).
 */
export class ServiceTokens {
  private signing = new Map<ApiKeyEnvironment, { kid: string; key: SigningKeyMaterial }>();
  private jwks: { keys: ServiceTokenJwk[] } | undefined;
  private keySet: JWTVerifyGetKey | undefined;
  private keyEnvironments = new Map<string, SigningKeyEnvironment>();
  /** Keys kept for introspection only (not in the JWKS): the sandbox key retired by the N9 migration. */
  private unpublishedKids = new Set<string>();

  constructor(private readonly secrets: ServiceSecrets) {}

  /** Loads each environment's signing key, generating the missing ones. Call once at start-up. */
  async init(em: EntityManager): Promise<void> {
    for (const environment of API_KEY_ENVIRONMENTS) {
      const row = (await this.activeKey(em, environment)) ?? (await this.createKey(em, environment));
      const privateJwk = JSON.parse(this.secrets.decrypt(row.privateKeyEncrypted)) as JWK;
      this.signing.set(environment, { kid: row.kid, key: await importJWK(privateJwk, SERVICE_TOKEN_ALGORITHM) });
    }
    const all = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc', kid: 'asc' } });
    this.keyEnvironments = new Map(all.map((row) => [row.kid, row.environment ?? LEGACY_KEY_ENVIRONMENT]));
    this.unpublishedKids = new Set(all.filter((row) => !row.published).map((row) => row.kid));
    const jwkOf = (row: SigningKey): ServiceTokenJwk => ({ ...(row.publicJwk as JWK), env: row.environment ?? LEGACY_KEY_ENVIRONMENT });
    this.jwks = { keys: all.filter((row) => row.published).map(jwkOf) };
    // Introspection verifies with every key, the unpublished ones included.
    this.keySet = createLocalJWKSet({ keys: all.map(jwkOf) });
  }

  /** The signing key of an environment, if one exists. */
  private activeKey(em: EntityManager, environment: ApiKeyEnvironment): Promise<SigningKey | null> {
    return em.findOne(SigningKeySchema, { environment, active: true });
  }

  /**
   * Generates an environment's signing key. Instances starting together on one database race
   * here: the unique index on active keys per environment keeps the first, and every instance
   * then signs with it.
   */
  private async createKey(em: EntityManager, environment: ApiKeyEnvironment): Promise<SigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(SERVICE_TOKEN_ALGORITHM, { extractable: true, crv: 'Ed25519' });
    // The prefix lets a person reading a token header or a log tell the environment at a glance.
    const kid = `${environment}-${randomUUID()}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SERVICE_TOKEN_ALGORITHM, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    await em.execute(
      `insert into signing_key (kid, environment, algorithm, public_jwk, private_key_encrypted, active, created_at)
       values (?, ?, ?, ?, ?, true, now())
       on conflict (environment) where active do nothing`,
      [kid, environment, SERVICE_TOKEN_ALGORITHM, JSON.stringify(publicJwk), this.secrets.encrypt(JSON.stringify(privateJwk))],
      'run',
    );
    const row = await this.activeKey(em, environment);
    if (!row) throw new Error(`No ${environment} signing key after creating one`);
    return row;
  }

  /** The public keys (JWKS) that verify every token this service issued, each marked with its `env`. */
  publicKeys(): { keys: ServiceTokenJwk[] } {
    if (!this.jwks) throw new Error('ServiceTokens.init() was not called');
    return this.jwks;
  }

  /** Issues and stores a token for an approved session, signed by its environment's key; returns the compact JWT. */
  async issue(em: EntityManager, claims: SubjectClaims): Promise<string> {
    const signing = this.signing.get(claims.env);
    if (!signing) throw new Error('ServiceTokens.init() was not called');
    const jti = randomUUID();
    const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiresAt = new Date(issuedAt.getTime() + SERVICE_TOKEN_TTL_SECONDS * 1000);
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: SERVICE_TOKEN_ALGORITHM, kid: signing.kid, typ: 'JWT' })
      .setIssuer(SERVICE_TOKEN_ISSUER)
      .setAudience(serviceTokenAudience(claims.tenant_id, claims.env))
      .setSubject(claims.session_id)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(signing.key);
    em.create(ServiceTokenSchema, {
      jti,
      sessionId: claims.session_id,
      tenantId: claims.tenant_id,
      environment: claims.env,
      tokenEncrypted: this.secrets.encrypt(token),
      issuedAt,
      expiresAt,
    });
    return token;
  }

  /**
   * Checks the signature and that the claims agree with the key: a live or sandbox key signs
   * only tokens of its environment addressed to their tenant; the legacy key only tokens from
   * before environments had keys (no `env`). Null for anything else.
   */
  private async verify(token: string): Promise<VerifiedToken | null> {
    if (!this.keySet) throw new Error('ServiceTokens.init() was not called');
    let claims: ServiceTokenClaims;
    let kid: string | undefined;
    let expired = false;
    try {
      const verified = await jwtVerify<ServiceTokenClaims>(token, this.keySet, {
        issuer: SERVICE_TOKEN_ISSUER,
        algorithms: [SERVICE_TOKEN_ALGORITHM],
      });
      claims = verified.payload;
      kid = verified.protectedHeader.kid;
    } catch (error) {
      if (!(error instanceof joseErrors.JWTExpired)) return null;
      // jose checks the signature and the issuer before the expiry, so these claims are ours.
      claims = error.payload as ServiceTokenClaims;
      kid = decodeProtectedHeader(token).kid;
      expired = true;
    }
    const keyEnvironment = kid === undefined ? undefined : this.keyEnvironments.get(kid);
    if (!keyEnvironment || typeof claims.jti !== 'string' || typeof claims.tenant_id !== 'string') return null;
    if (keyEnvironment === LEGACY_KEY_ENVIRONMENT) return claims.env === undefined ? { claims, environment: null, expired } : null;
    // A retired sandbox key signed its tokens with the live audience, before sandbox had its own.
    const audienceOk =
      claims.aud === serviceTokenAudience(claims.tenant_id, keyEnvironment) ||
      (this.unpublishedKids.has(kid!) && claims.aud === serviceTokenAudience(claims.tenant_id, 'live'));
    if (claims.env !== keyEnvironment || !audienceOk) return null;
    return { claims, environment: keyEnvironment, expired };
  }

  /**
   * Says whether a token is valid, expired, revoked or invalid. Only the token's own tenant, with
   * a key of the token's environment, learns its state: to anyone else it is `invalid`, exactly
   * as a forged or malformed token is (audit L5, H1).
   */
  async introspect(em: EntityManager, scope: TokenScope, token: string): Promise<Introspection> {
    const verified = await this.verify(token);
    if (!verified) return INVALID;
    const { claims, expired } = verified;
    if (claims.tenant_id !== scope.tenantId || (verified.environment ?? scope.environment) !== scope.environment) return INVALID;
    // The stored row is the authority on the environment, and the only one for legacy tokens.
    const row = await em.findOne(ServiceTokenSchema, { jti: claims.jti!, tenantId: scope.tenantId, environment: scope.environment });
    if (!row) return INVALID;
    if (row.revokedAt) return { active: false, status: 'revoked', claims, revokedAt: Math.floor(row.revokedAt.getTime() / 1000) };
    if (expired) return { active: false, status: 'expired', claims, revokedAt: null };
    return { active: true, status: 'valid', claims, revokedAt: null };
  }

  /**
   * Revokes a token of the calling tenant and environment and records `agent.revoked` in the
   * outbox, in one transaction. Another tenant's or environment's token is a 404, like an unknown
   * one. Revoking twice keeps the first revocation.
   */
  async revoke(em: EntityManager, bus: EventBus, scope: TokenScope, token: string, reason: string): Promise<Introspection> {
    const state = await this.introspect(em, scope, token);
    if (!state.claims) throw notFound('Service token');
    if (!reason.trim())
      throw new ApiError('validation_failed', 'A reason is required.', [
        { field: 'reason', code: 'required', message: 'reason is required' },
      ]);
    const { jti, vendor_data: vendorData } = state.claims;
    await transactionWithEvents(em, bus, (tx, events) => revokeTokens(tx, events, { jti: jti!, vendorData }, reason.trim()));
    return this.introspect(em.fork(), scope, token);
  }
}

/**
 * Which tokens {@link revokeTokens} revokes: one by its id, or every current one of a session;
 * with the session's vendor_data, which `agent.revoked` carries.
 */
export type TokenRevocation = ({ jti: string } | { sessionId: string }) & { vendorData: string };

/**
 * The one revoke path (a relying party's revoke, monitoring's reopen): revokes the unrevoked
 * tokens `which` names and records one `agent.revoked` per token, in the caller's transaction.
 * The rows are locked, so of two concurrent revocations the first one's reason and time stay.
 */
export async function revokeTokens(tx: EntityManager, events: EventBatch, which: TokenRevocation, reason: string): Promise<ServiceToken[]> {
  const where = 'jti' in which ? { jti: which.jti } : { sessionId: which.sessionId };
  const rows = await tx.find(ServiceTokenSchema, { ...where, revokedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const revokedAt = new Date();
  for (const row of rows) {
    row.revokedAt = revokedAt;
    row.revokedReason = reason;
    events.record(tx, {
      tenantId: row.tenantId,
      environment: row.environment,
      sessionId: row.sessionId,
      ...agentRevoked({ jti: row.jti, sessionId: row.sessionId, vendorData: which.vendorData }, reason, revokedAt),
    });
  }
  return rows;
}
