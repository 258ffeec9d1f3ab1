/**
 * Prometheus metrics of one running app (prom-client). Each app owns its registry, so two apps in
 * one process (tests, the scale-out run) never share or double-count series. What is counted as
 * it happens (requests, operations, engine tasks, webhook attempts) is instrumented at its source;
 * what lives in the database (outbox lag, webhook backlog per destination) is read when scraped,
 * at most once per {@link DATABASE_GAUGE_TTL_MS}, so a deployment whose emitter runs in its own
 * process still sees its backlog on every API server's `/metrics`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Buckets of request and operation durations, in seconds: a cached read to a slow engine call. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets of engine wait and run times, in seconds: engines run for tens of ms to tens of seconds. */
const ENGINE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
/** Longest a scrape reuses the database gauges' last reading, in milliseconds (scrape storms cost one query). */
const DATABASE_GAUGE_TTL_MS = 5_000;

/** What the database gauges read at scrape time. */
export interface DatabaseGaugeReading {
  /** Outbox events not yet fanned out to webhooks. */
  outboxPending: number;
  /** Age of the oldest of them, in seconds (0 when none). */
  outboxLagSeconds: number;
  /** Pending webhook deliveries per destination id (callback URLs as `callback`). */
  webhookBacklog: { destination: string; pending: number; oldestSeconds: number }[];
}

/** A gauge's values at scrape time, as (labels, value) pairs; null keeps the last ones (a failed read). */
type GaugeRead = () => Promise<[Record<string, string>, number][] | null>;

/** Connection pool figures, when the database has a pool (the server; PGlite has one connection). */
export interface PoolReading {
  total: number;
  idle: number;
  waiting: number;
}

/** Sources the registry reads when scraped; each is optional so a worker or emitter can expose a subset. */
export interface MetricSources {
  /** Reads the database gauges (outbox lag, webhook backlog). */
  readDatabase?: () => Promise<DatabaseGaugeReading>;
  /** Reads the database pool. */
  readPool?: () => PoolReading | null;
  /** Active subscriptions (operations) over those sockets. */
  openSubscriptions?: () => number;
  /** Engine tasks waiting for a thread or a worker on this process. */
  engineQueueDepth?: () => number;
}

/** The metrics of one app: the registry `/metrics` serialises and the instruments its parts record into. */
export class AppMetrics {
  /** The registry scraped by `/metrics`. */
  readonly registry = new Registry();
  /** HTTP requests answered, by method, route pattern and status. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** HTTP request durations, by method and route pattern. */
  readonly httpDuration: Histogram<'method' | 'route'>;
  /** GraphQL operations executed (over HTTP, REST and WebSocket), by name, type and outcome. */
  readonly graphqlOperations: Counter<'operation' | 'type' | 'outcome'>;
  /** GraphQL operation durations, by name and type. */
  readonly graphqlDuration: Histogram<'operation' | 'type'>;
  /** Engine tasks finished, by engine and outcome. */
  readonly engineTasks: Counter<'engine' | 'outcome'>;
  /** Time an engine task waited for a thread or worker, by engine. */
  readonly engineWait: Histogram<'engine'>;
  /** Time an engine task ran, by engine. */
  readonly engineRun: Histogram<'engine'>;
  /** Webhook HTTP attempts, by destination and outcome. */
  readonly webhookAttempts: Counter<'destination' | 'outcome'>;
  /** Webhook HTTP attempt durations, by destination (a slow receiver shows here first). */
  readonly webhookDuration: Histogram<'destination'>;
  /** Counts open GraphQL WebSocket connections; set by the HTTP server once its socket server exists. */
  socketCount: (() => number) | null = null;
  private cached: { at: number; reading: DatabaseGaugeReading } | null = null;

