import { Migration } from '@mikro-orm/migrations';

/**
 * Share tokens and the import fee ledger. A token is stored only as the SHA-256 of its opaque
 * value; redemption is a conditional UPDATE on `redeemed_at is null`, so concurrent imports of one
 * token let exactly one through. Ledger rows carry no foreign keys: fees stay on the books even
 * when a session or tenant is deleted.
 */
export class Migration20261122000600Sharing extends Migration {
  override name = 'Migration20261122000600Sharing';

  override up(): void {
    this.addSql(`create table share_token (
      id uuid primary key,
      token_hash text not null unique,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      session_id uuid not null references session (id) on delete cascade,
      partner_application_id uuid not null references tenant (id) on delete cascade,
      created_by_key_id uuid null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      redeemed_at timestamptz null,
      redeemed_session_id uuid null references session (id) on delete set null,
      redeemed_by_key_id uuid null
    );`);
    this.addSql(`create index share_token_session_index on share_token (session_id);`);

    this.addSql(`create table ledger_entry (
      id uuid primary key,
      environment text not null check (environment in ('live', 'sandbox')),
      share_token_id uuid not null,
      original_session_id uuid not null,
      imported_session_id uuid not null,
      payer_tenant_id uuid not null,
      originating_tenant_id uuid not null,
      beneficiary text not null check (beneficiary in ('service', 'originating_tenant')),
      amount_micros bigint not null check (amount_micros > 0),
      currency text not null default 'USD',
      created_at timestamptz not null default now(),
      unique (share_token_id, beneficiary)
    );`);
    this.addSql(`create index ledger_entry_payer_index on ledger_entry (payer_tenant_id, environment, created_at desc, id desc);`);
    this.addSql(
      `create index ledger_entry_originating_index on ledger_entry (originating_tenant_id, environment, created_at desc, id desc);`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists ledger_entry;`);
    this.addSql(`drop table if exists share_token;`);
  }
}
