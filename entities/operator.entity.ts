import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { TenantSchema } from './tenant.entity.js';

/**
 * What an operator may do, least first: `viewer` reads, `reviewer` also decides in-review
 * sessions, `admin` also changes the tenant's settings (workflows, lists, webhooks, keys).
 */
export const OPERATOR_ROLES = ['viewer', 'reviewer', 'admin'] as const;
/** An operator's role. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** A person who signs in to the console for one tenant; machines use API keys instead. */
export const OperatorSchema = defineEntity({
  name: 'Operator',
  tableName: 'operator',
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    /** Sign-in name, stored lower-case; unique across tenants so that sign-in needs no tenant id. */
    email: p.text().unique(),
    /** The person's name as the audit trail shows it. */
    name: p.text(),
    role: p.enum(OPERATOR_ROLES),
    /** PHC string of the argon2id hash (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`). */
    passwordHash: p.text().hidden(),
    /** Wrong passwords since the last successful sign-in; reaching the limit locks the account. */
    failedLogins: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    disabledAt: p.datetime().nullable(),
    /** Set when an admin chose the password (created or reset the account): the console asks for a new one first. */
    passwordChangeRequired: p.boolean().default(false),
  },
});
/** An operator row. */
export type Operator = InferEntity<typeof OperatorSchema>;

/**
 * A signed-in console session: the cookie holds a random token of which only the SHA-256 is
 * stored, and the environment the operator works in. The CSRF token is derived from the cookie's
 * token (src/operators/operator-auth.ts), so it needs no column.
 */
export const OperatorLoginSchema = defineEntity({
  name: 'OperatorLogin',
  tableName: 'operator_login',
  properties: {
    id: p.uuid().primary(),
    operator: () => p.manyToOne(OperatorSchema).ref(),
    /** Hex SHA-256 of the cookie's token. */
    tokenHash: p.text().unique(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    /** The client address the sign-in came from: the audit trail's "from where" for what is done through it. */
    clientAddress: p.text().nullable(),
  },
});
/** A console sign-in row. */
export type OperatorLogin = InferEntity<typeof OperatorLoginSchema>;

/**
 * One change an operator or a key made to a tenant's settings or a case, for the audit log
 * (src/operators/audit-log.service.ts): who, what, on which object, from where. Append-only.
 */
export const OperatorAuditSchema = defineEntity({
  name: 'OperatorAudit',
  tableName: 'operator_audit',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** The environment acted in; null for tenant-wide actions (the team, for instance). */
    environment: p.enum(API_KEY_ENVIRONMENTS).nullable(),
    /** The operator who acted; null when no operator did (an API key, the service). */
    actorOperatorId: p.uuid().nullable(),
    actorName: p.text(),
    /** What was done, e.g. `operator.invited`, `session.decided`. */
    action: p.text(),
    targetType: p.text(),
    targetId: p.text(),
    /** What changed, without personal data. */
    details: p.json<Record<string, unknown>>().defaultRaw(`'{}'::jsonb`),
    createdAt: p.datetime().defaultRaw('now()'),
    clientAddress: p.text().nullable(),
  },
});
/** An audit log row. */
export type OperatorAudit = InferEntity<typeof OperatorAuditSchema>;

/** An admin's invitation of a person to the console: a single-use link of which only the digest is kept. */
export const OperatorInvitationSchema = defineEntity({
  name: 'OperatorInvitation',
  tableName: 'operator_invitation',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Lower-case, 3–254 characters. */
    email: p.text(),
    name: p.text(),
    role: p.enum(OPERATOR_ROLES),
    /** Hex SHA-256 of the link's token. */
    tokenHash: p.text().unique(),
    invitedByOperatorId: p.uuid().nullable(),
    invitedByName: p.text(),
    createdAt: p.datetime().defaultRaw('now()'),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    /** The account made when it was accepted. */
    operatorId: p.uuid().nullable(),
  },
});
/** An invitation row. */
export type OperatorInvitation = InferEntity<typeof OperatorInvitationSchema>;

/** An operator's second factor (TOTP): the secret sealed at rest and the last step used, so no code works twice. */
export const OperatorTotpSchema = defineEntity({
  name: 'OperatorTotp',
  tableName: 'operator_totp',
  properties: {
    operatorId: p.uuid().primary(),
    secretSealed: p.text().hidden(),
    /** Set once the operator entered a first code; until then the factor is not required. */
    confirmedAt: p.datetime().nullable(),
    /** The 30-second step of the last accepted code. */
    lastUsedStep: p.bigint('number').nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A TOTP row. */
export type OperatorTotp = InferEntity<typeof OperatorTotpSchema>;

/**
 * The console's sign-in brake (audit N4): failures per e-mail and client address, keyed by a digest
 * of both, with the e-mail's own digest for the per-account slow-down; no address or e-mail in clear.
 */
export const SignInFailureSchema = defineEntity({
  name: 'SignInFailure',
  tableName: 'sign_in_failure',
  properties: {
    attemptKey: p.text().primary(),
    accountKey: p.text(),
    failures: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A sign-in failure counter row. */
export type SignInFailure = InferEntity<typeof SignInFailureSchema>;
