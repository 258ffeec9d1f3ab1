/**
 * Where CPU-bound engine work runs. The composition root installs one executor per process: a
 * piscina thread pool (default), a PostgreSQL-backed queue feeding worker processes
 * (src/engines/pool/queue-executor.ts), or inline on the calling thread (the old path, kept for the
 * benchmark's baseline and for engine calls outside a running app). Callers use the `…OffThread`
 * functions and `offloaded` engines below and never see which one runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ApiError } from '../../shared/errors.js';
import type { AnalyzeFaceOptions, FaceAnalysis } from '../face/analyze.js';
import type { PdfLimits } from '../poa/pdf-worker.js';
import type { NodeEngine } from '../node-engine.js';
import {
  DEFAULT_ENGINE_THREAD_SETTINGS,
  settleEngineTask,
  toWireContext,
  unwrapOutcome,
  type EngineTask,
  type EngineTaskOutcome,
  type EngineTaskResult,
  type EngineThreadSettings,
} from './tasks.js';

/** How engine work is executed: `pool` (threads of this process), `queue` (worker processes), `inline` (this thread). */
export type EngineExecution = 'pool' | 'queue' | 'inline';

/** Runs engine tasks somewhere other than (or, inline, on) the caller's event loop. */
export interface EngineExecutor {
  /** Which kind of executor this is (logged, and shown by the benchmark). */
  readonly mode: EngineExecution;
  /**
   * Runs one task. Rejects with `engines_busy` (503, `Retry-After`) when the waiting line is full,
   * with `engine_timeout` (503) when the time budget runs out (the task is then aborted), and with
   * the signal's reason when `signal` aborts first (the task is abandoned).
   */
  run(task: EngineTask, signal?: AbortSignal): Promise<EngineTaskOutcome>;
  /** Tasks of this process waiting for a thread or a worker (the `/metrics` queue depth); absent inline. */
  readonly waiting?: number;
  /** Stops accepting work and releases threads or connections. */
  close(): Promise<void>;
}

/** Seconds suggested in `Retry-After` before any task has finished (no run time to estimate from). */
export const RETRY_AFTER_FALLBACK_SECONDS = 5;

/** The 503 for a full waiting line; `Retry-After` says when a slot is likely to be free. */
export function enginesBusy(retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError('engines_busy', `Every verification engine is busy; retry in ${seconds} s.`, [], { 'Retry-After': String(seconds) });
}

/** The 503 for a task over its time budget. */
export function engineTimeout(timeoutMs: number): ApiError {
  return new ApiError('engine_timeout', `The verification did not finish within its time budget of ${timeoutMs} ms; it was aborted.`);
}

/** Engine work on the calling thread, with the engines configured by `settings` (an app's NFC trust). */
export function createInlineExecutor(settings: EngineThreadSettings = DEFAULT_ENGINE_THREAD_SETTINGS): EngineExecutor {
  return {
    mode: 'inline',
    run: (task) => settleEngineTask(task, settings),
    close: async () => undefined,
  };
}

/**
 * The abort signal of the HTTP request being served: aborted when the client disconnects before
 * the answer, so that its engine work is abandoned instead of finishing for nobody. The HTTP
 * server enters it per request (src/http/fastify-server.ts); engine calls pick it up without every
 * service passing it along.
 */
export const requestSignals = new AsyncLocalStorage<AbortSignal>();

/** Runs a task on an app's executor and returns its result (or throws its error). */
export async function runOffloaded<T extends EngineTask>(
  executor: EngineExecutor,
  task: T,
  signal?: AbortSignal,
): Promise<EngineTaskResult<T>> {
  return unwrapOutcome<EngineTaskResult<T>>(await executor.run(task, signal ?? requestSignals.getStore()));
}

/** A CPU engine whose runs go to the app's executor; same provider, node type and results. Only its names are needed (`CPU_ENGINE_NODES`). */
export function offloaded<Input>(engine: Pick<NodeEngine<Input>, 'provider' | 'nodeType'>, executor: EngineExecutor): NodeEngine<Input> {
  return {
    provider: engine.provider,
    nodeType: engine.nodeType,
    run: (input, context) => runOffloaded(executor, { kind: 'node', provider: engine.provider, input, context: toWireContext(context) }),
  };
}

/** `analyzeFace` on the app's executor. */
export function analyzeFaceOffThread(executor: EngineExecutor, bytes: Buffer, options: AnalyzeFaceOptions = {}): Promise<FaceAnalysis> {
  return runOffloaded(executor, { kind: 'face', imageBase64: bytes.toString('base64'), options });
}

/** Settings of the thread pool. */
export interface PoolExecutorOptions {
  /**
   * Worker threads; each loads its own models (OCR, face) on first use.
   * @default os.availableParallelism()
   */
  threads?: number;
  /** Tasks that may wait for a free thread; one more is refused with `engines_busy`. */
  queueLimit: number;
  /** Time budget of one call (waiting included), in milliseconds; over it the task is aborted. */
  timeoutMs: number;
  /** What the worker threads need from the configuration. */
  workerData?: EngineWorkerData;
  /** Told when each task is queued, gets a thread and finishes (the `/metrics` engine series). */
  observer?: EngineObserver;
}

/** Timing of one engine task, as an {@link EngineObserver} follows it. */
export interface EngineTaskTiming {
  /** The task got a thread: its wait is over and its run begins. */
  started(): void;
  /** The task ended: `ok`, `error`, `busy`, `timeout` or `abandoned`. */
  finished(outcome: 'ok' | 'error' | 'busy' | 'timeout' | 'abandoned'): void;
}

