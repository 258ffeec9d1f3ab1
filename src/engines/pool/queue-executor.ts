/**
 * Engine work through PostgreSQL (ENGINE_EXECUTION=queue): the API sends each engine task as a
 * pg-boss job and waits for its result; `npm run worker` processes (src/bin/worker.ts) take the jobs,
 * run them in their own thread pool and store the outcome as the job's output. A deployment adds
 * verification throughput by adding worker machines, not API servers.
 *
 * How the API learns a job is done: the worker completes the job (output stored), then sends
 * `NOTIFY engine_task_done, '<job id>'`; the API LISTENs on one connection and reads the output
 * of that job. No table of our own (no migration), no polling in the normal case, and the result
 * (up to tens of KB of embeddings) stays out of the 8 KB NOTIFY payload. A slow poll of the
 * outstanding jobs backs the notification up (a listener reconnecting, a job failed by the
 * supervisor after its retries, which nobody notifies).
 *
 * A worker killed mid-job stops sending heartbeats; after `ENGINE_HEARTBEAT_SECONDS` another
 * worker's supervisor fails the attempt and pg-boss retries it (up to `ENGINE_RETRY_LIMIT`).
 * The API deletes each job once it has its output, so the submitted images do not stay in the
 * jobs table.
 */
import { hostname } from 'node:os';
import { ApiError } from '../../shared/errors.js';
import pg from 'pg';
import { PgBoss, type Job } from 'pg-boss';
import type { Logger } from 'pino';
import { enginesBusy, engineTimeout, RETRY_AFTER_FALLBACK_SECONDS, type EngineExecutor } from './executor.js';
import { toWireError, type EngineTask, type EngineTaskOutcome } from './tasks.js';
import { JOBS_SCHEMA } from '../../db/jobs-schema.js';
import { context } from '@opentelemetry/api';
import { contextFromCarrier, currentTraceCarrier } from '../../observability/tracing.js';

/** pg-boss queue of engine tasks. */
export const ENGINE_QUEUE = 'engine-tasks';
/** NOTIFY channel a worker signals a finished engine job on (payload: the job id). */
export const ENGINE_DONE_CHANNEL = 'engine_task_done';
/** Heartbeat of a running engine job, in seconds (pg-boss's minimum): how soon a killed worker's job is retried. */
export const ENGINE_HEARTBEAT_SECONDS = 10;
/** Retries of a job whose worker died; engine errors are results, not retried. */
export const ENGINE_RETRY_LIMIT = 2;
/** Fallback poll of outstanding jobs, in milliseconds, for outcomes no notification announces. */
export const ENGINE_RESULT_POLL_MS = 2_000;
/** How often a worker with a free slot looks for jobs, in seconds (pg-boss's minimum). */
export const ENGINE_WORKER_POLL_SECONDS = 0.5;
/** Seconds a client is told to wait after the queue lost its job (workers gone or restarting). */
const JOB_LOST_RETRY_AFTER_SECONDS = 5;
/** Seconds a finished job is kept when its API server never came back for it (crashed). */
const ENGINE_JOB_KEEP_SECONDS = 600;

/** A job's output: the outcome, and which worker produced it (for operators and the scale-out test). */
export type EngineJobOutput = EngineTaskOutcome & { worker: string };

/** Creates the engine queue if it does not exist (idempotent; every API server and worker calls it). */
async function ensureEngineQueue(boss: PgBoss, timeoutMs: number): Promise<void> {
  const budgetSeconds = Math.ceil(timeoutMs / 1000);
  await boss.createQueue(ENGINE_QUEUE, {
    retryLimit: ENGINE_RETRY_LIMIT,
    heartbeatSeconds: ENGINE_HEARTBEAT_SECONDS,
    // A worker never runs a job longer than the budget (its pool aborts it); this only catches a wedged one.
    expireInSeconds: budgetSeconds + ENGINE_HEARTBEAT_SECONDS,
    // Past the budget the API has given up on a job nobody took (and cancelled it).
    retentionSeconds: budgetSeconds + 60,
    deleteAfterSeconds: ENGINE_JOB_KEEP_SECONDS,
    notify: true,
  });
}

/**
 * The 503 for a job the queue gave up on (refused, failed after its retries, cancelled or gone):
 * the workers died or are being replaced, nothing about the request was wrong, and the same
 * request sent again a little later runs on whichever worker is up. Not a 500: no bug of ours.
 */
