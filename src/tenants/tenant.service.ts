import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { ApiKeyCache } from '../auth/key-cache.js';
import { TenantSchema, type Tenant } from '../../entities/tenant.entity.js';
import { generateApiKey } from '../auth/api-keys.js';
import { ApiError, notFound } from '../shared/errors.js';

/** A key as returned to the operator at issue time; `key` is never shown again. */
export interface IssuedApiKey {
  id: string;
  tenantId: string;
  environment: ApiKeyEnvironment;
  prefix: string;
  key: string;
}

/** Creates a tenant (client application); its callback secrets are made on first use (src/tenants/callback-secrets.ts). */
export async function createTenant(em: EntityManager, name: string): Promise<Tenant> {
  const trimmed = name.trim();
  if (!trimmed)
    throw new ApiError('validation_failed', 'A tenant needs a name.', [{ field: 'name', code: 'required', message: 'name is required' }]);
  const tenant = em.create(TenantSchema, {
    id: randomUUID(),
    name: trimmed,
    createdAt: new Date(),
  });
  await em.flush();
  return tenant;
}

/** Issues a new API key for a tenant in one environment; the raw key is returned once. */
export async function issueApiKey(em: EntityManager, tenantId: string, environment: ApiKeyEnvironment, name = ''): Promise<IssuedApiKey> {
  const tenant = await em.findOne(TenantSchema, { id: tenantId });
  if (!tenant) throw notFound('Tenant');
  const issued = generateApiKey(environment);
  const row = em.create(ApiKeySchema, {
    id: randomUUID(),
    tenant,
    environment,
    prefix: issued.prefix,
    keyHash: issued.hash,
    name,
    createdAt: new Date(),
  });
  await em.flush();
  return { id: row.id, tenantId, environment, prefix: issued.prefix, key: issued.raw };
}

/**
 * Revokes a key by id or visible prefix: 401 from the next request of the app whose `apiKeys`
 * cache is given, on other servers (and without it) within one epoch poll.
 */
export async function revokeApiKey(
  em: EntityManager,
  idOrPrefix: string,
  apiKeys: Pick<ApiKeyCache, 'invalidate'> | null = null,
): Promise<{ id: string; prefix: string }> {
  const isUuid = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
  const key = await em.findOne(ApiKeySchema, isUuid ? { id: idOrPrefix } : { prefix: idOrPrefix });
  if (!key) throw notFound('API key');
  key.revokedAt ??= new Date();
  await em.flush();
  apiKeys?.invalidate();
  return { id: key.id, prefix: key.prefix };
}

/** One line of the tenant listing. */
export interface TenantSummary {
  id: string;
  name: string;
  createdAt: Date;
  keys: { id: string; prefix: string; environment: ApiKeyEnvironment; revoked: boolean }[];
}

/** Lists tenants with their keys (prefixes only). */
export async function listTenants(em: EntityManager): Promise<TenantSummary[]> {
  const tenants = await em.find(TenantSchema, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const keys = await em.find(ApiKeySchema, { tenant: { $in: tenants.map((tenant) => tenant.id) } }, { orderBy: { createdAt: 'asc' } });
  return tenants.map((tenant) => ({
    id: tenant.id,
    name: tenant.name,
    createdAt: tenant.createdAt,
    keys: keys
      .filter((key) => key.tenant.id === tenant.id)
      .map((key) => ({ id: key.id, prefix: key.prefix, environment: key.environment, revoked: key.revokedAt != null })),
  }));
}
