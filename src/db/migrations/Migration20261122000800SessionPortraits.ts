import { Migration } from '@mikro-orm/migrations';

/**
 * The document portrait's face embedding, kept (encrypted, never the image) from the document
 * step until the selfie step has compared against it, then deleted.
 */
export class Migration20261122000800SessionPortraits extends Migration {
  override name = 'Migration20261122000800SessionPortraits';

  override up(): void {
    this.addSql(`create table session_portrait (
      session_id uuid primary key references session (id) on delete cascade,
      embedding_encrypted text not null,
      created_at timestamptz not null default now()
    );`);
  }

  override down(): void {
    this.addSql(`drop table if exists session_portrait;`);
  }
}
