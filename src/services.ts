import type { ApiKeyCache } from './auth/key-cache.js';
import type { ServiceSecrets } from './auth/secrets.js';
import type { LiveStatusHub } from './events/live-status.js';
import type { EventBus } from './events/outbox.js';
import type { AmlNameIndex } from './engines/aml/name-index.js';
import type { RateLimits } from './limits/rate-limits.js';
import type { ServiceTokens } from './sessions/service-tokens.js';

/** Process-wide services every request may use; built once by the composition root. */
export interface Services {
  /** Keys derived from the master key (encryption at rest, session links). */
  secrets: ServiceSecrets;
  /** Service-token signing, introspection and revocation. */
  tokens: ServiceTokens;
  /** In-process fan-out of committed events. */
  bus: EventBus;
  /** Committed status changes of this and (with PostgreSQL) every other instance, for subscriptions. */
  live: LiveStatusHub;
  /** Principals of recently used API keys, dropped on any key change. */
  apiKeys: ApiKeyCache;
  /** In-memory trigram index of the listed AML names, or null when AML_NAME_INDEX is off (screens use pg_trgm). */
  amlIndex: AmlNameIndex | null;
  /** Request rate limits, failed-authentication throttling and engine quotas (shared in PostgreSQL on a server). */
  rateLimits: RateLimits;
}
