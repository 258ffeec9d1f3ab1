import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEntrySchema, type LedgerEntry } from '../../entities/share-token.entity.js';
import type { TenantPrincipal } from '../auth/context.js';
import { assertPageSize, decodeKeysetCursor, olderThan } from '../shared/pagination.js';

/** Most ledger entries one page may hold. */
export const LEDGER_PAGE_MAX = 100;
/** Page size when none is asked for. */
export const LEDGER_PAGE_DEFAULT = 20;

/**
 * A page of the import fee entries the caller takes part in, newest first: the entries of its own
 * imports (as payer, both fees) and of imports of its sessions (as originating tenant, both fees
 * too, so either side can reconcile the whole import). Scoped to the key's environment.
 */
export async function listLedgerEntries(
  em: EntityManager,
  principal: TenantPrincipal,
  page: { first?: number; after?: string },
): Promise<{ entries: LedgerEntry[]; hasNextPage: boolean }> {
  const first = page.first ?? LEDGER_PAGE_DEFAULT;
  assertPageSize(first, LEDGER_PAGE_MAX, 'first');
  const where: Record<string, unknown>[] = [
    { environment: principal.environment },
    { $or: [{ payerTenantId: principal.tenantId }, { originatingTenantId: principal.tenantId }] },
  ];
  if (page.after) where.push(olderThan(decodeKeysetCursor(page.after, 'after')));
  const rows = await em.find(LedgerEntrySchema, { $and: where } as never, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: first + 1,
  });
  return { entries: rows.slice(0, first), hasNextPage: rows.length > first };
}
