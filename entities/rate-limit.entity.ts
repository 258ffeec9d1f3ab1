import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A rate-limit counter shared by every instance on a PostgreSQL server: one row per limited key
 * and window, in the shape rate-limiter-flexible's PostgreSQL store reads and writes (the library
 * owns the SQL; src/limits/rate-limits.ts). Unlogged: a counter lost in a crash lets a few more through.
 */
export const RateLimitSchema = defineEntity({
  name: 'RateLimit',
  tableName: 'rate_limit',
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    /** When the window ends, in milliseconds since the epoch; null for a key that does not expire. */
    expire: p.bigint('number').nullable(),
  },
});
/** A rate-limit counter row. */
export type RateLimit = InferEntity<typeof RateLimitSchema>;
