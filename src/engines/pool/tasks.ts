/**
 * The CPU-bound engine work as plain data: bytes in, analysis out. A task is JSON (no Buffers, no
 * functions) so that the same value crosses a worker thread (structured clone) and the PostgreSQL
 * queue (jsonb); `runEngineTask` is the one place that turns a task back into engine calls, in a
 * pool thread, in a worker process, or inline. Database access, list gates and session state
 * never come here: they stay with the caller on the API's main thread.
 */
import type { NodeResult } from '../../domain/types.js';
import { ApiError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../../shared/errors.js';
import type { DocumentOutcome } from '../document/engine.js';
import type { NfcTrust } from '../document/nfc.js';
import type { VdsTrust } from '../document/vds.js';
import { analyzeFace, type AnalyzeFaceOptions, type FaceAnalysis } from '../face/analyze.js';
import type { DocumentVerificationInput, ProofOfAddressInput } from '../inputs.js';
import type { PoaAnalysis } from '../poa/engine.js';
import type { EngineContext } from '../node-engine.js';

/** `EngineContext` as it travels: the document portrait as base64 instead of a Buffer. */
export type WireEngineContext = Omit<EngineContext, 'documentPortrait'> & { documentPortraitBase64?: string };

/** One node run of a CPU engine of `CPU_ENGINES` (`openkyc:mrz_ocr`, `openkyc:face_match`, `openkyc:poa_ocr`). */
export interface NodeEngineTask {
  kind: 'node';
  provider: string;
  input: unknown;
  context: WireEngineContext;
}

/** The standalone ID document check (`POST /v1/id-verification`). */
export interface DocumentTask {
  kind: 'document';
  input: DocumentVerificationInput;
  /** "Today" for the expiry check, epoch milliseconds; the real clock when absent. */
  nowMs?: number;
}

/** The standalone proof-of-address check (`POST /v1/poa`). */
export interface PoaTask {
  kind: 'poa';
  input: ProofOfAddressInput;
  /** "Today" for the freshness check, epoch milliseconds; the real clock when absent. */
  nowMs?: number;
}

/** One face analysis (document portraits, face list entries). */
export interface FaceTask {
  kind: 'face';
  imageBase64: string;
  options: AnalyzeFaceOptions;
}

/** Every kind of work the engine executors run. */
export type EngineTask = NodeEngineTask | DocumentTask | PoaTask | FaceTask;

/** What each task kind resolves to. */
export interface EngineTaskResults {
  node: Omit<NodeResult, 'required'>;
  document: DocumentOutcome;
  poa: PoaAnalysis;
  face: FaceAnalysis;
}

/** The result type of one task. */
export type EngineTaskResult<T extends EngineTask> = EngineTaskResults[T['kind']];

/** An error as it travels back: client errors keep their catalogue code and field errors. */
export type WireError =
  | { kind: 'api'; code: ErrorCode; message: string; fieldErrors: FieldError[]; headers: Record<string, string> }
  | { kind: 'internal'; name: string; message: string; stack?: string };

/**
 * A task's outcome. Errors are returned, not thrown: a thrown ApiError would reach the other side
 * as a bare Error (structured clone and JSON both drop its class), turning every 400 into a 500.
 */
export type EngineTaskOutcome = { ok: true; value: unknown } | { ok: false; error: WireError };

/** Turns any thrown value into its wire form. */
export function toWireError(error: unknown): WireError {
  if (error instanceof ApiError)
    return { kind: 'api', code: error.code, message: error.message, fieldErrors: error.fieldErrors, headers: error.headers };
  if (error instanceof Error) return { kind: 'internal', name: error.name, message: error.message, stack: error.stack };
  return { kind: 'internal', name: 'Error', message: String(error) };
}

/** Rebuilds the error a task failed with, on the caller's side. */
export function fromWireError(error: WireError): Error {
  if (error.kind === 'api' && error.code in ERROR_CATALOGUE)
    return new ApiError(error.code, error.message, error.fieldErrors, error.headers);
  const rebuilt = new Error(error.message);
  if (error.kind === 'internal') {
    rebuilt.name = error.name;
    if (error.stack) rebuilt.stack = error.stack;
  }
  return rebuilt;
}

/** The value of an outcome, or its error thrown. */
export function unwrapOutcome<T>(outcome: EngineTaskOutcome): T {
  if (outcome.ok) return outcome.value as T;
  throw fromWireError(outcome.error);
}

/** `EngineContext` → its wire form. */
export function toWireContext(context: EngineContext): WireEngineContext {
  const { documentPortrait, ...rest } = context;
  return documentPortrait ? { ...rest, documentPortraitBase64: documentPortrait.toString('base64') } : rest;
}

function fromWireContext(context: WireEngineContext): EngineContext {
  const { documentPortraitBase64, ...rest } = context;
  return documentPortraitBase64 ? { ...rest, documentPortrait: Buffer.from(documentPortraitBase64, 'base64') } : rest;
}

const clockAt = (nowMs: number | undefined) => (nowMs === undefined ? {} : { now: () => new Date(nowMs) });

/** What the engines of a thread run with: the server's configuration they need, given when the thread starts. */
export interface EngineThreadSettings {
  /** CSCA certificates for NFC passive authentication (NFC_CSCA_CERTS_PATH). */
  nfcTrust: NfcTrust;
  /** Signer certificates of visible digital seals (VDS_SIGNER_CERTS_PATH). */
  vdsSigners?: VdsTrust;
}

/** Settings of a thread started without configuration: no NFC trust, no seal signers. */
export const DEFAULT_ENGINE_THREAD_SETTINGS: EngineThreadSettings = { nfcTrust: [], vdsSigners: [] };

/**
 * Imports the engines a task may run. A pool thread and an inline app call it before their first
 * task, so that the models' modules load at start as they always did; the API's thread, which
 * imports this module for the executor, does not.
 */
export async function loadEngineModules(): Promise<void> {
  await Promise.all([import('../cpu-engines.js'), import('../document/engine.js'), import('../poa/engine.js')]);
}

/** Runs one task in the current thread with that thread's settings; the body of every executor's worker. */
export async function runEngineTask(task: EngineTask, settings: EngineThreadSettings = DEFAULT_ENGINE_THREAD_SETTINGS): Promise<unknown> {
  // Imported here, not at the top: the API's thread imports this module for its executor and runs
  // no engine itself (threads and inline apps load them first: `loadEngineModules`).
  switch (task.kind) {
    case 'node': {
      const [{ CPU_ENGINES }, { createMrzOcrEngine, MRZ_OCR_PROVIDER }] = await Promise.all([
        import('../cpu-engines.js'),
        import('../document/engine.js'),
      ]);
      // The document engine is the one that needs the thread's settings; the others are used as listed.
      const engine =
        task.provider === MRZ_OCR_PROVIDER
          ? createMrzOcrEngine({ cscaCertificates: settings.nfcTrust, vdsSigners: settings.vdsSigners })
          : CPU_ENGINES[task.provider];
      if (!engine) throw new Error(`No CPU engine for provider ${task.provider}`);
      return engine.run(task.input as never, fromWireContext(task.context));
    }
    case 'document': {
      const { verifyDocument } = await import('../document/engine.js');
      return verifyDocument(task.input, null, {
        ...clockAt(task.nowMs),
        cscaCertificates: settings.nfcTrust,
        vdsSigners: settings.vdsSigners,
      });
    }
    case 'poa': {
      const { analyseProofOfAddress } = await import('../poa/engine.js');
      return analyseProofOfAddress(task.input, clockAt(task.nowMs));
    }
    case 'face':
      return analyzeFace(Buffer.from(task.imageBase64, 'base64'), task.options);
  }
}

/** `runEngineTask` with its error captured in the outcome, for the thread and process boundaries. */
export async function settleEngineTask(
  task: EngineTask,
  settings: EngineThreadSettings = DEFAULT_ENGINE_THREAD_SETTINGS,
): Promise<EngineTaskOutcome> {
  try {
    return { ok: true, value: await runEngineTask(task, settings) };
  } catch (error) {
    return { ok: false, error: toWireError(error) };
  }
}