/** Follows engine tasks through an executor, so operators see wait and run times per engine. */
export interface EngineObserver {
  /** A task arrived; the returned timing is told when it starts and ends. */
  queued(engine: string): EngineTaskTiming;
}

/** The engine a task runs, as metrics label it: the provider of a workflow node, or the standalone check. */
export function engineLabel(task: EngineTask): string {
  return task.kind === 'node' ? task.provider : `openkyc:${task.kind}`;
}

/** Configuration a pool thread or worker process applies before its first task. */
export interface EngineWorkerData {
  /** NFC_CSCA_CERTS_PATH: each thread loads the certificates into its engine settings. */
  nfcCscaCertsPath?: string;
  /** VDS_SIGNER_CERTS_PATH: each thread loads the seal signer certificates into its engine settings. */
  vdsSignerCertsPath?: string;
  /** PDF_MAX_DECODED_BYTES, PDF_WORKER_MEMORY_MB, PDF_WORKER_TIMEOUT_MS: each thread reads PDFs under them. */
  pdfLimits?: PdfLimits;
}

/** The worker entry: plain JavaScript that registers tsx, so the TypeScript engines load in any runner. */
const WORKER_ENTRY = new URL('./worker.mjs', import.meta.url).href;

/** Piscina's messages for a full waiting line (its own default limit, a backstop behind ours). */
const QUEUE_FULL_MESSAGES = ['Task queue is at limit', 'No task queue available and all Workers are busy'];

/** Resolves as `work` does, or rejects with the abort reason as soon as `signal` aborts (the work goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The piscina pool as an executor: engine work on threads of this process. */
export function createPoolExecutor(options: PoolExecutorOptions): EngineExecutor & { pool: Piscina; readonly waiting: number } {
  const threads = options.threads ?? availableParallelism();
  const pool = new Piscina({
    filename: WORKER_ENTRY,
    // Started on first use: an API that never verifies a live document pays nothing (tests, sandbox-only).
    minThreads: 0,
    maxThreads: threads,
    // Threads stay: each holds loaded OCR and face models that take seconds to rebuild.
    idleTimeout: Number.POSITIVE_INFINITY,
    // Not the parent's flags: under the tsx CLI they register tsx a second time (worker.mjs does it).
    execArgv: [],
    workerData: options.workerData ?? {},
  });
  // Counted here rather than with piscina's maxQueue, which also admits tasks while threads are
  // still starting (seconds, here): the limit must hold from the first request.
  let inFlight = 0;
  // Threads are handed out here, not by piscina's queue, so we know when a task starts: a task is
  // never given to piscina with an abort signal, because piscina aborts a running task by
  // terminating its thread, and a thread terminated inside onnxruntime's native code takes the
  // whole process down (`terminate called after throwing an instance of 'Napi::Error'`). A task
  // abandoned while waiting leaves the line; one abandoned while running finishes on its thread
  // (its work is bounded by the input limits) and its result is dropped.
  let running = 0;
  const waiting: (() => void)[] = [];
  /** Takes a thread, waiting in line; rejects when `signal` aborts first. */
  const acquireThread = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (running < threads) {
        running += 1;
        return resolve();
      }
      const onAbort = () => {
        waiting.splice(waiting.indexOf(start), 1);
        reject(signal.reason);
      };
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        running += 1;
        resolve();
      };
      waiting.push(start);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  /** Resolved when the last running task (abandoned ones included) gives its thread back. */
  let idle: (() => void) | null = null;
  /** Gives a thread back to the next task in line. */
  const releaseThread = () => {
    running -= 1;
    waiting.shift()?.();
    if (running === 0) idle?.();
  };
  /** When a waiting task is likely to start: the line ahead of it, at the average run time. */
  const retryAfterSeconds = () => {
    const averageMs = pool.completed > 0 ? pool.histogram.runTime.average : Number.NaN;
    if (!Number.isFinite(averageMs) || averageMs <= 0) return RETRY_AFTER_FALLBACK_SECONDS;
    return ((Math.max(0, inFlight - threads) / threads + 1) * averageMs) / 1000;
  };
  return {
    mode: 'pool',
    pool,
    get waiting() {
      return waiting.length;
    },
    async run(task, signal) {
      const timing = options.observer?.queued(engineLabel(task));
      if (inFlight >= threads + options.queueLimit) {
        timing?.finished('busy');
        throw enginesBusy(retryAfterSeconds());
      }
      const budget = AbortSignal.timeout(options.timeoutMs);
      const abandon = signal ? AbortSignal.any([budget, signal]) : budget;
      inFlight += 1;
      try {
        await acquireThread(abandon);
        timing?.started();
        const work = pool.run(task).finally(releaseThread) as Promise<EngineTaskOutcome>;
        const outcome = await untilAborted(work, abandon);
        if (outcome.ok) timing?.finished('ok');
        else timing?.finished('error');
        return outcome;
      } catch (error) {
        if (budget.aborted) {
          timing?.finished('timeout');
          throw engineTimeout(options.timeoutMs);
        }
        if (error instanceof Error && QUEUE_FULL_MESSAGES.includes(error.message)) {
          timing?.finished('busy');
          throw enginesBusy(retryAfterSeconds());
        }
        if (abandon.aborted) timing?.finished('abandoned');
        else timing?.finished('error');
        throw error;
      } finally {
        inFlight -= 1;
      }
    },
    async close() {
      // Abandoned tasks finish first: piscina's close terminates threads that are still running,
      // and a thread terminated in the middle of native OCR work takes the process down.
      if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
      await pool.close();
    },
  };
}