function jobLost(reason: string): ApiError {
  return new ApiError('service_unavailable', `The verification engines could not run this check (${reason}); retry shortly.`, [], {
    'Retry-After': String(JOB_LOST_RETRY_AFTER_SECONDS),
  });
}

/** Settings of the API side of the queue. */
export interface QueueExecutorOptions {
  /** PostgreSQL server URL (the queue lives in the `pgboss` schema beside the data). */
  databaseUrl: string;
  /** Jobs this API server keeps outstanding; one more is refused with `engines_busy`. */
  queueLimit: number;
  /** Time budget of one call, waiting included, in milliseconds; past it the job is cancelled. */
  timeoutMs: number;
  /** The service logger. */
  logger: Logger;
}

/** One outstanding job of this API server. */
interface Waiter {
  /** Reads the job's state and settles the call when it is final. */
  check(): Promise<void>;
}

/** The queue as an executor: sends each task as a job and awaits the worker's output. */
export async function createQueueExecutor(options: QueueExecutorOptions): Promise<EngineExecutor> {
  const { logger } = options;
  // Only sends and reads here: the workers supervise the queue (heartbeats, retries).
  const boss = new PgBoss({ connectionString: options.databaseUrl, schema: JOBS_SCHEMA, max: 3, supervise: false, schedule: false });
  boss.on('error', (error) => logger.error({ err: error }, 'engine queue error'));
  await boss.start();
  await ensureEngineQueue(boss, options.timeoutMs);
  const waiters = new Map<string, Waiter>();
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  listener.on('error', (error) => logger.error({ err: error }, 'engine queue listener error (falling back to polling)'));
  listener.on('notification', (message) => void (message.payload ? waiters.get(message.payload)?.check() : undefined));
  await listener.connect();
  await listener.query(`LISTEN ${ENGINE_DONE_CHANNEL}`);
  const poll = setInterval(() => {
    for (const waiter of waiters.values()) void waiter.check();
  }, ENGINE_RESULT_POLL_MS);
  poll.unref();
  let averageMs = Number.NaN;

  /** State and output of one job, without its (large) data. */
  async function jobState(id: string): Promise<{ state: string; output: EngineJobOutput | null } | null> {
    const { rows } = await boss
      .getDb()
      .executeSql(`SELECT state, output FROM ${JOBS_SCHEMA}.job WHERE name = $1 AND id = $2`, [ENGINE_QUEUE, id]);
    return (rows[0] as { state: string; output: EngineJobOutput | null } | undefined) ?? null;
  }

  return {
    mode: 'queue',
    // Jobs this server sent and still waits on (queued or running on a worker).
    get waiting() {
      return waiters.size;
    },
    async run(task: EngineTask, signal?: AbortSignal): Promise<EngineTaskOutcome> {
      if (waiters.size >= options.queueLimit)
        throw enginesBusy(Number.isFinite(averageMs) ? ((waiters.size + 1) * averageMs) / 1000 : RETRY_AFTER_FALLBACK_SECONDS);
      signal?.throwIfAborted();
      const started = Date.now();
      // The asking request's trace context travels in the job: the worker's engine span continues its trace.
      const id = await boss.send(ENGINE_QUEUE, { ...task, trace: currentTraceCarrier() } as object);
      if (!id) throw jobLost('the engine queue refused the job');
      try {
        return await new Promise<EngineTaskOutcome>((resolve, reject) => {
          let settled = false;
          const finish = (settle: () => void) => {
            if (settled) return;
            settled = true;
            clearTimeout(budget);
            signal?.removeEventListener('abort', onAbort);
            waiters.delete(id);
            settle();
          };
          const abandon = (error: unknown) =>
            finish(() => {
              // The worker's heartbeat sees the claim gone and aborts its task.
              boss
                .cancel(ENGINE_QUEUE, id)
                .catch((cancelError: unknown) => logger.warn({ err: cancelError, id }, 'engine job not cancelled'));
              reject(error);
            });
          const budget = setTimeout(() => abandon(engineTimeout(options.timeoutMs)), options.timeoutMs);
          const onAbort = () => abandon(signal?.reason);
          signal?.addEventListener('abort', onAbort, { once: true });
          waiters.set(id, {
            async check() {
              const job = await jobState(id).catch((error: unknown) => {
                logger.warn({ err: error, id }, 'engine job state not read');
                return undefined;
              });
              if (job === undefined) return;
              if (job === null) {
                logger.error({ id }, 'engine job disappeared');
                return finish(() => reject(jobLost('the job disappeared from the queue')));
              }
              if (job.state === 'completed' && job.output) {
                const { worker, ...outcome } = job.output;
                logger.debug({ id, worker }, 'engine job completed');
                return finish(() => resolve(outcome as EngineTaskOutcome));
              }
              if (job.state === 'failed' || job.state === 'cancelled') {
                logger.error({ id, state: job.state }, 'engine job given up by the queue (its workers stopped; retries exhausted)');
                return finish(() => reject(jobLost(`the job was ${job.state} by the queue`)));
              }
            },
          });
          // The job may have finished before the waiter existed: look once now.
          void waiters.get(id)?.check();
        });
      } finally {
        const elapsed = Date.now() - started;
        averageMs = Number.isFinite(averageMs) ? averageMs * 0.8 + elapsed * 0.2 : elapsed;
        // The job's data holds the submitted images: do not leave them in the table.
        await boss.deleteJob(ENGINE_QUEUE, id).catch((error: unknown) => logger.warn({ err: error, id }, 'engine job not deleted'));
      }
    },
    async close() {
      clearInterval(poll);
      await listener.end().catch(() => undefined);
      await boss.stop({ graceful: false, close: true });
    },
  };
}

