import { Migration } from '@mikro-orm/migrations';

/**
 * A list's entry count kept on its row (issue 29.6): `GET /v1/lists`, `GET /v1/lists/{id}` and
 * each page of `GET /v1/lists/{id}/entries` answer with the count, which was a `count(*)` of the
 * list's entries on every call, growing with them (bench:growth: `GET /v1/lists` 4.5 ms with 1,000
 * entries, 9.1 ms with 10,000). Statement-level triggers with transition tables add and subtract
 * per statement, so a bulk insert or a key rotation's delete updates each list once. The cost:
 * inserts into one list take that list's row lock until they commit, one after another.
 */
export class Migration20261128170000H39ListEntryCount extends Migration {
  override name = 'Migration20261128170000H39ListEntryCount';

  override up(): void {
    this.addSql(`alter table list add column entry_count integer not null default 0;`);
    this.addSql(`update list set entry_count = counted.entries
      from (select list_id, count(*)::int as entries from list_entry group by list_id) counted
     where counted.list_id = list.id;`);
    this.addSql(`create or replace function list_entry_count_change() returns trigger language plpgsql as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    update list set entry_count = entry_count - gone.entries
      from (select list_id, count(*)::int as entries from old_entries group by list_id) gone
     where list.id = gone.list_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    update list set entry_count = entry_count + added.entries
      from (select list_id, count(*)::int as entries from new_entries group by list_id) added
     where list.id = added.list_id;
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger list_entry_count_insert after insert on list_entry
      referencing new table as new_entries for each statement execute function list_entry_count_change();`);
    this.addSql(`create trigger list_entry_count_delete after delete on list_entry
      referencing old table as old_entries for each statement execute function list_entry_count_change();`);
    this.addSql(`create trigger list_entry_count_update after update on list_entry
      referencing old table as old_entries new table as new_entries for each statement execute function list_entry_count_change();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists list_entry_count_update on list_entry;`);
    this.addSql(`drop trigger if exists list_entry_count_delete on list_entry;`);
    this.addSql(`drop trigger if exists list_entry_count_insert on list_entry;`);
    this.addSql(`drop function if exists list_entry_count_change();`);
    this.addSql(`alter table list drop column if exists entry_count;`);
  }
}
