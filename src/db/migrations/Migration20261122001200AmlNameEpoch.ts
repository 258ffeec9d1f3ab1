import { Migration } from '@mikro-orm/migrations';
import { epochCounterSql } from './epoch-counter.js';

const counter = epochCounterSql('aml_name_epoch', 'aml_entity_name', 'insert or update or delete or truncate');

/**
 * A counter bumped by every statement that writes `aml_entity_name` (imports, whatever runs
 * them: this server, the CLI, another instance, SQL by hand). Servers keep the listed names in
 * an in-memory trigram index and stop using it when the counter moves (src/engines/aml/name-index.ts).
 */
export class Migration20261122001200AmlNameEpoch extends Migration {
  override name = 'Migration20261122001200AmlNameEpoch';

  override up(): void {
    for (const sql of counter.up) this.addSql(sql);
  }

  override down(): void {
    for (const sql of counter.down) this.addSql(sql);
  }
}
