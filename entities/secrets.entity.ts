import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/**
 * Keys the service makes for itself on first use, each sealed with the master key so that a master
 * key rotation re-wraps them with the other sealed columns (src/auth/sealed-columns.ts). Written
 * and read with SQL by the code that owns each; the entities say what the tables hold.
 */

/** A service-wide key of personal-data digests (search, phone), one per scope (src/auth/personal-data.ts). */
export const PersonalDataKeySchema = defineEntity({
  name: 'PersonalDataKey',
  tableName: 'personal_data_key',
  properties: {
    /** What the key digests, e.g. `search`, `phone`. */
    scope: p.text().primary(),
    keySealed: p.text().hidden(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A personal-data key row. */
export type PersonalDataKey = InferEntity<typeof PersonalDataKeySchema>;

/** A tenant's evidence data key (AES-256), sealed (src/evidence/evidence.service.ts). */
export const TenantDataKeySchema = defineEntity({
  name: 'TenantDataKey',
  tableName: 'tenant_data_key',
  properties: {
    tenantId: p.uuid().primary(),
    keySealed: p.text().hidden(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A tenant data key row. */
export type TenantDataKey = InferEntity<typeof TenantDataKeySchema>;

/** A tenant's key of the blind search index over names and exact tokens (src/sessions/search.ts). */
export const SessionSearchKeySchema = defineEntity({
  name: 'SessionSearchKey',
  tableName: 'session_search_key',
  properties: {
    tenantId: p.uuid().primary(),
    sealedSecret: p.text().hidden(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A search key row. */
export type SessionSearchKey = InferEntity<typeof SessionSearchKeySchema>;

/** The secret that signs a tenant's session callbacks in one environment, sealed. */
export const CallbackSecretSchema = defineEntity({
  name: 'CallbackSecret',
  tableName: 'callback_secret',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.enum(API_KEY_ENVIRONMENTS).primary(),
    secretSealed: p.text().hidden(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A callback secret row. */
export type CallbackSecret = InferEntity<typeof CallbackSecretSchema>;
