/**
 * Builds the engine executor a process runs with, from the configuration: the choice between the
 * thread pool, the queue of worker processes, and inline, in one place for the API server, the
 * worker process and the benchmark.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../shared/config.js';
import { createQueueExecutor } from './queue-executor.js';
import type { NfcTrust } from '../document/nfc.js';
import type { VdsTrust } from '../document/vds.js';
import { closePdfWorkers, configurePdfLimits, type PdfLimits } from '../poa/pdf-worker.js';
import { createInlineExecutor, createPoolExecutor, type EngineExecutor, type EngineObserver } from './executor.js';
import { loadEngineModules } from './tasks.js';

/** An app's executor and how to stop it. */
export interface RunningEngines {
  /** The executor this app's engine calls go to (`Services.engines.executor`). */
  executor: EngineExecutor;
  /** Closes the executor (its threads, or its queue connection). */
  close(): Promise<void>;
}

/** The PDF reading limits the configuration sets (PDF_MAX_DECODED_BYTES, PDF_WORKER_MEMORY_MB, PDF_WORKER_TIMEOUT_MS). */
export function pdfLimitsFromConfig(config: Config): PdfLimits {
  return { maxDecodedBytes: config.PDF_MAX_DECODED_BYTES, memoryMb: config.PDF_WORKER_MEMORY_MB, timeoutMs: config.PDF_WORKER_TIMEOUT_MS };
}

/** The pool configured by ENGINE_POOL_SIZE, ENGINE_QUEUE_LIMIT, ENGINE_TIMEOUT_MS and NFC_CSCA_CERTS_PATH. */
export function poolFromConfig(config: Config, observer?: EngineObserver): EngineExecutor {
  return createPoolExecutor({
    threads: config.ENGINE_POOL_SIZE ?? availableParallelism(),
    queueLimit: config.ENGINE_QUEUE_LIMIT,
    timeoutMs: config.ENGINE_TIMEOUT_MS,
    workerData: {
      nfcCscaCertsPath: config.NFC_CSCA_CERTS_PATH,
      vdsSignerCertsPath: config.VDS_SIGNER_CERTS_PATH,
      pdfLimits: pdfLimitsFromConfig(config),
    },
    observer,
  });
}

/**
 * Creates the executor ENGINE_EXECUTION names, for one app (two apps in a process have two). Embedded, the
 * queue is refused at configuration time (`loadConfig`), so `embedded` only documents that PGlite
 * always keeps the engines in this process. Inline, the engines run with the app's `nfcTrust`;
 * pool threads and worker processes load it from the configuration themselves.
 */
export async function startEngineExecutor(
  config: Config,
  logger: Logger,
  embedded: boolean,
  nfcTrust: NfcTrust = [],
  observer?: EngineObserver,
  vdsSigners: VdsTrust = [],
): Promise<RunningEngines> {
  let executor: EngineExecutor;
  if (config.ENGINE_EXECUTION === 'queue' && !embedded && config.DATABASE_URL)
    executor = await createQueueExecutor({
      databaseUrl: config.DATABASE_URL,
      queueLimit: config.ENGINE_QUEUE_LIMIT,
      timeoutMs: config.ENGINE_TIMEOUT_MS,
      logger,
    });
  else if (config.ENGINE_EXECUTION === 'inline') {
    // Inline, PDFs are read by this thread's own PDF workers.
    configurePdfLimits(pdfLimitsFromConfig(config));
    // The engines load now, as a pool thread loads them when it starts (the API's thread otherwise does not).
    await loadEngineModules();
    executor = createInlineExecutor({ nfcTrust, vdsSigners });
  } else executor = poolFromConfig(config, observer);
  logger.info({ execution: executor.mode }, 'verification engines ready');
  return {
    executor,
    async close() {
      await executor.close();
      if (executor.mode === 'inline') await closePdfWorkers();
    },
  };
}
