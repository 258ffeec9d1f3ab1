import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook claim leases a delivery in `claimed_until` instead of pushing `next_attempt_at` a
 * lease ahead (issue 29.3). The column is in no index and no index predicate, so the lease is a
 * HOT update: the six indexes of the row (due, claim, event/target, destination, tenant, primary
 * key) are no longer written on every claim, only on the insert and the result. The fill factor
 * leaves room on each page for the leased version of the rows beside it, which a HOT update
 * needs (a claim leases a batch of neighbouring rows in one statement).
 */
export class Migration20261128070000H35WebhookLease extends Migration {
  override name = 'Migration20261128070000H35WebhookLease';

  override up(): void {
    this.addSql(`alter table webhook_delivery add column if not exists claimed_until timestamptz null;`);
    this.addSql(`alter table webhook_delivery set (fillfactor = 60);`);
  }

  override down(): void {
    this.addSql(`alter table webhook_delivery reset (fillfactor);`);
    this.addSql(`alter table webhook_delivery drop column if exists claimed_until;`);
  }
}
