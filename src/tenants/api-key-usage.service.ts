import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeyUsageSchema } from '../../entities/api-key.entity.js';
import type { ApiKeyUsage, KeyUse } from '../auth/key-usage.js';

/**
 * The last use of each of `keyIds`: what `api_key_usage` holds, or what this process noted since
 * its last flush when that is newer. One statement for a whole page of keys.
 */
export async function lastKeyUses(em: EntityManager, usage: ApiKeyUsage, keyIds: readonly string[]): Promise<Map<string, KeyUse>> {
  const uses = new Map<string, KeyUse>();
  if (keyIds.length === 0) return uses;
  // Noted uses are read before and after the query: a flush that commits while the query runs has
  // already left memory when it ends, and may or may not be in the query's snapshot.
  const notedBefore = new Map(keyIds.map((id) => [id, usage.unwritten(id)]));
  // Refreshed: the flush of src/auth/key-usage.ts writes these rows with a statement of its own.
  const rows = await em.find(ApiKeyUsageSchema, { apiKeyId: { $in: [...keyIds] } }, { refresh: true });
  for (const row of rows) uses.set(row.apiKeyId, { at: new Date(row.lastUsedAt), address: row.lastUsedAddress ?? null });
  for (const id of keyIds) {
    for (const noted of [notedBefore.get(id), usage.unwritten(id)]) {
      const stored = uses.get(id);
      if (noted && (!stored || noted.at > stored.at)) uses.set(id, noted);
    }
  }
  return uses;
}
