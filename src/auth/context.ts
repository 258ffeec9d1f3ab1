import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { ApiKeySchema } from '../../entities/api-key.entity.js';
import { hashApiKey } from './api-keys.js';

/** Who a request acts for, resolved from its `x-api-key`. */
export interface Principal {
  tenantId: string;
  apiKeyId: string;
  environment: ApiKeyEnvironment;
}

/** Upper bound on the length of a key we bother hashing, in characters: longer input is not a key. */
const MAX_KEY_LENGTH = 200;

/** Resolves a raw key to its principal; null when missing, unknown or revoked (all answered 401). */
export async function authenticate(em: EntityManager, rawKey: string | undefined | null): Promise<Principal | null> {
  if (!rawKey || rawKey.length > MAX_KEY_LENGTH) return null;
  const key = await em.findOne(ApiKeySchema, { keyHash: hashApiKey(rawKey) }, { fields: ['id', 'tenant', 'environment', 'revokedAt'] });
  if (!key || key.revokedAt) return null;
  return { tenantId: key.tenant.id, apiKeyId: key.id, environment: key.environment };
}
