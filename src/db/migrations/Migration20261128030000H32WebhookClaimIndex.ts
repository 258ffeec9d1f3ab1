import { Migration } from '@mikro-orm/migrations';

/**
 * The webhook claim walks pending deliveries group by group, (tenant, target) pairs, instead of
 * scanning the due queue in time order (issue 29.3): a tenant at its in-flight cap with a backlog
 * of thousands used to be skipped row by row on every claim (38 ms a claim at a 5,000 backlog),
 * which bound the emitter to ~25 claims a second. With this index a claim costs one probe per
 * pending group plus the rows it takes.
 */
export class Migration20261128030000H32WebhookClaimIndex extends Migration {
  override name = 'Migration20261128030000H32WebhookClaimIndex';

  override up(): void {
    this.addSql(
      `create index if not exists webhook_delivery_claim_index on webhook_delivery (tenant_id, target, next_attempt_at) where status = 'pending';`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists webhook_delivery_claim_index;`);
  }
}
