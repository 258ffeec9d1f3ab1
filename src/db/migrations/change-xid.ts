/**
 * SQL of a `change_xid` column (the in-memory face index, src/duplicates/template-index.ts): the id
 * of the transaction that last wrote each row of `table`, a default on insert and a trigger on
 * update, under a partial index (`where`) so a process reads the rows written since its watermark.
 */
export function changeXidSql(table: string, where: string): { up: string[]; down: string[] } {
  return {
    up: [
      `alter table ${table} add column change_xid xid8 not null default pg_current_xact_id();`,
      `create or replace function ${table}_change_xid() returns trigger language plpgsql as $$
      begin
        new.change_xid := pg_current_xact_id();
        return new;
      end $$;`,
      `create trigger ${table}_change_xid before update on ${table} for each row execute function ${table}_change_xid();`,
      `create index ${table}_change_index on ${table} (change_xid) where ${where};`,
    ],
    down: [
      `drop index if exists ${table}_change_index;`,
      `drop trigger if exists ${table}_change_xid on ${table};`,
      `drop function if exists ${table}_change_xid();`,
      `alter table ${table} drop column if exists change_xid;`,
    ],
  };
}
