import type { EntityManager } from '@mikro-orm/postgresql';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { createTenant, issueApiKey, type IssuedApiKey } from './tenant.service.js';

/** The demo tenant created on first start, with its keys in clear (printed once). */
export interface DemoTenant {
  tenantId: string;
  sandboxKey: IssuedApiKey;
  liveKey: IssuedApiKey;
}

/** Creates a demo tenant with a sandbox and a live key when the database has no tenant at all. */
export async function seedDemoTenant(em: EntityManager): Promise<DemoTenant | null> {
  if ((await em.count(TenantSchema, {})) > 0) return null;
  const tenant = await createTenant(em, 'Demo tenant');
  const sandboxKey = await issueApiKey(em, tenant.id, 'sandbox', 'demo sandbox key');
  const liveKey = await issueApiKey(em, tenant.id, 'live', 'demo live key');
  return { tenantId: tenant.id, sandboxKey, liveKey };
}
