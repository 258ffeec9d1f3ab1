import { Migration } from '@mikro-orm/migrations';

/**
 * Lists that gate verifications (docs/design.md "Lists"), their entries, each tenant's secret face
 * template key, and the gate material a session's input leaves behind (a selfie's template, the
 * screened name). Face templates live in `embedding vector(1024)` under a cosine HNSW index where
 * the server has pgvector, else in `template bytea` scanned exactly; src/lists/face-index.ts
 * detects which at run time.
 */
export class Migration20261122000400Lists extends Migration {
  override name = 'Migration20261122000400Lists';

  override up(): void {
    this.addSql(`create table list (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      name text not null,
      type text not null check (type in ('document', 'name', 'face')),
      policy text not null check (policy in ('auto_decline', 'review')),
      built_in boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`);
    // One built-in list per type and tenant; created lazily, so the insert must be race-safe.
    this.addSql(`create unique index list_built_in_unique on list (tenant_id, type) where built_in;`);
    this.addSql(`create index list_tenant_index on list (tenant_id, created_at);`);
    this.addSql(`create table list_entry (
      id uuid primary key,
      list_id uuid not null references list (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      entry_type text not null check (entry_type in ('document', 'name', 'face')),
      fingerprint text not null,
      template bytea null,
      key_version integer null,
      reason text null,
      added_by text not null,
      session_id uuid null,
      added_at timestamptz not null default now()
    );`);
    this.addSql(`create index list_entry_list_index on list_entry (list_id, added_at, id);`);
    this.addSql(`create index list_entry_fingerprint_index on list_entry (tenant_id, entry_type, fingerprint);`);
    this.addSql(`do $$
    begin
      if exists (select 1 from pg_extension where extname = 'vector') then
        execute 'alter table list_entry add column embedding vector(1024) null';
        execute 'create index list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)';
      end if;
    end $$;`);
    this.addSql(`create table face_template_key (
      tenant_id uuid primary key references tenant (id) on delete cascade,
      version integer not null,
      sealed_secret text not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create table session_list_subject (
      session_id uuid not null references session (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      node_type text not null,
      kind text not null check (kind in ('face', 'name')),
      fingerprint text null,
      template bytea null,
      key_version integer null,
      created_at timestamptz not null default now(),
      primary key (session_id, node_type, kind)
    );`);
  }
}
