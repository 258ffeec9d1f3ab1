/**
 * The live engines whose work is CPU-bound and pure (input bytes → analysis): image decoding, OCR,
 * MRZ, face and PDF parsing. They run in the engine pool's threads or in worker processes
 * (src/engines/pool/), never on the API's event loop; `registry.ts` lists them among the live
 * engines and routes their runs through the executor. An engine that needs the database (AML,
 * phone) does not belong here.
 */
import { mrzOcrEngine } from './document/engine.js';
import { liveFaceEngine } from './face/engine.js';
import { livePoaEngine } from './poa/engine.js';
import type { NodeEngine } from './node-engine.js';

/** CPU-bound live engines by provider name. */
export const CPU_ENGINES: Partial<Record<string, NodeEngine>> = {
  [livePoaEngine.provider]: livePoaEngine,
  [liveFaceEngine.provider]: liveFaceEngine,
  [mrzOcrEngine.provider]: mrzOcrEngine as NodeEngine,
};
