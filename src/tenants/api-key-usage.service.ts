import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyUsage, KeyUse } from '../auth/key-usage.js';

/**
 * The last use of each of `keyIds`: what `api_key_usage` holds, or what this process noted since
 * its last flush when that is newer. One statement for a whole page of keys.
 */
export async function lastKeyUses(em: EntityManager, usage: ApiKeyUsage, keyIds: readonly string[]): Promise<Map<string, KeyUse>> {
  const uses = new Map<string, KeyUse>();
  if (keyIds.length === 0) return uses;
  const rows = await em.execute<{ api_key_id: string; last_used_at: Date; last_used_address: string | null }[]>(
    'select api_key_id, last_used_at, last_used_address from api_key_usage where api_key_id = any(?::uuid[])',
    [`{${keyIds.join(',')}}`],
  );
  for (const row of rows) uses.set(row.api_key_id, { at: new Date(row.last_used_at), address: row.last_used_address });
  for (const id of keyIds) {
    const noted = usage.unwritten(id);
    const stored = uses.get(id);
    if (noted && (!stored || noted.at > stored.at)) uses.set(id, noted);
  }
  return uses;
}
