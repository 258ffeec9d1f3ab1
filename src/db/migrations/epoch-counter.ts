/**
 * SQL of an epoch counter: a one-row table whose `epoch` a statement-level trigger bumps on every
 * statement of `events` on `watched`, whoever runs it. Processes that cache rows of `watched`
 * compare the counter with the value they cached at to know their copy is still current.
 */
export function epochCounterSql(table: string, watched: string, events: string): { up: string[]; down: string[] } {
  return {
    up: [
      `create table ${table} (
      singleton boolean primary key default true check (singleton),
      epoch bigint not null
    );`,
      `insert into ${table} (singleton, epoch) values (true, 0);`,
      `create function bump_${table}() returns trigger language plpgsql as $$
      begin
        update ${table} set epoch = epoch + 1;
        return null;
      end
    $$;`,
      `create trigger ${table}_bump after ${events} on ${watched}
      for each statement execute function bump_${table}();`,
    ],
    down: [
      `drop trigger if exists ${table}_bump on ${watched};`,
      `drop function if exists bump_${table}();`,
      `drop table if exists ${table};`,
    ],
  };
}
