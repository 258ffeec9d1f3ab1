/**
 * Raw SQL: (b) the dashboard's figures are aggregates the ORM cannot say: `generate_series`,
 * `count(*) filter (…)`, CTEs and `extract(epoch …)`, and the counts' fold (`delete … returning`
 * into `insert … on conflict`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../auth/context.js';
import { validationError } from '../shared/errors.js';

/** Most days a chart looks back over: a quarter. */
export const DECISION_DAYS_MAX = 90;

/** Refuses a look-back outside 1 to DECISION_DAYS_MAX days (every chart's window). */
function assertDays(days: number): void {
  if (!Number.isInteger(days) || days < 1 || days > DECISION_DAYS_MAX)
    throw validationError([{ field: 'days', code: 'invalid', message: `days must be 1 to ${DECISION_DAYS_MAX}` }]);
}

/** Decisions made on one UTC day, by outcome. */
export interface DecisionDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  approved: number;
  declined: number;
}

/**
 * Decisions per UTC day over the last `days` days (today included), by outcome, whoever made them
 * (the decision engine or a reviewer); a day without any is there with zeros, so a chart needs no
 * gap filling. One statement, counted by the database.
 */
export async function decisionsPerDay(em: EntityManager, scope: TenantScope, days: number): Promise<DecisionDay[]> {
  assertDays(days);
  const rows = await em.execute<{ day: string; approved: number; declined: number }[]>(
    `with days as (
       select generate_series(date_trunc('day', now() at time zone 'UTC') - make_interval(days => ?),
                              date_trunc('day', now() at time zone 'UTC'), interval '1 day') as day
     ), decided as (
       select date_trunc('day', c.created_at at time zone 'UTC') as day, c.to_status
         from session_status_change c join session s on s.id = c.session_id
        where c.tenant_id = ? and s.environment = ? and c.to_status in ('approved', 'declined')
          and c.created_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - make_interval(days => ?)
     )
     select to_char(d.day, 'YYYY-MM-DD') as day,
            (count(x.to_status) filter (where x.to_status = 'approved'))::int as approved,
            (count(x.to_status) filter (where x.to_status = 'declined'))::int as declined
       from days d left join decided x on x.day = d.day
      group by d.day order by d.day`,
    [days - 1, scope.tenantId, scope.environment, days - 1],
  );
  return rows.map((row) => ({ day: row.day, approved: Number(row.approved), declined: Number(row.declined) }));
}

/** Sessions declined or sent to review, counted by the cause of their first (decisive) reason. */
export interface ReasonCount {
  /** The reason catalogue code (src/domain/reasons.ts), or a tenant's own. */
  cause: string;
  declined: number;
  inReview: number;
}

/**
 * Decisions of the last `days` days by reason (issue 24): every session now declined or in review
 * that changed to that status in the window, counted by the cause of its first reason (the verdict
 * lists the decisive one first; a reviewer's coded decline is put first). Reasons stored before
 * causes existed count under their rule code. Most frequent first; one statement.
 */
export async function decisionsByReason(em: EntityManager, scope: TenantScope, days: number): Promise<ReasonCount[]> {
  assertDays(days);
  const rows = await em.execute<{ cause: string; declined: number; in_review: number }[]>(
    `select coalesce(s.reasons -> 0 ->> 'cause', s.reasons -> 0 ->> 'code', 'none') as cause,
            (count(*) filter (where s.status = 'declined'))::int as declined,
            (count(*) filter (where s.status = 'in_review'))::int as in_review
       from session s
      where s.tenant_id = ? and s.environment = ? and s.status in ('declined', 'in_review')
        and s.updated_at >= now() - make_interval(days => ?)
      group by 1 order by count(*) desc, 1`,
    [scope.tenantId, scope.environment, days],
  );
  return rows.map((row) => ({ cause: row.cause, declined: Number(row.declined), inReview: Number(row.in_review) }));
}

/** The review backlog by how long each case has waited since it last changed. */
export interface ReviewBacklog {
  underAnHour: number;
  underADay: number;
  underAWeek: number;
  older: number;
}

/** Counts the in-review sessions of a scope by age, in one statement. */
export async function reviewBacklog(em: EntityManager, scope: TenantScope): Promise<ReviewBacklog> {
  const [row] = await em.execute<{ hour: number; day: number; week: number; older: number }[]>(
    `select (count(*) filter (where now() - updated_at < interval '1 hour'))::int as hour,
            (count(*) filter (where now() - updated_at >= interval '1 hour' and now() - updated_at < interval '1 day'))::int as day,
            (count(*) filter (where now() - updated_at >= interval '1 day' and now() - updated_at < interval '7 days'))::int as week,
            (count(*) filter (where now() - updated_at >= interval '7 days'))::int as older
       from session where tenant_id = ? and environment = ? and status = 'in_review'`,
    [scope.tenantId, scope.environment],
  );
  return { underAnHour: Number(row!.hour), underADay: Number(row!.day), underAWeek: Number(row!.week), older: Number(row!.older) };
}

