import { Migration } from '@mikro-orm/migrations';

/**
 * Secrets at rest. The per-session callback secret becomes one per (tenant, environment), sealed
 * with the master key (envelope encryption) in `callback_secret`. The master key is not reachable
 * here on every installation (the migrator runs from `npm run migrate` without the service's
 * secrets, and SQL cannot seal), so this migration only makes room: the old plaintext
 * `tenant.callback_secret` becomes nullable, and at start the service seals it as the tenant's
 * `live` secret and empties the column in one transaction (src/auth/sealed-columns.ts). A tenant's
 * `sandbox` secret is generated on first use. `webhook_delivery.body` keeps its type: plaintext
 * bodies of older rows are sealed by the same start-up step, in batches.
 */
export class Migration20261123000300SecretsAtRest extends Migration {
  override name = 'Migration20261123000300SecretsAtRest';

  override up(): void {
    this.addSql(`create table callback_secret (
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      secret_sealed text not null,
      created_at timestamptz not null default now(),
      primary key (tenant_id, environment)
    );`);
    this.addSql(`alter table tenant alter column callback_secret drop not null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists callback_secret;`);
  }
}
