import { Migration } from '@mikro-orm/migrations';

/**
 * AML hit dispositions (issue 25.3): a reviewer's "true match" or "false positive" on one hit of
 * a session, with a reason, kept as an append-only history (the latest row of a session and entity
 * is the current one). A false positive is remembered for the person (a keyed hash of the
 * screened name, date of birth and country) and the entity (a hash of its listed record), so a
 * re-screen of the same person against the same entity record does not raise the hit again.
 */
export class Migration20261126210000H25AmlDisposition extends Migration {
  override name = 'Migration20261126210000H25AmlDisposition';

  override up(): void {
    this.addSql(`create table aml_hit_disposition (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      session_id uuid not null references session (id) on delete cascade,
      entity_id text not null,
      subject_hash text not null,
      entity_hash text not null,
      disposition text not null check (disposition in ('true_match', 'false_positive')),
      reason text not null,
      actor text not null,
      actor_operator_id uuid,
      actor_name text,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index aml_hit_disposition_session_idx on aml_hit_disposition (session_id, entity_id, created_at);`);
    this.addSql(
      `create index aml_hit_disposition_subject_idx on aml_hit_disposition (tenant_id, environment, subject_hash, entity_id, created_at);`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists aml_hit_disposition;`);
  }
}
