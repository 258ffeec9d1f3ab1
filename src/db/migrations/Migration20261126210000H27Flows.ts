import { Migration } from '@mikro-orm/migrations';

/**
 * Workflows with rules, revisions and replay (issue 27): a workflow's rules (JSON Logic conditions
 * and outcomes) beside its nodes; every save an immutable `workflow_revision` (the definition as
 * JSON), the workflow pointing at its published and draft revisions; each session the revision it
 * runs; every publication audited with who published; replays of a draft over past sessions with
 * their progress and report. Existing workflows become revision 1, published; existing sessions
 * keep a null revision (they ran the workflow as it stood before revisions).
 */
export class Migration20261126210000H27Flows extends Migration {
  override name = 'Migration20261126210000H27Flows';

  override up(): void {
    this.addSql(`alter table workflow add column rules jsonb not null default '[]';`);
    this.addSql(`alter table workflow add column published_revision integer not null default 1;`);
    this.addSql(`alter table workflow add column draft_revision integer null;`);
    this.addSql(`create table workflow_revision (
      workflow_id text not null references workflow (id),
      revision integer not null,
      definition jsonb not null,
      created_at timestamptz not null default now(),
      created_by text null,
      primary key (workflow_id, revision)
    );`);
    this.addSql(`insert into workflow_revision (workflow_id, revision, definition, created_at)
      select id, 1, jsonb_build_object('name', name, 'type', type, 'nodes', nodes, 'rules', '[]'::jsonb,
        'complianceLevel', compliance_level, 'amlScoreThreshold', aml_score_threshold, 'maxAttempts', max_attempts,
        'duplicates', duplicates, 'capture', capture, 'liveness', liveness), updated_at
      from workflow;`);
    this.addSql(`create table workflow_publication (
      id uuid primary key,
      workflow_id text not null references workflow (id),
      revision integer not null,
      previous_revision integer null,
      actor_key_id uuid null,
      actor_operator_id uuid null,
      actor_name text null,
      published_at timestamptz not null default now()
    );`);
    this.addSql(`create index workflow_publication_workflow_idx on workflow_publication (workflow_id, published_at);`);
    this.addSql(`alter table session add column workflow_revision integer null;`);
    this.addSql(`create table workflow_replay (
      id uuid primary key,
      tenant_id uuid not null references tenant (id),
      environment text not null,
      workflow_id text not null references workflow (id),
      revision integer not null,
      selection jsonb not null,
      status text not null default 'queued',
      total integer not null default 0,
      done integer not null default 0,
      report jsonb null,
      error text null,
      created_at timestamptz not null default now(),
      finished_at timestamptz null
    );`);
    this.addSql(`create index workflow_replay_scope_idx on workflow_replay (tenant_id, environment, created_at);`);
  }

  override down(): void {
    this.addSql(`drop table if exists workflow_replay;`);
    this.addSql(`alter table session drop column if exists workflow_revision;`);
    this.addSql(`drop table if exists workflow_publication;`);
    this.addSql(`drop table if exists workflow_revision;`);
    this.addSql(`alter table workflow drop column if exists draft_revision;`);
    this.addSql(`alter table workflow drop column if exists published_revision;`);
    this.addSql(`alter table workflow drop column if exists rules;`);
  }
}