/** Settings of a worker process's queue consumer. */
export interface EngineWorkerOptions {
  /** PostgreSQL server URL. */
  databaseUrl: string;
  /** Where the jobs run: the process's thread pool. */
  executor: EngineExecutor;
  /** Jobs taken at once (the pool's thread count: more would only wait in the pool). */
  concurrency: number;
  /** Time budget of one engine call, in milliseconds (sets the queue's expiry). */
  timeoutMs: number;
  /** How often this worker supervises the queue (heartbeat failures → retries), in seconds. */
  superviseSeconds: number;
  /** The worker's logger. */
  logger: Logger;
}

/** A running queue consumer. */
export interface EngineWorker {
  /** `hostname:pid`, written into each job's output. */
  id: string;
  /** Stops taking jobs, waits for those running, and closes the connections. */
  stop(): Promise<void>;
}

/** Takes engine jobs from the queue and runs them on `executor` until stopped. */
export async function startEngineWorker(options: EngineWorkerOptions): Promise<EngineWorker> {
  const { logger } = options;
  const id = `${hostname()}:${process.pid}`;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: JOBS_SCHEMA,
    max: options.concurrency + 2,
    schedule: false,
    useListenNotify: true,
    superviseIntervalSeconds: options.superviseSeconds,
    monitorIntervalSeconds: options.superviseSeconds,
  });
  boss.on('error', (error) => logger.error({ err: error }, 'engine worker queue error'));
  await boss.start();
  await ensureEngineQueue(boss, options.timeoutMs);
  await boss.work<EngineTask>(
    ENGINE_QUEUE,
    // A job sent while every slot was busy woke nobody (its NOTIFY came too early): the next poll
    // finds it, so polls stay short (pg-boss's notify backstop defaults to 30 s).
    {
      batchSize: 1,
      localConcurrency: options.concurrency,
      pollingIntervalSeconds: ENGINE_WORKER_POLL_SECONDS,
      notifyPollingIntervalSeconds: ENGINE_WORKER_POLL_SECONDS,
    },
    async ([job]: Job<EngineTask & { trace?: Record<string, string> }>[]) => {
      const { trace: carrier, ...task } = job.data;
      logger.info({ jobId: job.id, kind: job.data.kind, retryCount: job.retryCount, worker: id }, 'engine job started');
      // Engine errors (a 400, the time budget) are outcomes: retrying would give the same answer.
      // Only a dead worker (no heartbeat) or a cancelled claim leads to another attempt or none.
      const running = context.with(contextFromCarrier(carrier), () => options.executor.run(task as EngineTask, job.signal));
      const outcome = await running.catch((error: unknown): EngineTaskOutcome => {
        if (job.signal.aborted) throw error;
        return { ok: false, error: toWireError(error) };
      });
      const output: EngineJobOutput = { ...outcome, worker: id };
      // Completed before the notification, so the API reads the output when it wakes.
      await boss.complete(ENGINE_QUEUE, job, output);
      await boss.getDb().executeSql('SELECT pg_notify($1, $2)', [ENGINE_DONE_CHANNEL, job.id]);
      logger.info({ jobId: job.id, ok: outcome.ok, worker: id }, 'engine job finished');
      return output;
    },
  );
  return {
    id,
    async stop() {
      await boss.stop({ graceful: true, timeout: 30_000 });
    },
  };
}
