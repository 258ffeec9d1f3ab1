import { Migration } from '@mikro-orm/migrations';

/**
 * Retakes instead of dead ends: a node whose photo could not be read (blurred, too small, no
 * MRZ) waits for a new submission (`resubmission_requested`, with the reason) until the
 * workflow's `max_attempts` submissions have been made. Each node result counts its submissions.
 */
export class Migration20261124000100Resubmission extends Migration {
  override name = 'Migration20261124000100Resubmission';

  override up(): void {
    this.addSql(`alter table session_node_result add column attempts int not null default 0, add column resubmission_reason text null;`);
    this.addSql(`update session_node_result set attempts = 1 where status <> 'pending';`);
    this.addSql(`alter table session_node_result drop constraint if exists session_node_result_status_check;`);
    this.addSql(
      `alter table session_node_result add constraint session_node_result_status_check
         check (status in ('pending', 'passed', 'failed', 'review', 'skipped', 'resubmission_requested'));`,
    );
    this.addSql(`alter table workflow add column max_attempts int not null default 3;`);
  }

  override down(): void {
    this.addSql(`update session_node_result set status = 'failed' where status = 'resubmission_requested';`);
    this.addSql(`alter table session_node_result drop constraint if exists session_node_result_status_check;`);
    this.addSql(
      `alter table session_node_result add constraint session_node_result_status_check
         check (status in ('pending', 'passed', 'failed', 'review', 'skipped'));`,
    );
    this.addSql(`alter table session_node_result drop column if exists attempts, drop column if exists resubmission_reason;`);
    this.addSql(`alter table workflow drop column if exists max_attempts;`);
  }
}
