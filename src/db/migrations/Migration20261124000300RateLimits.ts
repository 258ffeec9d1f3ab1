import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit counters shared by every instance on a PostgreSQL server (src/limits/rate-limits.ts):
 * one row per limited key and window, in the shape rate-limiter-flexible's PostgreSQL store reads
 * and writes. Unlogged: a counter lost in a crash only lets a client a few requests more.
 */
export class Migration20261124000300RateLimits extends Migration {
  override name = 'Migration20261124000300RateLimits';

  override up(): void {
    this.addSql(`create unlogged table rate_limit (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    );`);
    this.addSql(`create index rate_limit_expire_idx on rate_limit (expire);`);
  }

  override down(): void {
    this.addSql(`drop table if exists rate_limit;`);
  }
}
