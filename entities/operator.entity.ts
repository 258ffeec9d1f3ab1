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
