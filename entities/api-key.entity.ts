import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TenantSchema } from './tenant.entity.js';

/** Environments a key acts in: `live` runs the real engines, `sandbox` the deterministic sandbox provider. */
export const API_KEY_ENVIRONMENTS = ['live', 'sandbox'] as const;
/** A key's environment. */
export type ApiKeyEnvironment = (typeof API_KEY_ENVIRONMENTS)[number];

/** An API key; only its SHA-256 is stored, with a visible prefix so operators can tell keys apart. */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    /** First characters of the key (`idv_live_1a2b3c4d`), safe to display. */
    prefix: p.text(),
    /** Hex SHA-256 of the whole key. */
    keyHash: p.text().unique(),
    name: p.text().default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
/** An API key row. */
export type ApiKey = InferEntity<typeof ApiKeySchema>;

/**
 * A counter a trigger bumps on every write to `api_key` (src/auth/key-cache.ts): each server polls
 * it and empties its key cache when it moves, so a revocation reaches every server within the poll.
 */
export const ApiKeyEpochSchema = defineEntity({
  name: 'ApiKeyEpoch',
  tableName: 'api_key_epoch',
  properties: {
    /** Always true: the table holds one row. */
    singleton: p.boolean().primary().default(true),
    epoch: p.bigint('string'),
  },
});
/** The API key epoch row. */
export type ApiKeyEpoch = InferEntity<typeof ApiKeyEpochSchema>;

/**
 * When and from where a key was last used, beside `api_key` rather than in it: writing `api_key`
 * bumps the epoch and empties every server's key cache, and use is written often.
 */
export const ApiKeyUsageSchema = defineEntity({
  name: 'ApiKeyUsage',
  tableName: 'api_key_usage',
  properties: {
    apiKeyId: p.uuid().primary(),
    lastUsedAt: p.datetime(),
    lastUsedAddress: p.text().nullable(),
  },
});
/** An API key usage row. */
export type ApiKeyUsage = InferEntity<typeof ApiKeyUsageSchema>;
