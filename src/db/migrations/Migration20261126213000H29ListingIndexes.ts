import { Migration } from '@mikro-orm/migrations';

/** The furthest stage a status stands for (0 created, 1 started, 2 submitted, 3 decided), as SQL over `column`. */
const STAGE_OF = (column: string) =>
  `case ${column} when 'in_progress' then 1 when 'in_review' then 2 when 'approved' then 3 when 'declined' then 3 else 0 end`;

/**
 * Listings on indexes at a million sessions (issue 29.6): the sessions listing filtered by
 * `vendor_data` reads an index of its own instead of a sequential scan, and the console's funnel
 * reads each session's furthest stage from the session row (`furthest_stage`, kept by a trigger
 * on every status change, backfilled from the status history here) instead of joining every
 * status change. Creates write status `pending` (stage 0, the default): the trigger costs them nothing.
 */
export class Migration20261126213000H29ListingIndexes extends Migration {
  override name = 'Migration20261126213000H29ListingIndexes';

  override up(): void {
    this.addSql(`create index session_vendor_data_index on session (tenant_id, environment, vendor_data, created_at desc, id desc);`);
    this.addSql(`alter table session add column furthest_stage smallint not null default 0;`);
    this.addSql(`create or replace function session_furthest_stage() returns trigger language plpgsql as $$
      begin
        new.furthest_stage := greatest(new.furthest_stage, ${STAGE_OF('old.status')}, ${STAGE_OF('new.status')});
        return new;
      end $$;`);
    this.addSql(
      `create trigger session_furthest_stage before update of status on session for each row execute function session_furthest_stage();`,
    );
    this.addSql(`update session s set furthest_stage = x.stage
      from (select s2.id, greatest(${STAGE_OF('s2.status')}, coalesce(max(${STAGE_OF('c.to_status')}), 0)) as stage
              from session s2 left join session_status_change c on c.session_id = s2.id
             group by s2.id, s2.status) x
     where x.id = s.id and x.stage > 0;`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists session_furthest_stage on session;`);
    this.addSql(`drop function if exists session_furthest_stage();`);
    this.addSql(`alter table session drop column if exists furthest_stage;`);
    this.addSql(`drop index if exists session_vendor_data_index;`);
  }
}
