import { Migration } from '@mikro-orm/migrations';

/**
 * The reviewer console's proof, team and workload (issue 25, branch h25-work):
 * - "from where" in the audit trail: the client address of each console sign-in, copied onto the
 *   operator audit rows, evidence views and status changes made through it;
 * - operator invitations by one-time link (only the link token's SHA-256 is kept, single use,
 *   expiring) instead of a password an admin passes on;
 * - API keys' last use (time and client address) in a table of its own, written in batches;
 * - a review SLA per workflow (per tenant and environment: built-in workflows are shared) and
 *   assignment rules (round robin among a pool of operators, for a workflow and/or a country).
 */
export class Migration20261126204500H25ConsoleWork extends Migration {
  override name = 'Migration20261126204500H25ConsoleWork';

  override up(): void {
    this.addSql(`alter table operator_login add column client_address text null;`);
    this.addSql(`alter table operator_audit add column client_address text null;`);
    this.addSql(`create index operator_audit_scope_idx on operator_audit (tenant_id, created_at desc, id desc);`);
    this.addSql(`alter table evidence_view add column client_address text null;`);
    this.addSql(`create index evidence_view_tenant_idx on evidence_view (tenant_id, viewed_at desc);`);
    this.addSql(`alter table session_status_change add column client_address text null;`);
    this.addSql(
      `create index session_status_change_tenant_idx on session_status_change (tenant_id, created_at desc) where actor in ('reviewer', 'api');`,
    );
    this.addSql(`create table operator_invitation (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      email text not null check (email = lower(email) and length(email) between 3 and 254),
      name text not null check (length(name) between 1 and 200),
      role text not null check (role in ('viewer', 'reviewer', 'admin')),
      token_hash text not null unique,
      invited_by_operator_id uuid null,
      invited_by_name text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      accepted_at timestamptz null,
      revoked_at timestamptz null,
      operator_id uuid null
    );`);
    this.addSql(`create index operator_invitation_tenant_idx on operator_invitation (tenant_id, created_at);`);
    // Beside api_key, not in it: an update of api_key bumps api_key_epoch and empties every server's key cache.
    this.addSql(`create table api_key_usage (
      api_key_id uuid primary key references api_key (id) on delete cascade,
      last_used_at timestamptz not null,
      last_used_address text null
    );`);
    this.addSql(`create table workflow_sla (
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      workflow_id text not null,
      sla_minutes integer not null check (sla_minutes between 1 and 525600),
      updated_at timestamptz not null default now(),
      primary key (tenant_id, environment, workflow_id)
    );`);
    this.addSql(`create table assignment_rule (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      workflow_id text null,
      country text null check (country is null or country ~ '^[A-Z]{2}$'),
      operator_ids jsonb not null,
      next_index integer not null default 0,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index assignment_rule_scope_idx on assignment_rule (tenant_id, environment);`);
  }

  override down(): void {
    this.addSql(`drop table if exists assignment_rule;`);
    this.addSql(`drop table if exists workflow_sla;`);
    this.addSql(`drop table if exists api_key_usage;`);
    this.addSql(`drop table if exists operator_invitation;`);
    this.addSql(`drop index if exists session_status_change_tenant_idx;`);
    this.addSql(`alter table session_status_change drop column if exists client_address;`);
    this.addSql(`drop index if exists evidence_view_tenant_idx;`);
    this.addSql(`alter table evidence_view drop column if exists client_address;`);
    this.addSql(`drop index if exists operator_audit_scope_idx;`);
    this.addSql(`alter table operator_audit drop column if exists client_address;`);
    this.addSql(`alter table operator_login drop column if exists client_address;`);
  }
}
