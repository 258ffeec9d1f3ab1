import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { LedgerEntry } from '../entities/share-token.entity.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import * as ledger from '../src/sharing/ledger.service.js';
import * as sharing from '../src/sharing/sharing.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { ImportSharedSessionInput } from './sharing.input.js';
import { toSessionObject } from './session.resolver.js';
import { sessionRecordOf } from '../src/sessions/session-record.js';
import { ImportedSessionObject, LedgerEntryConnection, LedgerEntryObject, ShareTokenObject } from './sharing.type.js';
import { toConnectionPage } from './connection.js';

/** Renders micro-units as an exact decimal string with at least two decimals (150000 → "0.15"). */
export function formatMicros(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${whole}.${fraction}`;
}

/** Shapes a ledger row for GraphQL. */
function toLedgerEntryObject(row: LedgerEntry): LedgerEntryObject {
  return {
    id: row.id,
    environment: row.environment,
    shareTokenId: row.shareTokenId,
    originalSessionId: row.originalSessionId,
    importedSessionId: row.importedSessionId,
    payerApplicationId: row.payerTenantId,
    originatingApplicationId: row.originatingTenantId,
    beneficiary: row.beneficiary,
    beneficiaryApplicationId: row.beneficiary === 'originating_tenant' ? row.originatingTenantId : null,
    amount: formatMicros(row.amountMicros),
    amountMicros: row.amountMicros,
    currency: row.currency,
    createdAt: unixSeconds(row.createdAt),
  };
}

/** Sharing: minting share tokens, importing shared sessions, and the import fee ledger. */
@Resolver()
export class SharingResolver {
  @Mutation(() => ShareTokenObject, {
    description: 'Mints a one-shot share token for an approved, declined or in_review session, addressed to one partner application.',
  })
  async shareSession(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('partnerApplicationId', () => String, {
      description: "The partner's application id (UUID); never the caller's own (SHARE_TO_SELF).",
    })
    partnerApplicationId: string,
    @Ctx() context: GraphQLContext,
    @Arg('expiresIn', () => Int, {
      nullable: true,
      description: `Token lifetime in seconds, 1–${sharing.SHARE_TOKEN_EXPIRES_IN_MAX_SECONDS}; default ${sharing.SHARE_TOKEN_EXPIRES_IN_DEFAULT_SECONDS}.`,
    })
    expiresIn?: number | null,
  ): Promise<ShareTokenObject> {
    const principal = requireTenant(context);
    const minted = await sharing.shareSession(context.em, context.services, principal, sessionId, { partnerApplicationId, expiresIn });
    return { id: minted.id, shareToken: minted.token, expiresAt: unixSeconds(minted.expiresAt) };
  }

  @Mutation(() => ImportedSessionObject, {
    description: "Redeems a share token (once per application) and clones the verification into the caller's application.",
  })
  async importSharedSession(
    @Arg('input', () => ImportSharedSessionInput) input: ImportSharedSessionInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ImportedSessionObject> {
    const principal = requireTenant(context);
    const imported = await sharing.importSharedSession(context.em, context.services, context.config, principal, input);
    return {
      sessionId: imported.session.id,
      importedFrom: imported.importedFrom,
      status: imported.session.status,
      complianceLevel: imported.complianceLevel,
      serviceToken: imported.serviceToken,
      session: toSessionObject(sessionRecordOf(imported.session), context),
    };
  }

  @Query(() => LedgerEntryConnection, {
    description: 'Import fees the calling tenant pays or earns (both entries of each import), newest first; per environment.',
  })
  async ledgerEntries(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, {
      nullable: true,
      description: `Page size, 1–${ledger.LEDGER_PAGE_MAX}; default ${ledger.LEDGER_PAGE_DEFAULT}.`,
    })
    first?: number | null,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<LedgerEntryConnection> {
    const principal = requireTenant(context);
    const page = await ledger.listLedgerEntries(context.em, principal, { first: first ?? undefined, after: after ?? undefined });
    return toConnectionPage({ rows: page.entries, hasNextPage: page.hasNextPage }, (entry) => entry, toLedgerEntryObject, after);
  }
}
