import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook bodies as snapshots of the event: each `session.status_changed` outbox row keeps the
 * session's decision as it was in the transaction that changed it (sealed with the master key,
 * since an approval's decision holds its service token). Rows written before have none; their
 * webhooks are built from the session as it is when they are sent, as before.
 */
export class Migration20261124000500EventSnapshots extends Migration {
  override name = 'Migration20261124000500EventSnapshots';

  override up(): void {
    this.addSql(`alter table outbox_event add column snapshot text null;`);
  }

  override down(): void {
    this.addSql(`alter table outbox_event drop column if exists snapshot;`);
  }
}