/**
 * How far the sessions created in a window got, each stage counting those that reached it or a
 * later one: created, started (in_progress), submitted (in_review or a decision) and decided
 * (approved or declined). A session that expired counts for the furthest stage it reached.
 */
export interface Funnel {
  created: number;
  started: number;
  submitted: number;
  decided: number;
}

/** The furthest stage a status stands for (0 created, 1 started, 2 submitted, 3 decided), as SQL over `column`. */
function stageOf(column: string): string {
  return `case ${column} when 'in_progress' then 1 when 'in_review' then 2 when 'approved' then 3 when 'declined' then 3 else 0 end`;
}

/**
 * The funnel of the sessions of a scope created in the last `days` days (rolling, from now), flat
 * however many there are (migration H41SessionCounts): the window's whole UTC days are summed from
 * the per-day counts (`session_funnel_day_count`), the whole hours before the first of them from
 * the per-hour counts (`session_funnel_count`), and the changes not yet folded into either
 * (`session_funnel_change`): some 450 rows for 90 days. Only the window's first, partial hour
 * counts session rows, each at the furthest stage it reached (`furthest_stage` or its status).
 */
export async function sessionFunnel(em: EntityManager, scope: TenantScope, days: number): Promise<Funnel> {
  assertDays(days);
  // The window's bounds are written out in each part (no CTE), so each is an index range planned
  // with its values; the stages are a constant series, so no estimate crosses jit_above_cost.
  const since = `now() - make_interval(days => ?)`;
  const wholeHours = `date_trunc('hour', ${since}, 'UTC') + interval '1 hour'`;
  const wholeDays = `date_trunc('day', ${since}, 'UTC') + interval '1 day'`;
  const rows = await em.execute<{ stage: number; sessions: string | number }[]>(
    `select stage, sum(sessions) as sessions from (
       select g.stage, count(*) as sessions
         from session s cross join generate_series(0, 3) g(stage)
        where s.tenant_id = ? and s.environment = ? and s.created_at >= ${since} and s.created_at < ${wholeHours}
          and g.stage <= greatest(s.furthest_stage, ${stageOf('s.status')})
        group by g.stage
       union all
       select stage, sum(sessions) from session_funnel_count
        where tenant_id = ? and environment = ? and hour >= ${wholeHours} and hour < ${wholeDays} group by stage
       union all
       select stage, sum(sessions) from session_funnel_day_count
        where tenant_id = ? and environment = ? and day >= ${wholeDays} group by stage
       union all
       select stage, sum(sessions) from session_funnel_change
        where tenant_id = ? and environment = ? and hour >= ${wholeHours} group by stage
     ) parts group by stage`,
    [
      ...[scope.tenantId, scope.environment, days, days],
      ...[scope.tenantId, scope.environment, days, days],
      ...[scope.tenantId, scope.environment, days],
      ...[scope.tenantId, scope.environment, days],
    ],
  );
  const reached = (stage: number) => Number(rows.find((row) => Number(row.stage) === stage)?.sessions ?? 0);
  return { created: reached(0), started: reached(1), submitted: reached(2), decided: reached(3) };
}

/** Most changes one fold statement moves, so a backlog is folded in bounded steps. */
const FOLD_BATCH = 50_000;

/** A table of counts and the table of signed changes the session triggers append to it (migration H41SessionCounts). */
interface CountTables {
  counts: string;
  changes: string;
  /** The key columns besides the scope's. */
  key: string[];
  /** For hourly counts: the table of the same counts by UTC day, folded in the same statement. */
  days?: string;
}

/** The funnel's counts: sessions per scope, hour of creation and stage reached, and per day. */
const FUNNEL_COUNTS: CountTables = {
  counts: 'session_funnel_count',
  changes: 'session_funnel_change',
  key: ['hour', 'stage'],
  days: 'session_funnel_day_count',
};
/** Sessions per scope and status. */
const STATUS_COUNTS: CountTables = { counts: 'session_status_count', changes: 'session_status_count_change', key: ['status'] };