  constructor(private readonly sources: MetricSources = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'idv_' });
    this.httpRequests = new Counter({
      name: 'idv_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'idv_http_request_duration_seconds',
      help: 'HTTP request duration from arrival to the last byte, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.graphqlOperations = new Counter({
      name: 'idv_graphql_operations_total',
      help: 'GraphQL operations executed, by operation name, type and outcome (ok or error).',
      labelNames: ['operation', 'type', 'outcome'],
      registers,
    });
    this.graphqlDuration = new Histogram({
      name: 'idv_graphql_operation_duration_seconds',
      help: 'GraphQL operation duration, by operation name and type.',
      labelNames: ['operation', 'type'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.engineTasks = new Counter({
      name: 'idv_engine_tasks_total',
      help: 'Engine tasks finished, by engine and outcome (ok, error, busy, timeout, abandoned).',
      labelNames: ['engine', 'outcome'],
      registers,
    });
    this.engineWait = new Histogram({
      name: 'idv_engine_task_wait_seconds',
      help: 'Time an engine task waited for a thread or a worker, by engine.',
      labelNames: ['engine'],
      buckets: ENGINE_BUCKETS,
      registers,
    });
    this.engineRun = new Histogram({
      name: 'idv_engine_task_run_seconds',
      help: 'Time an engine task ran once started, by engine.',
      labelNames: ['engine'],
      buckets: ENGINE_BUCKETS,
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'idv_webhook_attempts_total',
      help: 'Webhook HTTP attempts made by this process, by destination and outcome (succeeded or failed).',
      labelNames: ['destination', 'outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'idv_webhook_attempt_duration_seconds',
      help: 'Webhook HTTP attempt duration, by destination.',
      labelNames: ['destination'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const { readPool, openSubscriptions, engineQueueDepth, readDatabase } = sources;
    const gauge = (name: string, help: string, read: GaugeRead, labelNames: string[] = []) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const values = await read();
          if (values === null) return;
          this.reset();
          for (const [labels, value] of values) this.set(labels, value);
        },
      });
    gauge('idv_websocket_connections', 'Open GraphQL WebSocket connections on this server.', async () => [[{}, this.socketCount?.() ?? 0]]);
    if (openSubscriptions)
      gauge('idv_subscriptions_open', 'Active GraphQL subscriptions on this server.', async () => [[{}, openSubscriptions()]]);
    if (engineQueueDepth)
      gauge('idv_engine_queue_depth', 'Engine tasks of this process waiting for a thread or a worker.', async () => [
        [{}, engineQueueDepth()],
      ]);
    if (readPool)
      gauge(
        'idv_db_pool_connections',
        'Database pool connections by state (total, idle, waiting requests).',
        async () => {
          const pool = readPool();
          return pool && Object.entries(pool).map(([state, value]) => [{ state }, value]);
        },
        ['state'],
      );
    if (readDatabase) {
      const read = () => this.readDatabaseCached();
      gauge('idv_outbox_pending_events', 'Recorded events not yet fanned out to webhook deliveries.', async () => {
        const reading = await read();
        return reading && [[{}, reading.outboxPending]];
      });
      gauge('idv_outbox_lag_seconds', 'Age of the oldest event not yet fanned out, in seconds (0 when none).', async () => {
        const reading = await read();
        return reading && [[{}, reading.outboxLagSeconds]];
      });
      gauge(
        'idv_webhook_pending_deliveries',
        'Webhook deliveries waiting for a first try or a retry, by destination.',
        async () => (await read())?.webhookBacklog.map((row) => [{ destination: row.destination }, row.pending]) ?? null,
        ['destination'],
      );
      gauge(
        'idv_webhook_oldest_pending_seconds',
        'Age of the oldest pending webhook delivery, by destination, in seconds.',
        async () => (await read())?.webhookBacklog.map((row) => [{ destination: row.destination }, row.oldestSeconds]) ?? null,
        ['destination'],
      );
    }
  }

  /** Prometheus text exposition of every metric, the body of `GET /metrics`. */
  expose(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link expose}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Records one webhook HTTP attempt of this process (the emitter's `onAttempt`). */
  webhookAttempt(destination: string, succeeded: boolean, durationMs: number): void {
    this.webhookAttempts.inc({ destination, outcome: succeeded ? 'succeeded' : 'failed' });
    this.webhookDuration.observe({ destination }, durationMs / 1000);
  }

  /** Times an engine task: call the returned `started` when it gets a thread, `finished` with its outcome. */
  engineTask(engine: string): { started(): void; finished(outcome: string): void } {
    const queuedAt = performance.now();
    let startedAt: number | null = null;
    return {
      started: () => {
        startedAt = performance.now();
        this.engineWait.observe({ engine }, (startedAt - queuedAt) / 1000);
      },
      finished: (outcome) => {
        if (startedAt !== null) this.engineRun.observe({ engine }, (performance.now() - startedAt) / 1000);
        this.engineTasks.inc({ engine, outcome });
      },
    };
  }

  private async readDatabaseCached(): Promise<DatabaseGaugeReading | null> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < DATABASE_GAUGE_TTL_MS) return this.cached.reading;
    const reading = await this.sources.readDatabase!().catch(() => null);
    if (reading) this.cached = { at: now, reading };
    return reading;
  }
}
