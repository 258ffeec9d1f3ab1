import { Migration } from '@mikro-orm/migrations';

/**
 * The console's session search (docs/design.md "Session search"). `session_search` holds, per
 * session, the normalised names read from its document or typed (pg_trgm word similarity, GIN)
 * and keyed digests of its e-mail, phone and document numbers (`exact_tokens`, GIN): HMACs under a
 * per-tenant secret sealed by the master key (`session_search_key`), so the search table adds no
 * readable copy of those fields. `vendor_data` is searched in `session` itself through a trigram
 * index; the person view lists a `vendor_data`'s sessions through a btree on it. List entries get
 * a sealed readable label beside their fingerprint (`label_sealed`); the gate still matches on
 * fingerprints only.
 */
export class Migration20261126210000H25Search extends Migration {
  override name = 'Migration20261126210000H25Search';

  override up(): void {
    this.addSql(`create table session_search_key (
      tenant_id uuid primary key references tenant (id) on delete cascade,
      sealed_secret text not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create table session_search (
      session_id uuid primary key references session (id) on delete cascade,
      tenant_id uuid not null,
      environment text not null check (environment in ('live', 'sandbox')),
      name_normalized text not null default '',
      exact_tokens text[] not null default '{}',
      updated_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_search_name_trgm on session_search using gin (name_normalized gin_trgm_ops);`);
    this.addSql(`create index session_search_exact_tokens on session_search using gin (exact_tokens);`);
    this.addSql(`create index session_vendor_data_trgm on session using gin (vendor_data gin_trgm_ops);`);
    this.addSql(`create index session_person_index on session (tenant_id, environment, vendor_data, created_at desc, id desc);`);
    this.addSql(`alter table list_entry add column label_sealed text null;`);
  }

  override down(): void {
    this.addSql(`alter table list_entry drop column if exists label_sealed;`);
    this.addSql(`drop index if exists session_person_index;`);
    this.addSql(`drop index if exists session_vendor_data_trgm;`);
    this.addSql(`drop table if exists session_search;`);
    this.addSql(`drop table if exists session_search_key;`);
  }
}
