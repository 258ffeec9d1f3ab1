import type { ApiKeyCache } from './auth/key-cache.js';
import type { ServiceSecrets } from './auth/secrets.js';
import type { LiveStatusHub } from './events/live-status.js';
import type { EventBus } from './events/outbox.js';
import type { AmlNameIndex } from './engines/aml/name-index.js';
import type { NfcTrust } from './engines/document/nfc.js';
import type { EngineRegistry } from './engines/registry.js';
import type { RateLimits } from './limits/rate-limits.js';
import type { DecisionHooks } from './sessions/decision-hooks.js';
import type { ServiceTokens } from './sessions/service-tokens.js';
import type { WorkflowCache } from './workflows/workflow-cache.js';
import type { AppMetrics } from './metrics/metrics.js';

/** Services every request of one app may use; built by the composition root (`startApp`), one set per app. */
export interface Services {
  /** Keys derived from the master key (encryption at rest, session links). */
  secrets: ServiceSecrets;
  /** Service-token signing, introspection and revocation. */
  tokens: ServiceTokens;
  /** In-process fan-out of committed events. */
  bus: EventBus;
  /** Committed status changes of this and (with PostgreSQL) every other instance, for subscriptions. */
  live: LiveStatusHub;
  /** Principals of recently used API keys; a key change made by this app empties it at once (`invalidate`). */
  apiKeys: ApiKeyCache;
  /** In-memory trigram index of the listed AML names, or null when AML_NAME_INDEX is off (screens use pg_trgm). */
  amlIndex: AmlNameIndex | null;
  /** Request rate limits, failed-authentication throttling and engine quotas (shared in PostgreSQL on a server). */
  rateLimits: RateLimits;
  /** The engine of each node: sandbox or this app's live engines (`engineFor`, `missingLiveProviders`). */
  engines: EngineRegistry;
  /** List gates and input observers of the session decision flow. */
  decisionHooks: DecisionHooks;
  /** The built-in workflows, read once: what a new session runs. */
  workflows: WorkflowCache;
  /** CSCA certificates for NFC passive authentication (NFC_CSCA_CERTS_PATH), loaded at start. */
  nfcTrust: NfcTrust;
  /** This app's Prometheus registry and instruments (`GET /metrics`). */
  metrics: AppMetrics;
  /** Wakes this app's webhook emitter (a test event, a replay); an emitter process finds the work on its next poll. */
  wakeEmitter(): void;
}
