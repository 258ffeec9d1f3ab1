import { Migration } from '@mikro-orm/migrations';

/**
 * Evidence kept for operators: the images and documents an end user submits, encrypted with a
 * per-tenant data key (itself sealed by the master key) and kept for the tenant's retention
 * period (default 30 days, 0 keeps nothing), and one audit row per view. Face list entries still
 * keep only templates (src/lists/face-templates.ts).
 */
export class Migration20261124000400Evidence extends Migration {
  override name = 'Migration20261124000400Evidence';

  override up(): void {
    this.addSql(
      `alter table tenant add column evidence_retention_days integer not null default 30 check (evidence_retention_days between 0 and 3650);`,
    );
    this.addSql(`create table tenant_data_key (
      tenant_id uuid primary key references tenant (id) on delete cascade,
      key_sealed text not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create table evidence (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      session_id uuid not null references session (id) on delete cascade,
      node_type text not null,
      kind text not null,
      content_type text not null,
      byte_length integer not null,
      iv bytea not null,
      tag bytea not null,
      ciphertext bytea not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );`);
    this.addSql(`create index evidence_session_idx on evidence (session_id, created_at);`);
    this.addSql(`create index evidence_expires_idx on evidence (expires_at);`);
    this.addSql(`create table evidence_view (
      id uuid primary key,
      evidence_id uuid not null,
      session_id uuid not null,
      tenant_id uuid not null references tenant (id) on delete cascade,
      operator_id uuid null,
      operator_name text not null,
      viewed_at timestamptz not null default now()
    );`);
    this.addSql(`create index evidence_view_session_idx on evidence_view (session_id, viewed_at);`);
  }

  override down(): void {
    this.addSql(`drop table if exists evidence_view;`);
    this.addSql(`drop table if exists evidence;`);
    this.addSql(`drop table if exists tenant_data_key;`);
    this.addSql(`alter table tenant drop column if exists evidence_retention_days;`);
  }
}
