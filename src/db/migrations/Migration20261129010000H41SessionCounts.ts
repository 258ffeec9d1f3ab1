import { Migration } from '@mikro-orm/migrations';

/** The furthest stage a session row stands for (0 created … 3 decided): its kept stage or its status's, as SQL over `row`. */
const REACHED = (row: string) =>
  `greatest(${row}.furthest_stage, case ${row}.status when 'in_progress' then 1 when 'in_review' then 2 when 'approved' then 3 when 'declined' then 3 else 0 end)`;

/**
 * The console's funnel and the review queue's `totalCount` flat as a tenant grows (issue 29.6):
 * both counted sessions (at a million, bench:growth: the funnel 70× its time at 10k, the count
 * 17×). Now sessions are counted as they change, by the hour they were created in and the stage
 * they reached (the funnel), and by status (the queue's count):
 *
 * - Statement-level triggers with transition tables on `session` append signed rows to
 *   `session_funnel_change` and `session_status_count_change`, one per key a statement changes:
 *   +1 for each stage a new or raised session reached and for its status, −1 for what a deleted
 *   one had or an updated one left. Appending, never updating, keeps concurrent creates of one
 *   tenant from queueing on a counter row's lock.
 * - A job (src/jobs/jobs.ts) folds those rows into `session_funnel_count` (scope, hour, stage),
 *   `session_funnel_day_count` (scope, UTC day, stage: the same counts by day, so a 90-day window
 *   sums some 450 rows, not 8,640) and `session_status_count` (scope, status); a read sums counts
 *   and pending changes, so it is exact before the fold as after.
 *
 * Stages come from `generate_series(0, 3)` filtered, not `generate_series(0, reached)`: with
 * constant bounds the planner knows it is 4 rows, where a per-row bound is estimated at 1,000 and
 * a large statement's cost then crosses `jit_above_cost` (the first draft of the funnel's read
 * spent 800 ms compiling on every call at 300k sessions, for a 0.9 ms query).
 *
 * Backfilled here from the session rows.
 */
export class Migration20261129010000H41SessionCounts extends Migration {
  override name = 'Migration20261129010000H41SessionCounts';

  override up(): void {
    this.addSql(`create table session_funnel_count (
      tenant_id uuid not null,
      environment text not null,
      hour timestamptz not null,
      stage smallint not null,
      sessions bigint not null,
      primary key (tenant_id, environment, hour, stage)
    );`);
    this.addSql(`create table session_funnel_day_count (
      tenant_id uuid not null,
      environment text not null,
      day timestamptz not null,
      stage smallint not null,
      sessions bigint not null,
      primary key (tenant_id, environment, day, stage)
    );`);
    this.addSql(`create table session_funnel_change (
      id bigint generated always as identity primary key,
      tenant_id uuid not null,
      environment text not null,
      hour timestamptz not null,
      stage smallint not null,
      sessions integer not null
    );`);
    this.addSql(`create index session_funnel_change_scope_index on session_funnel_change (tenant_id, environment, hour);`);
    this.addSql(`create table session_status_count (
      tenant_id uuid not null,
      environment text not null,
      status text not null,
      sessions bigint not null,
      primary key (tenant_id, environment, status)
    );`);
    this.addSql(`create table session_status_count_change (
      id bigint generated always as identity primary key,
      tenant_id uuid not null,
      environment text not null,
      status text not null,
      sessions integer not null
    );`);
    this.addSql(`create index session_status_count_change_scope_index on session_status_count_change (tenant_id, environment, status);`);
    this.addSql(`create or replace function session_counts_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into session_funnel_change (tenant_id, environment, hour, stage, sessions)
    select n.tenant_id, n.environment, date_trunc('hour', n.created_at, 'UTC'), g.stage, count(*)
      from new_sessions n cross join generate_series(0, 3) g(stage) where g.stage <= ${REACHED('n')}
     group by 1, 2, 3, 4;
    insert into session_status_count_change (tenant_id, environment, status, sessions)
    select tenant_id, environment, status, count(*) from new_sessions group by 1, 2, 3;
  elsif tg_op = 'DELETE' then
    insert into session_funnel_change (tenant_id, environment, hour, stage, sessions)
    select o.tenant_id, o.environment, date_trunc('hour', o.created_at, 'UTC'), g.stage, -count(*)
      from old_sessions o cross join generate_series(0, 3) g(stage) where g.stage <= ${REACHED('o')}
     group by 1, 2, 3, 4;
    insert into session_status_count_change (tenant_id, environment, status, sessions)
    select tenant_id, environment, status, -count(*) from old_sessions group by 1, 2, 3;
  else
    insert into session_funnel_change (tenant_id, environment, hour, stage, sessions)
    select tenant_id, environment, hour, stage, sum(sessions)
      from (select n.tenant_id, n.environment, date_trunc('hour', n.created_at, 'UTC') as hour, g.stage, 1 as sessions
              from new_sessions n cross join generate_series(0, 3) g(stage) where g.stage <= ${REACHED('n')}
            union all
            select o.tenant_id, o.environment, date_trunc('hour', o.created_at, 'UTC'), g.stage, -1
              from old_sessions o cross join generate_series(0, 3) g(stage) where g.stage <= ${REACHED('o')}) moved
     group by 1, 2, 3, 4
    having sum(sessions) <> 0;
    insert into session_status_count_change (tenant_id, environment, status, sessions)
    select tenant_id, environment, status, sum(sessions)
      from (select tenant_id, environment, status, 1 as sessions from new_sessions
            union all
            select tenant_id, environment, status, -1 from old_sessions) moved
     group by 1, 2, 3
    having sum(sessions) <> 0;
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger session_counts_insert after insert on session
      referencing new table as new_sessions for each statement execute function session_counts_change();`);
    this.addSql(`create trigger session_counts_delete after delete on session
      referencing old table as old_sessions for each statement execute function session_counts_change();`);
    this.addSql(`create trigger session_counts_update after update on session
      referencing old table as old_sessions new table as new_sessions for each statement execute function session_counts_change();`);
    this.addSql(`insert into session_funnel_count (tenant_id, environment, hour, stage, sessions)
      select s.tenant_id, s.environment, date_trunc('hour', s.created_at, 'UTC'), g.stage, count(*)
        from session s cross join generate_series(0, 3) g(stage) where g.stage <= ${REACHED('s')}
       group by 1, 2, 3, 4;`);
    this.addSql(`insert into session_funnel_day_count (tenant_id, environment, day, stage, sessions)
      select tenant_id, environment, date_trunc('day', hour, 'UTC'), stage, sum(sessions) from session_funnel_count group by 1, 2, 3, 4;`);
    this.addSql(`insert into session_status_count (tenant_id, environment, status, sessions)
      select tenant_id, environment, status, count(*) from session group by 1, 2, 3;`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists session_counts_update on session;`);
    this.addSql(`drop trigger if exists session_counts_delete on session;`);
    this.addSql(`drop trigger if exists session_counts_insert on session;`);
    this.addSql(`drop function if exists session_counts_change();`);
    this.addSql(`drop table if exists session_status_count_change;`);
    this.addSql(`drop table if exists session_status_count;`);
    this.addSql(`drop table if exists session_funnel_change;`);
    this.addSql(`drop table if exists session_funnel_day_count;`);
    this.addSql(`drop table if exists session_funnel_count;`);
  }
}