/** Folds one table's changes into its counts, a batch per statement; returns the changes folded. */
async function foldChanges(em: EntityManager, { counts, changes, key, days }: CountTables): Promise<number> {
  const columns = ['tenant_id', 'environment', ...key].join(', ');
  const byDay = days
    ? `, daily as (
         insert into ${days} (tenant_id, environment, day, stage, sessions)
         select tenant_id, environment, date_trunc('day', hour, 'UTC'), stage, sum(sessions) from moved group by 1, 2, 3, 4
         on conflict (tenant_id, environment, day, stage) do update set sessions = ${days}.sessions + excluded.sessions
       )`
    : '';
  let folded = 0;
  for (;;) {
    const [row] = await em.execute<{ moved: string | number }[]>(
      `with moved as (
         delete from ${changes} where id in (select id from ${changes} order by id limit ? for update skip locked)
         returning ${columns}, sessions
       ), summed as (
         insert into ${counts} (${columns}, sessions)
         select ${columns}, sum(sessions) from moved group by ${columns}
         on conflict (${columns}) do update set sessions = ${counts}.sessions + excluded.sessions
       )${byDay}
       select count(*) as moved from moved`,
      [FOLD_BATCH],
    );
    const moved = Number(row?.moved ?? 0);
    folded += moved;
    if (moved < FOLD_BATCH) return folded;
  }
}

/**
 * Adds the changes the session triggers appended into the funnel's and the statuses' counts and
 * deletes them (the periodic job of src/jobs/jobs.ts): keeps what a read sums small. Each step is
 * one statement, so a read sees a change either still pending or already counted, never both or
 * neither; concurrent folds skip each other's rows. Returns the changes folded.
 */
export async function foldSessionCounts(em: EntityManager): Promise<number> {
  return (await foldChanges(em, FUNNEL_COUNTS)) + (await foldChanges(em, STATUS_COUNTS));
}

/** How many sessions of a scope are in `status` now: the kept count plus the changes not yet folded, two index reads. */
export async function sessionsInStatus(em: EntityManager, scope: TenantScope, status: string): Promise<number> {
  const [row] = await em.execute<{ sessions: string | number | null }[]>(
    `select (select coalesce(sum(sessions), 0) from session_status_count where tenant_id = ? and environment = ? and status = ?)
          + (select coalesce(sum(sessions), 0) from session_status_count_change where tenant_id = ? and environment = ? and status = ?) as sessions`,
    [scope.tenantId, scope.environment, status, scope.tenantId, scope.environment, status],
  );
  return Number(row?.sessions ?? 0);
}

/**
 * Time from a session's creation to its first decision, for the sessions of a scope decided in
 * the last `days` days: how many fell in each bucket, and the median and 90th percentile.
 */
export interface TimeToDecision {
  /** Sessions decided in the window. */
  decided: number;
  underAMinute: number;
  /** 1 to 10 minutes. */
  underTenMinutes: number;
  /** 10 to 60 minutes. */
  underAnHour: number;
  /** 1 to 24 hours. */
  underADay: number;
  /** A day or more. */
  older: number;
  /** Median, in seconds; null when nothing was decided. */
  p50Seconds: number | null;
  /** 90th percentile, in seconds; null when nothing was decided. */
  p90Seconds: number | null;
}

/** Buckets and percentiles of the time to decision (first approval or decline), in one statement. */
export async function timeToDecision(em: EntityManager, scope: TenantScope, days: number): Promise<TimeToDecision> {
  assertDays(days);
  const [row] = await em.execute<Record<string, number | string | null>[]>(
    `with decided as (
       select extract(epoch from (min(c.created_at) - s.created_at)) as seconds
         from session s join session_status_change c on c.session_id = s.id and c.to_status in ('approved', 'declined')
        where s.tenant_id = ? and s.environment = ?
        group by s.id, s.created_at
       having min(c.created_at) >= now() - make_interval(days => ?)
     )
     select count(*)::int as decided,
            (count(*) filter (where seconds < 60))::int as minute,
            (count(*) filter (where seconds >= 60 and seconds < 600))::int as ten,
            (count(*) filter (where seconds >= 600 and seconds < 3600))::int as hour,
            (count(*) filter (where seconds >= 3600 and seconds < 86400))::int as day,
            (count(*) filter (where seconds >= 86400))::int as older,
            percentile_cont(0.5) within group (order by seconds) as p50,
            percentile_cont(0.9) within group (order by seconds) as p90
       from decided`,
    [scope.tenantId, scope.environment, days],
  );
  const seconds = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Math.round(Number(value)));
  return {
    decided: Number(row!.decided),
    underAMinute: Number(row!.minute),
    underTenMinutes: Number(row!.ten),
    underAnHour: Number(row!.hour),
    underADay: Number(row!.day),
    older: Number(row!.older),
    p50Seconds: seconds(row!.p50),
    p90Seconds: seconds(row!.p90),
  };
}
