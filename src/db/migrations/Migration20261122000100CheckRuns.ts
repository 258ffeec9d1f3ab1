import { Migration } from '@mikro-orm/migrations';

/** Standalone check results (ID verification, proof of address, AML), without images. */
export class Migration20261122000100CheckRuns extends Migration {
  override name = 'Migration20261122000100CheckRuns';

  override up(): void {
    this.addSql(`create table check_run (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      kind text not null check (kind in ('id_verification', 'poa', 'aml')),
      status text not null,
      result jsonb not null,
      metadata jsonb null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index check_run_tenant_kind_created_index on check_run (tenant_id, kind, created_at desc);`);
  }

  override down(): void {
    this.addSql(`drop table if exists check_run;`);
  }
}
