import type { EntityManager } from '@mikro-orm/postgresql';
import { LedgerEntrySchema, type LedgerEntry } from '../../entities/share-token.entity.js';
import type { ApiKeyPrincipal } from '../auth/context.js';
import { validationError } from '../errors.js';

/** Most ledger entries one page may hold. */
export const LEDGER_PAGE_MAX = 100;
/** Page size when none is asked for. */
export const LEDGER_PAGE_DEFAULT = 20;

/** Opaque cursor: the (created_at, id) of the last entry of a page. */
export function encodeLedgerCursor(entry: Pick<LedgerEntry, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([entry.createdAt.toISOString(), entry.id])).toString('base64url');
}

/** Reads a cursor back; a malformed one is a 400. */
function decodeLedgerCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string') throw new Error('bad cursor');
    return { createdAt: date, id };
  } catch {
    throw validationError([{ field: 'after', code: 'invalid', message: 'after is not a cursor this API returned' }]);
  }
}

/**
 * A page of the import fee entries the caller takes part in, newest first: the entries of its own
 * imports (as payer, both fees) and of imports of its sessions (as originating tenant, both fees
 * too, so either side can reconcile the whole import). Scoped to the key's environment.
 */
export async function listLedgerEntries(
  em: EntityManager,
  principal: ApiKeyPrincipal,
  page: { first?: number; after?: string },
): Promise<{ entries: LedgerEntry[]; hasNextPage: boolean }> {
  const first = page.first ?? LEDGER_PAGE_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > LEDGER_PAGE_MAX) {
    throw validationError([{ field: 'first', code: 'invalid', message: `first must be an integer from 1 to ${LEDGER_PAGE_MAX}` }]);
  }
  const where: Record<string, unknown>[] = [
    { environment: principal.environment },
    { $or: [{ payerTenantId: principal.tenantId }, { originatingTenantId: principal.tenantId }] },
  ];
  if (page.after) {
    const cursor = decodeLedgerCursor(page.after);
    where.push({ $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }] });
  }
  const rows = await em.find(LedgerEntrySchema, { $and: where } as never, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: first + 1,
  });
  return { entries: rows.slice(0, first), hasNextPage: rows.length > first };
}
