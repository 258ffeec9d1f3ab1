import { Migration } from '@mikro-orm/migrations';
import { epochCounterSql } from './epoch-counter.js';

const counter = epochCounterSql('api_key_epoch', 'api_key', 'update or delete or truncate');

/**
 * A counter bumped by every change to `api_key` (revocation, deletion), whatever makes it: this
 * server, the CLI, another instance or SQL by hand. Servers cache the principals of API keys and
 * drop them when the counter moves (src/auth/key-cache.ts).
 */
export class Migration20261122001100ApiKeyEpoch extends Migration {
  override name = 'Migration20261122001100ApiKeyEpoch';

  override up(): void {
    for (const sql of counter.up) this.addSql(sql);
  }

  override down(): void {
    for (const sql of counter.down) this.addSql(sql);
  }
}
