import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { OperatorRole } from '../../entities/operator.entity.js';
import { hashApiKey } from './api-keys.js';
import type { ApiKeyCache } from './key-cache.js';

/**
 * Whose objects a request reaches: one tenant in one environment, as Stripe's test and live modes.
 * Every tenant-owned object is looked up by both; another environment's object is as unknown as
 * another tenant's.
 */
export interface TenantScope {
  tenantId: string;
  environment: ApiKeyEnvironment;
}

/** A request made with a tenant's API key: it acts in the key's tenant and environment. */
export interface ApiKeyPrincipal extends TenantScope {
  kind: 'api_key';
  apiKeyId: string;
}

/** A request made by a session's end user with the token of the session URL; it reaches one session only. */
export interface EndUserPrincipal {
  kind: 'end_user';
  /** The raw token, checked against the session id each operation names. */
  token: string;
}

/**
 * A request made by a person signed in to the console: it acts in the operator's tenant and the
 * environment chosen for the sign-in, with the operator's role, and is audited by name.
 */
export interface OperatorPrincipal extends TenantScope {
  kind: 'operator';
  operatorId: string;
  /** The operator's name as the audit trail shows it. */
  operatorName: string;
  role: OperatorRole;
  /** The console sign-in the request came with, revoked by signing out. */
  loginId: string;
  /** An admin chose the password: every mutation but changeOwnPassword is refused until the operator picks their own. */
  passwordChangeRequired?: boolean;
  /** The client address of the sign-in, recorded as "from where" on what the operator does. */
  clientAddress?: string | null;
}

/** Who acts for a tenant: a machine with an API key or a person in the console. */
export type TenantPrincipal = ApiKeyPrincipal | OperatorPrincipal;

/** Who a request acts for. */
export type Principal = TenantPrincipal | EndUserPrincipal;

/** Who made an audited change, as the audit columns record it. */
export interface AuditIdentity {
  /** The API key's id, when a key made the change. */
  keyId: string | null;
  /** The operator's id, when a person in the console made it. */
  operatorId: string | null;
  /** The operator's name at the time. */
  name: string | null;
  /** The client address of the operator's sign-in, when known. */
  address: string | null;
}

/** The audit columns of a change made by `principal` (none for the service itself or an end user). */
export function auditIdentityOf(principal: Principal | null): AuditIdentity {
  if (principal?.kind === 'api_key') return { keyId: principal.apiKeyId, operatorId: null, name: null, address: null };
  if (principal?.kind === 'operator')
    return { keyId: null, operatorId: principal.operatorId, name: principal.operatorName, address: principal.clientAddress ?? null };
  return { keyId: null, operatorId: null, name: null, address: null };
}

/** Upper bound on the length of a key we bother hashing, in characters: longer input is not a key. */
const MAX_KEY_LENGTH = 200;

/** Resolves a raw key to its principal; null when missing, unknown or revoked (all answered 401). */
export async function authenticate(
  em: EntityManager,
  rawKey: string | undefined | null,
  cache?: ApiKeyCache,
): Promise<ApiKeyPrincipal | null> {
  if (!rawKey || rawKey.length > MAX_KEY_LENGTH) return null;
  const keyHash = hashApiKey(rawKey);
  const cached = cache?.get(keyHash);
  if (cached) return cached;
  const token = cache?.begin() ?? 0;
  // Three columns, kept out of the request's identity map: the principal is all the request needs.
  const key = await em.findOne(
    ApiKeySchema,
    { keyHash, revokedAt: null },
    { fields: ['id', 'tenant', 'environment'], disableIdentityMap: true },
  );
  if (!key) return null;
  const principal: ApiKeyPrincipal = { kind: 'api_key', tenantId: key.tenant.id, apiKeyId: key.id, environment: key.environment };
  cache?.remember(keyHash, principal, token);
  return principal;
}
