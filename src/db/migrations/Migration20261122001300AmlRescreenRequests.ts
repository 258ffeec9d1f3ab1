import { Migration } from '@mikro-orm/migrations';

/**
 * Ongoing AML monitoring's transactional outbox: every transaction that writes listed entities
 * (an import, an upsert) records which lists changed, and the re-screening job works through the
 * requests not done yet (src/sessions/aml-monitoring.ts). A crash between the import and the
 * re-screen leaves the request pending, so the next run still does it.
 */
export class Migration20261122001300AmlRescreenRequests extends Migration {
  override name = 'Migration20261122001300AmlRescreenRequests';

  override up(): void {
    this.addSql(`create table aml_rescreen_request (
      id uuid primary key,
      lists text[] not null,
      requested_at timestamptz not null default now(),
      claimed_at timestamptz null,
      done_at timestamptz null
    );`);
    this.addSql(`create index aml_rescreen_request_pending_index on aml_rescreen_request (requested_at) where done_at is null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists aml_rescreen_request;`);
  }
}
