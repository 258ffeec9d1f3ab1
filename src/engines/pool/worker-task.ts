/**
 * The body of a pool thread (loaded by worker.mjs): applies the configuration the thread was
 * started with, then settles each task piscina hands it.
 */
import { workerData } from 'piscina';
import { loadNfcTrust } from '../document/nfc.js';
import { loadVdsTrust } from '../document/vds.js';
import { configurePdfLimits } from '../poa/pdf-worker.js';
import type { EngineWorkerData } from './executor.js';
import { loadEngineModules, settleEngineTask, type EngineTask, type EngineTaskOutcome, type EngineThreadSettings } from './tasks.js';

const data = workerData as EngineWorkerData | undefined;
if (data?.pdfLimits) configurePdfLimits(data.pdfLimits);

/** This thread's settings, from the configuration it was started with (one thread, one server). */
const settings: EngineThreadSettings = {
  nfcTrust: loadNfcTrust(data?.nfcCscaCertsPath),
  vdsSigners: loadVdsTrust(data?.vdsSignerCertsPath),
};

// Before piscina hands this thread its first task (worker.mjs awaits this module).
await loadEngineModules();

/** Runs one task in this thread; errors come back inside the outcome (see `EngineTaskOutcome`). */
export default function runTask(task: EngineTask): Promise<EngineTaskOutcome> {
  return settleEngineTask(task, settings);
}
