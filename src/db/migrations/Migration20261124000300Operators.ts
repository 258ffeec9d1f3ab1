import { Migration } from '@mikro-orm/migrations';

/**
 * Operators: people who sign in to the console for one tenant with a role, their console
 * sign-ins (the cookie's token stored hashed, and the environment they work in),
 * and on each audited status change the operator who made it, by id and by name as it was then.
 */
export class Migration20261124000300Operators extends Migration {
  override name = 'Migration20261124000300Operators';

  override up(): void {
    this.addSql(`create table operator (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      email text not null unique check (email = lower(email) and length(email) between 3 and 254),
      name text not null check (length(name) between 1 and 200),
      role text not null check (role in ('viewer', 'reviewer', 'admin')),
      password_hash text not null,
      failed_logins integer not null default 0,
      locked_until timestamptz null,
      created_at timestamptz not null default now(),
      disabled_at timestamptz null
    );`);
    this.addSql(`create index operator_tenant_idx on operator (tenant_id);`);
    this.addSql(`create table operator_login (
      id uuid primary key,
      operator_id uuid not null references operator (id) on delete cascade,
      token_hash text not null unique,
      environment text not null check (environment in ('live', 'sandbox')),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz null
    );`);
    this.addSql(`create index operator_login_operator_idx on operator_login (operator_id);`);
    this.addSql(`alter table session_status_change add column actor_operator_id uuid null, add column actor_name text null;`);
  }

  override down(): void {
    this.addSql(`alter table session_status_change drop column if exists actor_operator_id, drop column if exists actor_name;`);
    this.addSql(`drop table if exists operator_login;`);
    this.addSql(`drop table if exists operator;`);
  }
}
