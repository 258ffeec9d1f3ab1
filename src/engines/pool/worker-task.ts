/**
 * The body of a pool thread (loaded by worker.mjs): applies the configuration the thread was
 * started with, then settles each task piscina hands it.
 */
import { workerData } from 'piscina';
import { configureNfcTrust } from '../document/nfc.js';
import type { EngineWorkerData } from './executor.js';
import { settleEngineTask, type EngineTask, type EngineTaskOutcome } from './tasks.js';

configureNfcTrust((workerData as EngineWorkerData | undefined)?.nfcCscaCertsPath);

/** Runs one task in this thread; errors come back inside the outcome (see `EngineTaskOutcome`). */
export default function runTask(task: EngineTask): Promise<EngineTaskOutcome> {
  return settleEngineTask(task);
}
