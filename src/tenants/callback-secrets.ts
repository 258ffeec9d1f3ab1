/**
 * Raw SQL: (b) a secret is created once by `insert … on conflict do nothing` and rotated by an
 * upsert (`on conflict … do update`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { CallbackSecretSchema } from '../../entities/secrets.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { generateSigningSecret } from '../auth/api-keys.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { notFound } from '../shared/errors.js';

/**
 * The per-session callback secret of one tenant and environment, sealed with the master key.
 * Sandbox and live each have their own, so a sandbox key can neither read nor rotate the secret
 * that signs live callbacks. Made on first use (first callback, CLI read or rotation): tenants
 * are created in many places that hold no master key, and a secret nobody used needs no row.
 */
export async function sealedCallbackSecret(
  em: EntityManager,
  secrets: ServiceSecrets,
  tenantId: string,
  environment: ApiKeyEnvironment,
): Promise<string> {
  // Insert-if-absent then read: two first uses at once agree on one secret.
  await em.execute(
    `insert into callback_secret (tenant_id, environment, secret_sealed) values (?, ?, ?) on conflict (tenant_id, environment) do nothing`,
    [tenantId, environment, secrets.encrypt(generateSigningSecret())],
    'run',
  );
  const row = await em.findOne(CallbackSecretSchema, { tenantId, environment }, { fields: ['secretSealed'], disableIdentityMap: true });
  return row!.secretSealed;
}

/** 404 unless the tenant exists: the secret rows would otherwise be made for a tenant that is not there. */
async function requireTenant(em: EntityManager, tenantId: string): Promise<void> {
  if (!(await em.findOne(TenantSchema, { id: tenantId }))) throw notFound('Tenant');
}

/** Reads a tenant's callback secret of one environment in clear (admin CLI only). */
export async function readCallbackSecret(
  em: EntityManager,
  secrets: ServiceSecrets,
  tenantId: string,
  environment: ApiKeyEnvironment,
): Promise<string> {
  await requireTenant(em, tenantId);
  return secrets.decrypt(await sealedCallbackSecret(em, secrets, tenantId, environment));
}

/** Replaces the callback secret of one tenant and environment (the other is untouched); the new one is returned once. */
export async function rotateCallbackSecret(
  em: EntityManager,
  secrets: ServiceSecrets,
  tenantId: string,
  environment: ApiKeyEnvironment,
): Promise<string> {
  await requireTenant(em, tenantId);
  const secret = generateSigningSecret();
  await em.execute(
    `insert into callback_secret (tenant_id, environment, secret_sealed) values (?, ?, ?)
     on conflict (tenant_id, environment) do update set secret_sealed = excluded.secret_sealed, created_at = now()`,
    [tenantId, environment, secrets.encrypt(secret)],
    'run',
  );
  return secret;
}
