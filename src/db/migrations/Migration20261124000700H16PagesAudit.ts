import { Migration } from '@mikro-orm/migrations';

/**
 * Console changes audited by name (issue 16): a list entry keeps the name of the operator who
 * added it beside `added_by`, and a webhook delivery keeps who replayed it last and when.
 */
export class Migration20261124000700H16PagesAudit extends Migration {
  override name = 'Migration20261124000700H16PagesAudit';

  override up(): void {
    this.addSql(`alter table list_entry add column added_by_name text null;`);
    this.addSql(`alter table webhook_delivery add column replayed_by text null, add column replayed_at timestamptz null;`);
  }

  override down(): void {
    this.addSql(`alter table webhook_delivery drop column if exists replayed_at, drop column if exists replayed_by;`);
    this.addSql(`alter table list_entry drop column if exists added_by_name;`);
  }
}
