import { Migration } from '@mikro-orm/migrations';

/**
 * Sanctioned / PEP / adverse-media entities (global, not per tenant), their normalised names
 * under a pg_trgm GIN index for candidate retrieval, and the log of list imports.
 */
export class Migration20261122000300AmlEntities extends Migration {
  override name = 'Migration20261122000300AmlEntities';

  override up(): void {
    this.addSql(`create table aml_entity (
      id text primary key,
      source_list text not null check (source_list in ('OFAC_SDN', 'EU_CONSOLIDATED', 'UN_SC', 'PEP', 'ADVERSE_MEDIA')),
      source_id text not null,
      kind text not null check (kind in ('person', 'organization', 'vessel', 'aircraft', 'other')),
      primary_name text not null,
      aliases text[] not null default '{}',
      dates_of_birth text[] not null default '{}',
      countries text[] not null default '{}',
      programs text[] not null default '{}',
      topics text[] not null default '{}',
      imported_at timestamptz not null default now(),
      constraint aml_entity_source_list_source_id_unique unique (source_list, source_id)
    );`);
    // One row per distinct normalised form (normalizeName / nameVariants) of the primary name and
    // each alias. source_list is copied here so the list filter needs no join.
    this.addSql(`create table aml_entity_name (
      entity_id text not null references aml_entity (id) on delete cascade,
      source_list text not null,
      name_normalized text not null,
      primary key (entity_id, name_normalized)
    );`);
    this.addSql(`create index aml_entity_name_trgm_index on aml_entity_name using gin (name_normalized gin_trgm_ops);`);
    // Exact lookups (a normalised name equal to the query) and the list replacement delete.
    this.addSql(`create index aml_entity_name_name_index on aml_entity_name (name_normalized);`);
    this.addSql(`create index aml_entity_name_source_list_index on aml_entity_name (source_list);`);
    this.addSql(`create table aml_list_import (
      id uuid primary key,
      source_list text not null,
      file_format text not null,
      entity_count integer not null,
      checksum text not null,
      imported_at timestamptz not null default now()
    );`);
    this.addSql(`create index aml_list_import_list_imported_index on aml_list_import (source_list, imported_at desc);`);
  }

  override down(): void {
    this.addSql(`drop table if exists aml_list_import;`);
    this.addSql(`drop table if exists aml_entity_name;`);
    this.addSql(`drop table if exists aml_entity;`);
  }
}
