import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/** An EdDSA key that signs service tokens; the private half is stored encrypted with the master key. */
export const SigningKeySchema = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_key',
  properties: {
    kid: p.text().primary(),
    /** Environment whose tokens this key signs; null for a legacy key that signed both (retired, still published). */
    environment: p.enum(API_KEY_ENVIRONMENTS).nullable(),
    algorithm: p.text(),
    publicJwk: p.json<Record<string, unknown>>(),
    privateKeyEncrypted: p.text().hidden(),
    active: p.boolean(),
    /**
     * Whether `/.well-known/jwks.json` lists the key. A retired sandbox key that signed tokens with
     * the live audience is kept for introspection only, so no offline check accepts its tokens.
     */
    published: p.boolean().default(true),
    createdAt: p.datetime(),
  },
});
/** A signing key row. */
export type SigningKey = InferEntity<typeof SigningKeySchema>;

/** A service token issued to an approved session; revocable. The token itself is stored encrypted. */
export const ServiceTokenSchema = defineEntity({
  name: 'ServiceToken',
  tableName: 'service_token',
  properties: {
    jti: p.uuid().primary(),
    sessionId: p.uuid(),
    tenantId: p.uuid(),
    /** Environment of the token's session; only keys of this tenant and environment may introspect or revoke it. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    tokenEncrypted: p.text().hidden(),
    issuedAt: p.datetime(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.text().nullable(),
  },
});
/** A service token row. */
export type ServiceToken = InferEntity<typeof ServiceTokenSchema>;
