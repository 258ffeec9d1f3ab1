import { Migration } from '@mikro-orm/migrations';

/**
 * The reason catalogue (issue 24, branch h24-reasons): a tenant's own reason codes beside the
 * built-in catalogue of src/domain/reasons.ts (one set per environment, like every tenant object),
 * and on a step a reviewer sent back, the catalogue code the reviewer chose and the note the person
 * reads (the reviewer saw it in a preview before sending).
 */
export class Migration20261126007100H24Reasons extends Migration {
  override name = 'Migration20261126007100H24Reasons';

  override up(): void {
    this.addSql(`create table reason_code (
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      code text not null,
      category text not null check (category in ('document', 'face', 'fraud', 'screening', 'data', 'technical')),
      severity text not null check (severity in ('low', 'medium', 'high', 'critical')),
      retryable boolean not null,
      reviewer_text text not null,
      end_user_message text not null,
      created_at timestamptz not null default now(),
      primary key (tenant_id, environment, code)
    );`);
    this.addSql(`alter table session_node_result add column retake_reason_code text null;`);
    this.addSql(`alter table session_node_result add column retake_note text null;`);
  }

  override down(): void {
    this.addSql(`alter table session_node_result drop column if exists retake_note;`);
    this.addSql(`alter table session_node_result drop column if exists retake_reason_code;`);
    this.addSql(`drop table if exists reason_code;`);
  }
}
