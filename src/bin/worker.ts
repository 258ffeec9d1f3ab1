/**
 * `npm run worker`: an engine worker process (ENGINE_EXECUTION=queue on the API servers). It takes
 * engine jobs from the PostgreSQL queue and runs them in its own thread pool (ENGINE_POOL_SIZE
 * threads, one job per thread), so verification throughput grows with worker machines, not API
 * servers. Needs DATABASE_URL. SIGTERM and SIGINT finish the jobs in hand and exit; a worker
 * killed outright has its job retried by another (src/engines/pool/queue-executor.ts).
 */
import { availableParallelism } from 'node:os';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import { poolFromConfig } from '../engines/pool/start.js';
import { startEngineWorker } from '../engines/pool/queue-executor.js';
import { AppMetrics } from '../metrics/metrics.js';
import { serveMetrics } from '../http/metrics-endpoint.js';
import { loggerOptions } from '../shared/logging.js';
import { startTracing } from '../observability/tracing.js';
import { observeEngines } from '../engines/pool/metrics-observer.js';

let config: Config;
try {
  config = loadConfig();
  if (!config.DATABASE_URL)
    throw new ConfigError('Invalid configuration:\n  DATABASE_URL: required by npm run worker (the queue lives in PostgreSQL)');
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = pino(loggerOptions(config.LOG_LEVEL));
// Each engine job continues the trace of the request that queued it (its `traceparent` rides in the job).
const tracing = startTracing({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: `${config.OTEL_SERVICE_NAME}-worker` });
// With METRICS_PORT, this worker's engine wait and run times per engine are scraped from it.
const metrics: AppMetrics = new AppMetrics({ engineQueueDepth: () => pool.waiting ?? 0 });
const pool = poolFromConfig(config, observeEngines(metrics));
const metricsListener = config.METRICS_PORT !== undefined ? await serveMetrics(metrics, config.METRICS_HOST, config.METRICS_PORT) : null;
const worker = await startEngineWorker({
  databaseUrl: config.DATABASE_URL,
  executor: pool,
  concurrency: config.ENGINE_POOL_SIZE ?? availableParallelism(),
  timeoutMs: config.ENGINE_TIMEOUT_MS,
  superviseSeconds: config.ENGINE_QUEUE_SUPERVISE_SECONDS,
  logger,
});
logger.info({ worker: worker.id }, 'engine worker started');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'engine worker stopping');
    worker
      .stop()
      .then(() => pool.close())
      .then(() => metricsListener?.close())
      .then(() => tracing.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'engine worker shutdown failed');
          process.exit(1);
        },
      );
  });
}
