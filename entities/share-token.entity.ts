import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/** A one-shot token that lets one partner application import one session; only its hash is stored. */
export const ShareTokenSchema = defineEntity({
  name: 'ShareToken',
  tableName: 'share_token',
  properties: {
    id: p.uuid().primary(),
    /** Hex SHA-256 of the opaque token; the token itself is shown once, to the sharer. */
    tokenHash: p.text().unique().hidden(),
    /** The originating tenant (owner of the shared session). */
    tenantId: p.uuid(),
    /** Environment of the shared session; only a key of the same environment can import it. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sessionId: p.uuid(),
    /** The only application (tenant id) that may redeem the token. */
    partnerApplicationId: p.uuid(),
    createdByKeyId: p.uuid().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    redeemedAt: p.datetime().nullable(),
    redeemedSessionId: p.uuid().nullable(),
    redeemedByKeyId: p.uuid().nullable(),
  },
});
/** A share token row. */
export type ShareToken = InferEntity<typeof ShareTokenSchema>;

/** Who receives a fee entry: the service itself, or the tenant whose session was imported. */
export const LEDGER_BENEFICIARIES = ['service', 'originating_tenant'] as const;
/** A fee entry's beneficiary. */
export type LedgerBeneficiary = (typeof LEDGER_BENEFICIARIES)[number];

/** One fee of one import; every import writes two (spec Limits: fee per import). */
export const LedgerEntrySchema = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entry',
  properties: {
    id: p.uuid().primary(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    shareTokenId: p.uuid(),
    originalSessionId: p.uuid(),
    importedSessionId: p.uuid(),
    /** The importing tenant, who pays. */
    payerTenantId: p.uuid(),
    /** The tenant whose session was imported. */
    originatingTenantId: p.uuid(),
    beneficiary: p.enum(LEDGER_BENEFICIARIES),
    /** Amount in micro-units of `currency` (150000 = 0.15 USD); integers keep money exact. */
    amountMicros: p.bigint('number'),
    currency: p.text(),
    createdAt: p.datetime(),
  },
});
/** A ledger row. */
export type LedgerEntry = InferEntity<typeof LedgerEntrySchema>;
