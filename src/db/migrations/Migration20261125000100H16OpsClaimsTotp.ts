import { Migration } from '@mikro-orm/migrations';

/**
 * Operator work (issue 16, branch h16-ops): who holds each in-review case (a claim, so two
 * reviewers do not decide one case), each operator's optional TOTP second factor (its secret sealed
 * with the master key, and the last time step used so a code cannot be replayed), a flag that makes
 * an operator change an admin-set password at the next sign-in, and the audit trail of operators'
 * changes that are not session status changes (claims, people, keys, second factors).
 */
export class Migration20261125000100H16OpsClaimsTotp extends Migration {
  override name = 'Migration20261125000100H16OpsClaimsTotp';

  override up(): void {
    this.addSql(`create table session_claim (
      session_id uuid primary key references session (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      operator_id uuid not null references operator (id) on delete cascade,
      claimed_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_claim_operator_idx on session_claim (operator_id);`);
    this.addSql(`create table operator_totp (
      operator_id uuid primary key references operator (id) on delete cascade,
      secret_sealed text not null,
      confirmed_at timestamptz null,
      last_used_step bigint null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`alter table operator add column password_change_required boolean not null default false;`);
    this.addSql(`create table operator_audit (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text null check (environment in ('live', 'sandbox')),
      actor_operator_id uuid null,
      actor_name text not null,
      action text not null,
      target_type text not null,
      target_id text not null,
      details jsonb not null default '{}',
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index operator_audit_tenant_idx on operator_audit (tenant_id, created_at);`);
  }

  override down(): void {
    this.addSql(`drop table if exists operator_audit;`);
    this.addSql(`alter table operator drop column if exists password_change_required;`);
    this.addSql(`drop table if exists operator_totp;`);
    this.addSql(`drop table if exists session_claim;`);
  }
}
