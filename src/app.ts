import type { MikroORM } from '@mikro-orm/postgresql';
import pino, { type Logger } from 'pino';
import type { Config } from './shared/config.js';
import { loggerOptions, withRedaction } from './shared/logging.js';
import { openDatabase, type Database } from './db/database.js';
import { loadVdsTrust } from './engines/document/vds.js';
import { createEngineRegistry } from './engines/registry.js';
import { startEngineExecutor, type RunningEngines } from './engines/pool/start.js';
import { createListGate } from './lists/gate.js';
import { captureEvidence } from './evidence/evidence.service.js';
import { capturePortrait } from './sessions/portrait.js';
import { indexSearchOnInput } from './sessions/search.js';
import { detectDuplicates } from './duplicates/duplicates.js';
import type { DecisionHooks } from './sessions/decision-hooks.js';
import { WorkflowCache } from './workflows/workflow-cache.js';
import { closeMrzReader } from './engines/document/mrz-reader.js';
import { closeOcrWorker } from './engines/poa/ocr.js';
import { createServiceSecrets, resolveMasterKey } from './auth/secrets.js';
import { bindPersonalDataSealing, sealLegacyPersonalData } from './auth/personal-data.js';
import { sealLegacyPlaintext } from './auth/sealed-columns.js';
import { startEventFanout, type EventFanout } from './events/live-fanout.js';
import { LiveStatusHub } from './events/live-status.js';
import { EventBus } from './events/outbox.js';
import { getSchema } from './graphql/schema.js';
import { startJobs, type Jobs } from './jobs/jobs.js';
import { startEmitter, type RunningEmitter } from './webhooks/run.js';
import type { Services } from './services.js';
import { ApiKeyCache } from './auth/key-cache.js';
import { ApiKeyUsage } from './auth/key-usage.js';
import { decisionSnapshotter } from './sessions/decision.js';
import { createRateLimits, type RateLimits } from './limits/rate-limits.js';
import { AmlNameIndex } from './engines/aml/name-index.js';
import { ServiceTokens } from './sessions/service-tokens.js';
import { buildHttpServer, type HttpServer } from './http/fastify-server.js';
import { seedDemoTenant, type DemoTenant } from './tenants/demo.js';
import { syncBuiltInWorkflows } from './workflows/workflow.service.js';
import { AppMetrics } from './metrics/metrics.js';
import { poolReader, readDatabaseGauges } from './metrics/database-gauges.js';
import { serveMetrics, type MetricsListener } from './http/metrics-endpoint.js';
import { startTracing, type Tracing } from './observability/tracing.js';
import { observeEngines } from './engines/pool/metrics-observer.js';

