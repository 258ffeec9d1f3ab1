import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../auth/context.js';
import { validationError } from '../errors.js';

/** Most days a decisions chart covers: a quarter. */
export const DECISION_DAYS_MAX = 90;

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
  if (!Number.isInteger(days) || days < 1 || days > DECISION_DAYS_MAX)
    throw validationError([{ field: 'days', code: 'invalid', message: `days must be 1 to ${DECISION_DAYS_MAX}` }]);
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
