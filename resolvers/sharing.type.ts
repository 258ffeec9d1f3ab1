import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LEDGER_BENEFICIARIES, type LedgerBeneficiary } from '../entities/share-token.entity.js';
import type { SessionStatus } from '../src/domain/types.js';
import { EnvironmentEnum, SessionStatusEnum } from './enums.js';
import { SessionObject } from './session.type.js';
import { Connection, type ConnectionPage } from './connection.js';
import { UnixTimeScalar } from './scalars.js';

/** Ledger beneficiaries as a GraphQL enum whose values are the wire strings. */
export const LedgerBeneficiaryEnum = Object.fromEntries(LEDGER_BENEFICIARIES.map((value) => [value, value])) as {
  [K in LedgerBeneficiary]: K;
};
registerEnumType(LedgerBeneficiaryEnum, {
  name: 'LedgerBeneficiary',
  description: 'Who receives an import fee: the service, or the tenant whose session was imported.',
});

/** A freshly minted share token (the spec's Share token result). */
@ObjectType('ShareToken', { description: 'A one-shot token a partner application redeems with importSharedSession.' })
export class ShareTokenObject {
  @Field(() => String, { description: 'Id of the token, as ledger entries name it (not a secret).' })
  id!: string;

  @Field(() => String, { description: 'The opaque token; shown once, stored only as a hash.' })
  shareToken!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds; the token is refused (410) after it.' })
  expiresAt!: number;
}

/** The result of an import (the spec's Imported session). */
@ObjectType('ImportedSession', { description: 'A verification imported from a partner: a new session of the caller.' })
export class ImportedSessionObject {
  @Field(() => String, { description: 'The new session in the importing application.' })
  sessionId!: string;

  @Field(() => String, { description: 'The share token that was redeemed.' })
  importedFrom!: string;

  @Field(() => SessionStatusEnum, { description: 'The original status (trustReview true) or in_review.' })
  status!: SessionStatus;

  @Field(() => String, { nullable: true, description: 'Only when approved.' })
  complianceLevel?: string | null;

  @Field(() => String, { nullable: true, description: "The new session's own service token; only when approved." })
  serviceToken?: string | null;

  @Field(() => SessionObject, { description: 'The new session itself.' })
  session!: SessionObject;
}

/** One fee of one import. */
@ObjectType('LedgerEntry', { description: 'One import fee; every import writes two (service and originating tenant).' })
export class LedgerEntryObject {
  @Field(() => String)
  id!: string;

  @Field(() => EnvironmentEnum)
  environment!: 'live' | 'sandbox';

  @Field(() => String, { description: 'The share token whose redemption caused the fee.' })
  shareTokenId!: string;

  @Field(() => String, { description: "The originating tenant's session." })
  originalSessionId!: string;

  @Field(() => String, { description: "The importing tenant's new session." })
  importedSessionId!: string;

  @Field(() => String, { description: 'The importing application, which pays.' })
  payerApplicationId!: string;

  @Field(() => String, { description: 'The application whose session was imported.' })
  originatingApplicationId!: string;

  @Field(() => LedgerBeneficiaryEnum)
  beneficiary!: LedgerBeneficiary;

  @Field(() => String, { nullable: true, description: 'The receiving application, when the beneficiary is a tenant.' })
  beneficiaryApplicationId?: string | null;

  @Field(() => String, { description: 'Decimal amount, exact (e.g. "0.15").' })
  amount!: string;

  @Field(() => Int, { description: 'The amount in micro-units of the currency (150000 = 0.15).' })
  amountMicros!: number;

  @Field(() => String, { description: 'ISO 4217 code.' })
  currency!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  createdAt!: number;
}

/** A page of ledger entries, newest first. */
export const LedgerEntryConnection = Connection(LedgerEntryObject, 'LedgerEntry', {
  description: 'A page of import fees of the calling tenant and environment, newest first.',
});
/** A page of ledger entries as resolvers return it. */
export type LedgerEntryConnection = ConnectionPage<LedgerEntryObject>;
