/**
 * The body of a PDF worker thread (loaded by pdf-worker.mjs): reads one PDF and returns its
 * content, or why it was refused, as plain data (a thrown error's class does not cross threads).
 */
import type { MessagePort } from 'node:worker_threads';
import { getResolvedPDFJS } from 'unpdf';
import { PdfLimitError, UnreadablePdfError } from './pdf-errors.js';
import { readPdf, type PdfContent } from './pdf.js';

/** One PDF to read, with the decode budget it is read under. */
export interface PdfWorkerTask {
  bytes: Uint8Array;
  maxDecodedBytes: number;
  /** Told once this thread is ready and starts reading: the caller's time limit counts from then. */
  started: MessagePort;
}

/** What a PDF worker answers: the content, or the kind of refusal and its message. */
export type PdfWorkerOutcome = { ok: true; content: PdfContent } | { ok: false; kind: 'limit' | 'unreadable'; message: string };

/** Reads the PDF; refusals come back inside the outcome, anything else is thrown (an internal error). */
export default async function readPdfTask(task: PdfWorkerTask): Promise<PdfWorkerOutcome> {
  // Loading pdf.js is the thread's start, not the reading of this PDF (cached after the first task).
  await getResolvedPDFJS();
  task.started.postMessage('started');
  task.started.close();
  try {
    return {
      ok: true,
      content: await readPdf(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength), task.maxDecodedBytes),
    };
  } catch (error) {
    if (error instanceof PdfLimitError) return { ok: false, kind: 'limit', message: error.message };
    if (error instanceof UnreadablePdfError) return { ok: false, kind: 'unreadable', message: error.message };
    throw error;
  }
}
