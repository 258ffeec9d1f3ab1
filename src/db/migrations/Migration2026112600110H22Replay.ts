import { Migration } from '@mikro-orm/migrations';

/**
 * Replayed selfies and duplicate identities (docs/duplicates.md):
 * - `workflow.duplicates` (`off | review | decline`, default `review`): what a face or document
 *   seen under another `vendor_data` of the tenant and environment does to the step.
 * - `session_selfie_print`: a selfie's SHA-256 and 64-bit perceptual hash (never the image), to
 *   find a selfie submitted again in the tenant and environment (`selfie_reused`).
 * - `session_document_print`: a document's number and country as an HMAC under the tenant's face
 *   template key (never the number), to find the same document under another `vendor_data`.
 * - Sessions' selfie templates (`session_list_subject`, kind `face`) are searched 1:N; where the
 *   server has pgvector they get a `vector(256)` copy under a cosine HNSW index, filled here from
 *   the bytes (signed bytes 0–255 → −128…127), as list entries have.
 */
export class Migration2026112600110H22Replay extends Migration {
  override name = 'Migration2026112600110H22Replay';

  override up(): void {
    this.addSql(
      `alter table workflow add column duplicates text not null default 'review' check (duplicates in ('off', 'review', 'decline'));`,
    );
    this.addSql(`create table session_selfie_print (
      session_id uuid primary key references session (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null,
      sha256 text not null,
      phash bigint not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_selfie_print_scope_index on session_selfie_print (tenant_id, environment, sha256);`);
    this.addSql(`create table session_document_print (
      session_id uuid primary key references session (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null,
      fingerprint text not null,
      key_version integer not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_document_print_fingerprint_index on session_document_print (tenant_id, environment, fingerprint);`);
    this.addSql(`create index session_list_subject_tenant_index on session_list_subject (tenant_id, kind, key_version);`);
    this.addSql(`do $$
    begin
      if exists (select 1 from pg_extension where extname = 'vector') then
        execute 'alter table session_list_subject add column embedding vector(256) null';
        execute 'update session_list_subject set embedding = (
            select array_agg(case when get_byte(template, i) > 127 then get_byte(template, i) - 256 else get_byte(template, i) end order by i)
              from generate_series(0, length(template) - 1) as i
          )::real[]::vector
          where kind = ''face'' and template is not null and length(template) = 256';
        execute 'create index session_list_subject_embedding_hnsw on session_list_subject using hnsw (embedding vector_cosine_ops)';
      end if;
    end $$;`);
  }

  override down(): void {
    this.addSql(`drop index if exists session_list_subject_embedding_hnsw;`);
    this.addSql(`alter table session_list_subject drop column if exists embedding;`);
    this.addSql(`drop index if exists session_list_subject_tenant_index;`);
    this.addSql(`drop table if exists session_document_print;`);
    this.addSql(`drop table if exists session_selfie_print;`);
    this.addSql(`alter table workflow drop column if exists duplicates;`);
  }
}