/** A running service: HTTP server, database, and how to stop them in order. */
export interface RunningApp {
  /** Base URL the server listens on, e.g. `http://127.0.0.1:3000`. */
  url: string;
  config: Config;
  logger: Logger;
  orm: MikroORM;
  database: Database;
  http: HttpServer;
  /** Process-wide services (secrets, service tokens, event bus). */
  services: Services;
  /** The job runner, unless JOBS_ENABLED is false. */
  jobs: Jobs | null;
  /** The in-process webhook emitter, unless EMITTER_IN_PROCESS is false (then `npm run emitter` runs it). */
  emitter: RunningEmitter | null;
  /** Where CPU-bound engine work runs (thread pool, queue of worker processes, or inline). */
  engines: RunningEngines;
  /** Set on the first start of an empty database: the demo tenant and its keys (shown once). */
  demo: DemoTenant | null;
  /** This process's tracing (flush it to see spans at once; tests). */
  tracing: Tracing;
  /** The separate metrics listener (METRICS_PORT), or null when metrics are served on the API port or not at all. */
  metricsListener: MetricsListener | null;
  /** Drains HTTP and sockets, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link startApp}. */
export interface StartOptions {
  /** Logger to use; a pino JSON logger at `LOG_LEVEL` when absent. */
  logger?: Logger;
  /** Called with every SQL statement the ORM runs (tests count queries with it), and its text with the parameters inlined (tests plan it). */
  onQuery?: (sql: string, formatted?: string) => void;
  /** Starts an in-memory embedded database from this migrated dump (tests; see openDatabase). */
  pgliteTemplate?: Blob;
}

/** Composition root: opens the database, syncs built-ins, builds the schema and starts listening. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  // Every log line of the service goes through the redacting serializers, whoever built the logger.
  const logger = withRedaction(options.logger ?? pino(loggerOptions(config.LOG_LEVEL)));
  // First, so the first statements and requests are traced; stopped last (it flushes what is left).
  const tracing = startTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: config.OTEL_SERVICE_NAME });
  // Before the database: a fresh data directory must get a fresh key, never adopt a stray one
  // (src/auth/secrets.ts), and a key file others can read stops the start before anything opens.
  const secrets = createServiceSecrets(resolveMasterKey(config, logger));
  const database = await openDatabase(config, logger, { onQuery: options.onQuery, pgliteTemplate: options.pgliteTemplate });
  let http: HttpServer | undefined;
  let jobs: Jobs | null = null;
  let emitter: RunningEmitter | null = null;
  let fanout: EventFanout | undefined;
  let apiKeys: ApiKeyCache | undefined;
  let amlIndex: AmlNameIndex | null = null;
  let engines: RunningEngines | undefined;
  let rateLimits: RateLimits | undefined;
  const keyUsage = new ApiKeyUsage();
  let metricsListener: MetricsListener | null = null;
  // One teardown for close() and for a failed start, so the two cannot drift apart. A stack
  // disposes last-registered first: these are registered in the reverse of the order they run,
  // up front, and each stops what has started by then (a failed start has not started them all).
  const teardown = new AsyncDisposableStack();
  teardown.defer(() => tracing.stop());
  // The ID document OCR holds ONNX sessions; drop them with the app.
  teardown.defer(closeMrzReader);
  // The proof-of-address OCR worker thread would keep the process alive.
  teardown.defer(closeOcrWorker);
  teardown.defer(() => database.close());
  teardown.defer(() => rateLimits?.close());
  teardown.defer(() => emitter?.stop());
  teardown.defer(() => jobs?.stop());
  teardown.defer(() => fanout?.stop());
  teardown.defer(() => amlIndex?.stop());
  teardown.defer(() => apiKeys?.stop());
  // After HTTP and before the database: the last uses noted are written.
  teardown.defer(() => keyUsage.stop(database.orm.em));
  // After HTTP: requests in flight finish their engine work first.
  teardown.defer(() => engines?.close());
  teardown.defer(() => http?.close());
  teardown.defer(() => metricsListener?.close());
  try {
    const { orm } = database;
    await syncBuiltInWorkflows(orm.em.fork());
    await sealLegacyPlaintext(orm.em.fork(), secrets, logger);
    bindPersonalDataSealing(orm, secrets);
    await sealLegacyPersonalData(orm.em.fork(), secrets, logger);
    const demo = config.SEED_DEMO_TENANT ? await seedDemoTenant(orm.em.fork()) : null;
    // Built in the background: screens run pg_trgm until it is ready (same results).
    amlIndex = config.AML_NAME_INDEX ? new AmlNameIndex(orm.em, logger) : null;
    void amlIndex?.start();
    // pkijs (the NFC module) loads only when CSCA certificates are configured: without them the trust is empty.
    const nfcTrust = config.NFC_CSCA_CERTS_PATH ? (await import('./engines/document/nfc.js')).loadNfcTrust(config.NFC_CSCA_CERTS_PATH) : [];
    // Loaded here so a bad path stops the start; pool threads load their own copy from the same setting.
    const vdsSigners = loadVdsTrust(config.VDS_SIGNER_CERTS_PATH);
    // Sources are read at scrape time; `engines` and `live` exist by the first scrape.
    let live: LiveStatusHub | undefined;
    const metrics = new AppMetrics({
      readDatabase: () => readDatabaseGauges(orm),
      readPool: poolReader(orm, database.embedded),
      openSubscriptions: () => live?.subscriberCount ?? 0,
      engineQueueDepth: () => engines?.executor.waiting ?? 0,
    });
    engines = await startEngineExecutor(config, logger, database.embedded, nfcTrust, observeEngines(metrics), vdsSigners);
    const listGate = createListGate();
    // Every plug-in of the decision flow, in the order they run.
    const decisionHooks: DecisionHooks = {
      listGates: listGate.listGates,
      // detectDuplicates reads the selfie template the list gate's observer stores: it comes after.
      inputObservers: [...listGate.inputObservers, captureEvidence, capturePortrait, detectDuplicates, indexSearchOnInput],
    };
    const tokens = new ServiceTokens(secrets);
    await tokens.init(orm.em.fork());
    apiKeys = new ApiKeyCache();
    keyUsage.start(orm.em, logger, config.API_KEY_USAGE_FLUSH_SECONDS * 1000);
    await apiKeys.start(orm.em, logger);
    rateLimits = createRateLimits({ config, logger, databaseUrl: database.embedded ? undefined : database.url });
    const services: Services = {
      secrets,
      tokens,
      bus: new EventBus(),
      live: (live = new LiveStatusHub()),
      apiKeys,
      keyUsage,
      amlIndex,
      rateLimits,
      engines: createEngineRegistry({ em: () => orm.em.fork(), secrets, config, logger, amlIndex, executor: engines.executor }),
      decisionHooks,
      workflows: new WorkflowCache(),
      nfcTrust,
      // The emitter starts below; until then (and without one in process) there is nothing to wake.
      wakeEmitter: () => emitter?.emitter.wake(),
      metrics,
    };
    services.bus.snapshotter = decisionSnapshotter(secrets);
    // Subscriptions see other instances' commits through LISTEN/NOTIFY on a server; embedded, in-process only.
    fanout = await startEventFanout({
      bus: services.bus,
      hub: services.live,
      databaseUrl: database.embedded ? null : database.url,
      logger,
    });
    const schema = await getSchema();
    jobs = config.JOBS_ENABLED ? await startJobs(database, services, logger) : null;
    emitter = config.EMITTER_IN_PROCESS
      ? await startEmitter({
          url: database.url,
          config,
          secrets,
          logger,
          bus: services.bus,
          sharedOrm: database.embedded ? orm : undefined,
          onAttempt: (destination, succeeded, durationMs) => metrics.webhookAttempt(destination, succeeded, durationMs),
        })
      : null;
    http = await buildHttpServer({ config, logger, orm, schema, services });
    await http.app.listen({ port: config.PORT, host: config.HOST });
    if (config.METRICS_PORT !== undefined) metricsListener = await serveMetrics(metrics, config.METRICS_HOST, config.METRICS_PORT);
    const address = http.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    const started = http;
    const startedJobs = jobs;
    const startedEmitter = emitter;
    const startedEngines = engines;
    // close() runs the teardown once and hands every later caller the same promise.
    let closing: Promise<void> | undefined;
    return {
      url,
      config,
      logger,
      orm,
      database,
      http: started,
      services,
      jobs: startedJobs,
      emitter: startedEmitter,
      engines: startedEngines,
      demo,
      metricsListener,
      tracing,
      close() {
        closing ??= teardown.disposeAsync();
        return closing;
      },
    };
  } catch (error) {
    // The start's own error is the one worth seeing; a step of the teardown failing too is not.
    await teardown.disposeAsync().catch(() => undefined);
    throw error;
  }
}
