import type { Logger } from 'pino';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Config } from '../shared/config.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from '../db/orm.js';
import type { EventBus } from '../events/outbox.js';
import { WebhookEmitter, type EmitterOptions } from './emitter-loops.js';
import { bindPersonalDataSealing } from '../auth/personal-data.js';
import { sealLegacyPlaintext } from '../auth/sealed-columns.js';

/** Connections the emitter's own pool may hold (claims, fan-out, result writes). */
export const EMITTER_POOL_MAX = 4;

/** A running emitter with its own database pool. */
export interface RunningEmitter {
  emitter: WebhookEmitter;
  /** Finishes in-flight attempts, writes them, and closes the pool. */
  stop(): Promise<void>;
}

/**
 * Starts an emitter on its own pool against `url` (the server's database, or the embedded
 * database's socket), so its queries never share a connection with a request's transaction.
 * In-process on embedded PGlite, pass the app's ORM instead: PGlite's socket interleaves the
 * messages of concurrent connections, so embedded mode keeps to one connection (src/db/database.ts).
 */
export async function startEmitter(options: {
  url: string;
  config: Config;
  secrets: ServiceSecrets;
  logger: Logger;
  bus?: EventBus;
  /** An ORM to share (embedded in-process); the emitter then neither creates nor closes one. */
  sharedOrm?: MikroORM;
  /**
   * Seal what an older version left in clear before sending (the emitter reads sealed bodies
   * only). The server does it at start; an emitter process of its own asks for it, in case it
   * starts first after an upgrade.
   */
  sealLegacyPlaintext?: boolean;
  /** Told of every HTTP attempt (the `/metrics` delivery series). */
  onAttempt?: EmitterOptions['onAttempt'];
}): Promise<RunningEmitter> {
  const orm = options.sharedOrm ?? (await createOrm({ url: options.url, poolMax: EMITTER_POOL_MAX, logger: options.logger }));
  // Bodies built from a session read its sealed personal data.
  if (!options.sharedOrm) bindPersonalDataSealing(orm, options.secrets);
  if (options.sealLegacyPlaintext) await sealLegacyPlaintext(orm.em.fork(), options.secrets, options.logger);
  const emitter = new WebhookEmitter({
    orm,
    secrets: options.secrets,
    logger: options.logger,
    allowLoopback: options.config.DEV_ALLOW_LOOPBACK_WEBHOOKS,
    retryScheduleSeconds: options.config.WEBHOOK_RETRY_SCHEDULE_SECONDS,
    claimLeaseSeconds: options.config.WEBHOOK_CLAIM_LEASE_SECONDS,
    timeoutMs: options.config.WEBHOOK_TIMEOUT_SECONDS * 1000,
    pollIntervalMs: options.config.EMITTER_POLL_INTERVAL_MS,
    maxInFlight: options.config.WEBHOOK_MAX_IN_FLIGHT,
    maxInFlightPerTarget: options.config.WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION,
    maxInFlightPerTenant: options.config.WEBHOOK_MAX_IN_FLIGHT_PER_TENANT,
    bus: options.bus,
    onAttempt: options.onAttempt,
  });
  emitter.start();
  return {
    emitter,
    async stop() {
      await emitter.stop();
      if (!options.sharedOrm) await orm.close(true);
    },
  };
}
