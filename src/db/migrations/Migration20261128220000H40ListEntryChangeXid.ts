import { Migration } from '@mikro-orm/migrations';
import { changeXidSql } from './change-xid.js';

/**
 * The list gate's exact face match in memory (src/lists/face-index.ts, docs/lists.md "Face
 * search"), as H22FaceIndex did for the duplicate search: each `list_entry` row says which
 * transaction last wrote it (`change_xid`, a default on insert and a trigger on update), so every
 * process reads what changed since it last looked, by an index, without a message that could be
 * missed. A partial index on the face entries' scope loads a tenant's entries page by page in id
 * order. bench:growth: the gate's face half read every face entry per decision (132.6 ms at 33,333).
 */
export class Migration20261128220000H40ListEntryChangeXid extends Migration {
  override name = 'Migration20261128220000H40ListEntryChangeXid';

  override up(): void {
    for (const sql of changeXidSql('list_entry', `entry_type = 'face'`).up) this.addSql(sql);
    this.addSql(
      `create index list_entry_face_scope_index on list_entry (tenant_id, environment, key_version, id) where entry_type = 'face';`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists list_entry_face_scope_index;`);
    for (const sql of changeXidSql('list_entry', `entry_type = 'face'`).down) this.addSql(sql);
  }
}
