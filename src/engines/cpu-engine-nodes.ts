/**
 * What the API's thread knows of the CPU-bound engines (`CPU_ENGINES`): each one's provider and
 * node type, which is all the registry needs to route a run to the executor. The engines
 * themselves (OCR, image decoding, PDF parsing, face models) load only where they run: on a pool
 * thread, in a worker process, or inline on first use (src/engines/pool/tasks.ts), so a server
 * or test file that starts without running one does not import them.
 */
import type { NodeType } from '../domain/types.js';

/** One CPU engine as the registry lists it: which provider runs which node type. */
export interface CpuEngineNode {
  provider: string;
  nodeType: NodeType;
}

/** The providers and node types of `CPU_ENGINES` (test/engines/face.test.ts checks the two agree). */
export const CPU_ENGINE_NODES: readonly CpuEngineNode[] = [
  { provider: 'openkyc:poa_ocr', nodeType: 'proof_of_address' },
  { provider: 'openkyc:face_match', nodeType: 'biometric_kyc' },
  { provider: 'openkyc:mrz_ocr', nodeType: 'document_verification' },
];
