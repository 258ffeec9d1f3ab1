import { Migration } from '@mikro-orm/migrations';
import { changeXidSql } from './change-xid.js';

/**
 * The in-memory 1:N face index (src/duplicates/template-index.ts, docs/duplicates.md): each
 * session template row says which transaction last wrote it (`change_xid`, a default on insert
 * and a trigger on update), so every process can read what changed since it last looked, by an
 * index, without a message that could be missed. The scope index gains `session_id`, so a scope
 * loads page by page in key order (it replaces the index without it).
 */
export class Migration20261127100000H22FaceIndex extends Migration {
  override name = 'Migration20261127100000H22FaceIndex';

  override up(): void {
    for (const sql of changeXidSql('session_list_subject', `kind = 'face'`).up) this.addSql(sql);
    this.addSql(`create index session_list_subject_scope_index on session_list_subject (tenant_id, kind, key_version, session_id);`);
    this.addSql(`drop index if exists session_list_subject_tenant_index;`);
  }

  override down(): void {
    this.addSql(`create index if not exists session_list_subject_tenant_index on session_list_subject (tenant_id, kind, key_version);`);
    this.addSql(`drop index if exists session_list_subject_scope_index;`);
    for (const sql of changeXidSql('session_list_subject', `kind = 'face'`).down) this.addSql(sql);
  }
}
