import { Migration } from '@mikro-orm/migrations';

/** Tenants, API keys and workflows; pg_trgm always, pgvector where the server ships it. */
export class Migration20261122000000Foundation extends Migration {
  override name = 'Migration20261122000000Foundation';

  override up(): void {
    this.addSql(`create extension if not exists pg_trgm;`);
    // Debian's PostgreSQL 15 has no pgvector package: enable it only where it is available.
    this.addSql(`do $$ begin
      if exists (select 1 from pg_available_extensions where name = 'vector') then
        create extension if not exists vector;
      end if;
    end $$;`);
    this.addSql(`create table tenant (
      id uuid primary key,
      name text not null,
      callback_secret text not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create table api_key (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      prefix text not null,
      key_hash text not null unique,
      name text not null default '',
      created_at timestamptz not null default now(),
      revoked_at timestamptz null
    );`);
    this.addSql(`create index api_key_tenant_id_index on api_key (tenant_id);`);
    this.addSql(`create table workflow (
      id text primary key,
      tenant_id uuid null references tenant (id) on delete cascade,
      name text not null,
      type text not null check (type in ('user', 'business')),
      built_in boolean not null default false,
      nodes jsonb not null,
      compliance_level text not null,
      aml_score_threshold integer not null default 80 check (aml_score_threshold between 0 and 100),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`);
    this.addSql(`create index workflow_tenant_id_index on workflow (tenant_id);`);
  }

  override down(): void {
    this.addSql(`drop table if exists workflow;`);
    this.addSql(`drop table if exists api_key;`);
    this.addSql(`drop table if exists tenant;`);
  }
}
