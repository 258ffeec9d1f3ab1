import { Migration } from '@mikro-orm/migrations';

/**
 * The console's sign-in brake counts failures per e-mail address and client address (audit N4):
 * one row per pair, keyed by a digest of both (no address or e-mail in clear), with the e-mail's
 * own digest for the per-account slow-down. The per-operator lock (`operator.failed_logins`,
 * `locked_until`) let anyone lock any operator out and told which e-mails were operators; those
 * columns are no longer read or written.
 */
export class Migration20261126008100H28SignInBrake extends Migration {
  override name = 'Migration20261126008100H28SignInBrake';

  override up(): void {
    this.addSql(`create table sign_in_failure (
      attempt_key text primary key,
      account_key text not null,
      failures integer not null default 0,
      locked_until timestamptz null,
      updated_at timestamptz not null default now()
    );`);
    this.addSql(`create index sign_in_failure_account_idx on sign_in_failure (account_key, updated_at);`);
  }

  override down(): void {
    this.addSql(`drop table if exists sign_in_failure;`);
  }
}
