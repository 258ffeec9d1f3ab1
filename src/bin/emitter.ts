/**
 * `npm run emitter`: runs the webhook emitter alone (set EMITTER_IN_PROCESS=false on the servers
 * then). With DATABASE_URL it uses that server; without, it connects to the embedded database of
 * a running `npm start` (through its socket) or opens ./.data/pglite itself. SIGTERM and SIGINT
 * finish in-flight attempts, record them, and exit.
 */
import pino from 'pino';
import { createServiceSecrets, resolveMasterKey } from '../auth/secrets.js';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import { loggerOptions } from '../shared/logging.js';
import { startEmbeddedDatabase } from '../db/embedded.js';
import { startEmitter } from '../webhooks/run.js';
import { AppMetrics } from '../metrics/metrics.js';
import { serveMetrics } from '../http/metrics-endpoint.js';
import { startTracing } from '../observability/tracing.js';

let config: Config;
let masterKey: string;
try {
  config = loadConfig();
  masterKey = resolveMasterKey(config, pino(loggerOptions(config.LOG_LEVEL)));
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = pino(loggerOptions(config.LOG_LEVEL));
// Each POST continues the trace of the request that recorded its event (kept with the event).
const tracing = startTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: `${config.OTEL_SERVICE_NAME}-emitter` });
const embedded = config.DATABASE_URL ? null : await startEmbeddedDatabase(config.PGLITE_DATA_DIR);
const url = config.DATABASE_URL ?? embedded!.url;
// With METRICS_PORT, this emitter's attempts per destination are scraped from it.
const metrics = new AppMetrics();
const running = await startEmitter({
  url,
  config,
  secrets: createServiceSecrets(masterKey),
  logger,
  sealLegacyPlaintext: true,
  onAttempt: (destination, succeeded, durationMs) => metrics.webhookAttempt(destination, succeeded, durationMs),
});
const metricsListener = config.METRICS_PORT !== undefined ? await serveMetrics(metrics, config.METRICS_HOST, config.METRICS_PORT) : null;
logger.info({ embedded: embedded !== null }, 'webhook emitter started');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'webhook emitter stopping');
    running
      .stop()
      .then(() => metricsListener?.close())
      .then(() => tracing.stop())
      .then(() => embedded?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'emitter shutdown failed');
          process.exit(1);
        },
      );
  });
}
