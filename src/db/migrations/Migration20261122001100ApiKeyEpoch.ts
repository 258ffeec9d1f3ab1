import { Migration } from '@mikro-orm/migrations';

/**
 * A counter bumped by every change to `api_key` (revocation, deletion), whatever makes it: this
 * server, the CLI, another instance or SQL by hand. Servers cache the principals of API keys and
 * drop them when the counter moves (src/auth/key-cache.ts).
 */
export class Migration20261122001100ApiKeyEpoch extends Migration {
  override name = 'Migration20261122001100ApiKeyEpoch';

  override up(): void {
    this.addSql(`create table api_key_epoch (
      singleton boolean primary key default true check (singleton),
      epoch bigint not null
    );`);
    this.addSql(`insert into api_key_epoch (singleton, epoch) values (true, 0);`);
    this.addSql(`create function bump_api_key_epoch() returns trigger language plpgsql as $$
      begin
        update api_key_epoch set epoch = epoch + 1;
        return null;
      end
    $$;`);
    this.addSql(`create trigger api_key_epoch_bump after update or delete or truncate on api_key
      for each statement execute function bump_api_key_epoch();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists api_key_epoch_bump on api_key;`);
    this.addSql(`drop function if exists bump_api_key_epoch();`);
    this.addSql(`drop table if exists api_key_epoch;`);
  }
}
