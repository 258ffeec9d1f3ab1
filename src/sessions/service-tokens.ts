import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SignJWT,
  createLocalJWKSet,
  errors as joseErrors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  decodeJwt,
  type JWK,
  type JWTPayload,
} from 'jose';
import { ServiceTokenSchema, SigningKeySchema } from '../../entities/service-token.entity.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { ApiError, notFound } from '../errors.js';
import { transactionWithEvents, type EventBus } from '../events/outbox.js';

/** Signature algorithm of service tokens. */
export const SERVICE_TOKEN_ALGORITHM = 'EdDSA';
/** Issuer claim of service tokens. */
export const SERVICE_TOKEN_ISSUER = 'openkyc';
/** Lifetime of a service token, in seconds (one year). */
export const SERVICE_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

/** What a service token says about the verified subject. */
export interface SubjectClaims {
  session_id: string;
  tenant_id: string;
  workflow_id: string;
  compliance_level: string;
  vendor_data: string;
}

/** Every claim of a service token: the subject's plus the registered JWT claims. */
export type ServiceTokenClaims = SubjectClaims & JWTPayload;

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

/** Signs and verifies service tokens with EdDSA keys kept encrypted in the database. */
export class ServiceTokens {
  private signing: { kid: string; key: SigningKeyMaterial } | undefined;
  private jwks: { keys: JWK[] } | undefined;

  constructor(private readonly secrets: ServiceSecrets) {}

  /** Loads the active signing key, generating one on first start. Call once at start-up. */
  async init(em: EntityManager): Promise<void> {
    let active = await em.findOne(SigningKeySchema, { active: true }, { orderBy: { createdAt: 'desc' } });
    if (!active) {
      const { publicKey, privateKey } = await generateKeyPair(SERVICE_TOKEN_ALGORITHM, { extractable: true, crv: 'Ed25519' });
      const kid = randomUUID();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SERVICE_TOKEN_ALGORITHM, use: 'sig' };
      const privateJwk = await exportJWK(privateKey);
      active = em.create(SigningKeySchema, {
        kid,
        algorithm: SERVICE_TOKEN_ALGORITHM,
        publicJwk,
        privateKeyEncrypted: this.secrets.encrypt(JSON.stringify(privateJwk)),
        active: true,
        createdAt: new Date(),
      });
      await em.flush();
    }
    const privateJwk = JSON.parse(this.secrets.decrypt(active.privateKeyEncrypted)) as JWK;
    this.signing = { kid: active.kid, key: await importJWK(privateJwk, SERVICE_TOKEN_ALGORITHM) };
    const all = await em.find(SigningKeySchema, {}, { orderBy: { createdAt: 'desc' } });
    this.jwks = { keys: all.map((row) => row.publicJwk as JWK) };
  }

  /** The public keys (JWKS) that verify every token this service issued. */
  publicKeys(): { keys: JWK[] } {
    if (!this.jwks) throw new Error('ServiceTokens.init() was not called');
    return this.jwks;
  }

  /** Issues and stores a token for an approved session; returns the compact JWT. */
  async issue(em: EntityManager, claims: SubjectClaims): Promise<string> {
    if (!this.signing) throw new Error('ServiceTokens.init() was not called');
    const jti = randomUUID();
    const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiresAt = new Date(issuedAt.getTime() + SERVICE_TOKEN_TTL_SECONDS * 1000);
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: SERVICE_TOKEN_ALGORITHM, kid: this.signing.kid, typ: 'JWT' })
      .setIssuer(SERVICE_TOKEN_ISSUER)
      .setSubject(claims.session_id)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.signing.key);
    em.create(ServiceTokenSchema, {
      jti,
      sessionId: claims.session_id,
      tenantId: claims.tenant_id,
      tokenEncrypted: this.secrets.encrypt(token),
      issuedAt,
      expiresAt,
    });
    return token;
  }

  /** The token of a session, decrypted, when one was issued and not revoked. */
  async tokenOfSession(em: EntityManager, sessionId: string): Promise<string | null> {
    const row = await em.findOne(ServiceTokenSchema, { sessionId, revokedAt: null }, { orderBy: { issuedAt: 'desc' } });
    return row ? this.secrets.decrypt(row.tokenEncrypted) : null;
  }

  /** Says whether a token is valid, expired, revoked or invalid (bad signature, not ours, malformed). */
  async introspect(em: EntityManager, token: string): Promise<Introspection> {
    const invalid: Introspection = { active: false, status: 'invalid', claims: null, revokedAt: null };
    let claims: ServiceTokenClaims;
    let expired = false;
    try {
      ({ payload: claims } = await jwtVerify<ServiceTokenClaims>(token, createLocalJWKSet(this.publicKeys()), {
        issuer: SERVICE_TOKEN_ISSUER,
        algorithms: [SERVICE_TOKEN_ALGORITHM],
      }));
    } catch (error) {
      if (!(error instanceof joseErrors.JWTExpired)) return invalid;
      // The signature verified before the expiry check failed, so the claims are ours.
      claims = decodeJwt(token) as ServiceTokenClaims;
      expired = true;
    }
    if (!claims.jti) return invalid;
    const row = await em.findOne(ServiceTokenSchema, { jti: claims.jti });
    if (!row) return invalid;
    if (row.revokedAt) return { active: false, status: 'revoked', claims, revokedAt: Math.floor(row.revokedAt.getTime() / 1000) };
    if (expired) return { active: false, status: 'expired', claims, revokedAt: null };
    return { active: true, status: 'valid', claims, revokedAt: null };
  }

  /**
   * Revokes a token of the calling tenant and records `agent.revoked` in the outbox, in one
   * transaction. Another tenant's token is a 404. Revoking twice keeps the first revocation.
   */
  async revoke(em: EntityManager, bus: EventBus, tenantId: string, token: string, reason: string): Promise<Introspection> {
    const state = await this.introspect(em, token);
    if (!state.claims || state.claims.tenant_id !== tenantId) throw notFound('Service token');
    if (!reason.trim())
      throw new ApiError('validation_failed', 'A reason is required.', [
        { field: 'reason', code: 'required', message: 'reason is required' },
      ]);
    await transactionWithEvents(em, bus, async (tx, events) => {
      const row = await tx.findOneOrFail(ServiceTokenSchema, { jti: state.claims!.jti! }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (row.revokedAt) return;
      row.revokedAt = new Date();
      row.revokedReason = reason.trim();
      events.record(tx, {
        tenantId,
        type: 'agent.revoked',
        sessionId: row.sessionId,
        payload: {
          jti: row.jti,
          session_id: row.sessionId,
          vendor_data: state.claims!.vendor_data,
          revoked_at: Math.floor(row.revokedAt.getTime() / 1000),
          reason: row.revokedReason,
        },
      });
    });
    return this.introspect(em.fork(), token);
  }
}
