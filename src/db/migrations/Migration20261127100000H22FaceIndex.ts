import { Migration } from '@mikro-orm/migrations';

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
    this.addSql(`alter table session_list_subject add column change_xid xid8 not null default pg_current_xact_id();`);
    this.addSql(`create or replace function session_list_subject_change_xid() returns trigger language plpgsql as $$
      begin
        new.change_xid := pg_current_xact_id();
        return new;
      end $$;`);
    this.addSql(
      `create trigger session_list_subject_change_xid before update on session_list_subject for each row execute function session_list_subject_change_xid();`,
    );
    this.addSql(`create index session_list_subject_change_index on session_list_subject (change_xid) where kind = 'face';`);
    this.addSql(`create index session_list_subject_scope_index on session_list_subject (tenant_id, kind, key_version, session_id);`);
    this.addSql(`drop index if exists session_list_subject_tenant_index;`);
  }

  override down(): void {
    this.addSql(`create index if not exists session_list_subject_tenant_index on session_list_subject (tenant_id, kind, key_version);`);
    this.addSql(`drop index if exists session_list_subject_scope_index;`);
    this.addSql(`drop index if exists session_list_subject_change_index;`);
    this.addSql(`drop trigger if exists session_list_subject_change_xid on session_list_subject;`);
    this.addSql(`drop function if exists session_list_subject_change_xid();`);
    this.addSql(`alter table session_list_subject drop column if exists change_xid;`);
  }
}
