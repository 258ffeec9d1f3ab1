import { Migration } from '@mikro-orm/migrations';

/**
 * When a session last entered review (issue 25, "Workload"): the review SLA's age counts from it,
 * not from creation, and "next case" and the assignment rules take the longest in review first.
 * Sessions that were in review before the upgrade take the time of their last recorded move into
 * review (the status trail has it), else their last update.
 */
export class Migration20261127000100H25ReviewEntry extends Migration {
  override name = 'Migration20261127000100H25ReviewEntry';

  override up(): void {
    this.addSql(`alter table session add column review_entered_at timestamptz null;`);
    this.addSql(`update session s set review_entered_at = coalesce(
        (select max(c.created_at) from session_status_change c where c.session_id = s.id and c.to_status = 'in_review'),
        s.updated_at)
      where s.status = 'in_review'
         or exists (select 1 from session_status_change c where c.session_id = s.id and c.to_status = 'in_review');`);
  }

  override down(): void {
    this.addSql(`alter table session drop column if exists review_entered_at;`);
  }
}
