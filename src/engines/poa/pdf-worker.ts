/**
 * PDFs are read in worker threads of their own, bounded in memory (`resourceLimits`) and time (the
 * thread is terminated), on top of the decode budget checked inside (pdf-decode-budget.ts): what
 * the budget cannot see (a parser's own appetite, an encrypted stream it cannot pre-decode) is
 * stopped there, and a terminated thread returns every byte it held. pdf.js and pdf-lib are plain
 * JavaScript, so terminating their thread is safe (unlike the engine threads' native OCR and
 * face models, see ../pool/executor.ts). Each thread that runs engines (an engine pool thread, a
 * worker process, or the API's own thread when inline) keeps its own small pool of these.
 */
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { PdfContent } from './pdf.js';
import { PDF_MAX_DECODED_BYTES, PdfLimitError, UnreadablePdfError } from './pdf-errors.js';
import type { PdfWorkerOutcome, PdfWorkerTask } from './pdf-worker-task.js';

/** The bounds a PDF is read under (PDF_MAX_DECODED_BYTES, PDF_WORKER_MEMORY_MB, PDF_WORKER_TIMEOUT_MS). */
export interface PdfLimits {
  /** Most bytes all streams of one PDF may decode to, every filter stage and object stream counted. */
  maxDecodedBytes: number;
  /** Heap of a PDF worker thread, in MB: over it the thread dies and the PDF is refused. */
  memoryMb: number;
  /**
   * Most milliseconds one PDF may take to read, from the moment a ready thread starts on it (waiting
   * for a thread and the thread's start are the engine call's budget, ENGINE_TIMEOUT_MS, a 503);
   * then the thread is terminated.
   */
  timeoutMs: number;
}

/** Limits used until the configuration sets others (`configurePdfLimits`). */
export const DEFAULT_PDF_LIMITS: PdfLimits = { maxDecodedBytes: PDF_MAX_DECODED_BYTES, memoryMb: 256, timeoutMs: 10_000 };

/** Threads per pool: an engine thread reads one PDF at a time; inline, a few requests may overlap. */
const PDF_THREADS = 2;
/** An idle PDF thread is kept this long (pdf.js takes a moment to load), then closed. */
const PDF_THREAD_IDLE_MS = 60_000;
const ENTRY = new URL('./pdf-worker.mjs', import.meta.url).href;

let limits: PdfLimits = DEFAULT_PDF_LIMITS;
let pool: Piscina | undefined;

/** Sets the limits of this thread's PDF workers (from the configuration); one process-wide value per thread. */
export function configurePdfLimits(next: PdfLimits): void {
  if (next.maxDecodedBytes === limits.maxDecodedBytes && next.memoryMb === limits.memoryMb && next.timeoutMs === limits.timeoutMs) return;
  limits = next;
  void closePdfWorkers();
}

/** Closes this thread's PDF workers (on shutdown; the next PDF starts new ones). */
export async function closePdfWorkers(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}

function workers(): Piscina {
  pool ??= new Piscina({
    filename: ENTRY,
    minThreads: 0,
    maxThreads: PDF_THREADS,
    idleTimeout: PDF_THREAD_IDLE_MS,
    execArgv: [],
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(limits.memoryMb / 8))),
    },
  });
  return pool;
}

/**
 * Reads a PDF in a PDF worker under this thread's limits. Throws `PdfLimitError` naming the limit
 * when the decode budget, the memory or the time runs out, `UnreadablePdfError` when it cannot be
 * parsed. The time limit runs from the moment a ready thread starts on this PDF: a PDF that waited
 * for a thread, or for one to start on a loaded machine, is not refused as too slow to read.
 */
export async function readPdfInWorker(bytes: Buffer): Promise<PdfContent> {
  const { maxDecodedBytes, memoryMb, timeoutMs } = limits;
  const { port1: startedHere, port2: startedThere } = new MessageChannel();
  const task: PdfWorkerTask = { bytes: new Uint8Array(bytes), maxDecodedBytes, started: startedThere };
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  startedHere.once('message', () => {
    timer = setTimeout(() => abort.abort(), timeoutMs);
  });
  let outcome: PdfWorkerOutcome;
  try {
    outcome = (await workers().run(task, { signal: abort.signal, transferList: [startedThere] })) as PdfWorkerOutcome;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (abort.signal.aborted) throw new PdfLimitError(`reading it took longer than ${timeoutMs} ms (PDF_WORKER_TIMEOUT_MS)`);
    if (code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw new PdfLimitError(`reading it needed more than ${memoryMb} MB of memory (PDF_WORKER_MEMORY_MB)`);
    throw error;
  } finally {
    clearTimeout(timer);
    startedHere.close();
  }
  if (!outcome.ok) throw outcome.kind === 'limit' ? new PdfLimitError(outcome.message) : new UnreadablePdfError(outcome.message);
  const { content } = outcome;
  // Buffers cross threads as plain Uint8Arrays.
  return { ...content, scans: content.scans.map((scan) => Buffer.from(scan.buffer, scan.byteOffset, scan.byteLength)) };
}
