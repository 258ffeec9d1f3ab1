import { REFUSALS, requireAdmin } from '../auth/authorization.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ApiKeySchema, type ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { TenantPrincipal } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { issueApiKey, type IssuedApiKey } from './tenant.service.js';

/** A key as the mutations answer it: never the secret, which only its creation shows. */
export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  environment: ApiKeyEnvironment;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * Issues a key in the admin's tenant and current environment; the whole key is in the answer once.
 * Only a signed-in admin may: a key minting keys would outlive its own revocation. Audited.
 */
export async function createApiKey(
  em: EntityManager,
  principal: TenantPrincipal,
  rawName: unknown,
): Promise<IssuedApiKey & { name: string }> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const { name } = parseOrThrow(z.object({ name: z.string().trim().min(1, 'name is required').max(200) }).strict(), { name: rawName });
  return em.transactional(async (tx) => {
    const issued = await issueApiKey(tx as EntityManager, admin.tenantId, admin.environment, name);
    await recordOperatorAction(tx as EntityManager, admin, {
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: issued.id,
      environment: admin.environment,
      details: { prefix: issued.prefix, name },
    });
    return { ...issued, name };
  });
}

/** Revokes a key of the admin's tenant and environment (404 for any other); it stops working at once here, within one poll elsewhere. Audited. */
export async function revokeTenantApiKey(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  keyId: string,
): Promise<ApiKeySummary> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw new ApiError('not_found', 'API key not found.');
  const summary = await em.transactional(async (tx) => {
    const key = await tx.findOne(ApiKeySchema, { id: keyId, tenant: admin.tenantId, environment: admin.environment });
    if (!key) throw new ApiError('not_found', 'API key not found.');
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await recordOperatorAction(tx as EntityManager, admin, {
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: key.id,
        environment: key.environment,
        details: { prefix: key.prefix },
      });
    }
    await tx.flush();
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      environment: key.environment,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
    };
  });
  // This app refuses the key from its next request; other servers within one epoch poll.
  services.apiKeys.invalidate();
  return summary;
}
