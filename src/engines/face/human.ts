/**
 * The one `@vladmandic/human` instance of the process, loaded lazily on first use.
 *
 * - Build: `dist/human.node-wasm.js` (tfjs-core + tfjs-converter + tfjs-backend-wasm, the last
 *   ships the `.wasm` binaries we point `wasmPath` at). No native TensorFlow, no GPU.
 * - Models: read from the `models/` folder of the human package through a `file://` load
 *   router registered on tfjs' IO registry, so nothing is fetched: tfjs-core alone has no
 *   `file://` handler and Node's `fetch` refuses `file:` URLs.
 * - Only the face models run: blazeface (detector), antispoof and liveness. The embedding comes
 *   from face-api (faceapi.ts, docs/face.md); human's own description models run only
 *   when a benchmark asks for one (`createHuman({ description })`). Mesh, iris, emotion, body, hand,
 *   object and segmentation are off.
 * - Frame cache off (`cacheSensitivity: 0`, `skipFrames: 0`, `skipTime: 0`): every call is an
 *   unrelated still image, and human's video-oriented caching would return the previous
 *   person's result for a similar-looking frame.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CropTf } from './faceapi.js';

/** Smallest detector confidence (0–1) for a face to count; human's default 0.2 counts shadows and patterns as faces. */
export const DETECTOR_MIN_CONFIDENCE = 0.5;
/** Most faces the detector reports; enough to tell "one" from "several". */
export const DETECTOR_MAX_FACES = 10;

/** What we read from one detected face of human's result. */
export interface HumanFace {
  /** `[x, y, width, height]` in input pixels. */
  box: [number, number, number, number];
  /** Combined detection confidence, 0–1. */
  score: number;
  /** Antispoof model: 1 a real face, 0 a printed or screen-replayed one. */
  real?: number;
  /** Liveness model: 1 a live face, 0 a static reproduction. */
  live?: number;
  /**
   * Embedding, not normalised: face-api's 128-d descriptor, set by analyze.ts on the largest face
   * only; a human description model's when the instance was created with one (benchmarks).
   */
  embedding?: ArrayLike<number>;
  /** face-api's 68 landmarks of the largest face, in pixels of its crop (set by analyze.ts beside the embedding). */
  landmarks?: { x: number; y: number }[];
}

/** The parts of human's tfjs we use: building an input tensor and registering the model loader. */
interface HumanTf extends CropTf {
  tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): { dispose(): void };
  io: {
    registerLoadRouter(router: (url: string | string[]) => { load(): Promise<unknown> } | null): void;
    getModelArtifactsForJSON(
      json: unknown,
      loadWeights: (manifest: { paths: string[]; weights: unknown[] }[]) => Promise<[unknown[], ArrayBuffer]>,
    ): Promise<unknown>;
  };
}

/** The parts of a human instance we use. */
export interface HumanInstance {
  tf: HumanTf;
  load(): Promise<void>;
  detect(input: unknown): Promise<{ face: HumanFace[]; error?: string | null }>;
}

type HumanModule = { Human: new (config: Record<string, unknown>) => HumanInstance };

const require = createRequire(import.meta.url);
// human's `exports` map only exposes its main entry; the wasm build sits beside it in dist/.
const HUMAN_MAIN = require.resolve('@vladmandic/human');
const HUMAN_DIST = path.dirname(HUMAN_MAIN);

/** Folder of the model files shipped in the human package. */
export const FACE_MODELS_DIR = path.resolve(HUMAN_DIST, '..', 'models');

/** Reads a tfjs graph model (model.json + weight shards) from disk for the `file://` URL tfjs asks for. */
function fileModelRouter(tf: HumanTf) {
  return (url: string | string[]) => {
    const first = Array.isArray(url) ? url[0] : url;
    if (typeof first !== 'string' || !first.startsWith('file://')) return null;
    const modelFile = fileURLToPath(first);
    return {
      async load() {
        const json: unknown = JSON.parse(await readFile(modelFile, 'utf8'));
        return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
          const specs = manifest.flatMap((group) => group.weights);
          const shards = await Promise.all(
            manifest.flatMap((group) => group.paths.map((shard) => readFile(path.join(path.dirname(modelFile), shard)))),
          );
          const all = Buffer.concat(shards);
          return [specs, all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer];
        });
      },
    };
  };
}

/** human's configuration: wasm backend, models from disk, face models only, no caching between calls. */
function humanConfig(wasmDir: string, description: HumanDescription | undefined): Record<string, unknown> {
  const still = { skipFrames: 0, skipTime: 0 };
  return {
    backend: 'wasm',
    wasmPath: wasmDir.endsWith(path.sep) ? wasmDir : wasmDir + path.sep,
    modelBasePath: pathToFileURL(FACE_MODELS_DIR).href + '/',
    cacheModels: false,
    cacheSensitivity: 0,
    skipAllowed: false,
    debug: false,
    async: false,
    warmup: 'none',
    filter: { enabled: false },
    gesture: { enabled: false },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    segmentation: { enabled: false },
    face: {
      enabled: true,
      detector: {
        modelPath: 'blazeface.json',
        rotation: false,
        maxDetected: DETECTOR_MAX_FACES,
        minConfidence: DETECTOR_MIN_CONFIDENCE,
        return: false,
        ...still,
      },
      mesh: { enabled: false },
      attention: { enabled: false },
      iris: { enabled: false },
      emotion: { enabled: false },
      description: { enabled: description?.slot === 'description', modelPath: description?.modelPath ?? 'faceres.json', ...still },
      mobilefacenet: {
        enabled: description?.slot === 'mobilefacenet',
        modelPath: description?.modelPath ?? 'mobilefacenet.json',
        ...still,
      },
      antispoof: { enabled: true, modelPath: 'antispoof.json', ...still },
      liveness: { enabled: true, modelPath: 'liveness.json', ...still },
    },
  };
}

let loading: Promise<HumanInstance> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** An embedding model for human to run besides detection (benchmarks only): its config slot and model (a name in human's models folder, or a `file://` URL). */
export interface HumanDescription {
  slot: 'description' | 'mobilefacenet';
  modelPath: string;
}

/**
 * A new human instance on the wasm backend with the models from disk. The engine keeps one
 * (`getHuman`) without any description model; `bench/face-models.ts` makes others with one
 * (human's faceres and the like) to measure them beside face-api's embedding.
 */
export async function createHuman(options: { description?: HumanDescription } = {}): Promise<HumanInstance> {
  // Resolved from human's own folder so the tfjs packages are the copies its build requires.
  const humanRequire = createRequire(HUMAN_MAIN);
  let wasmEntry: string;
  try {
    wasmEntry = humanRequire.resolve('@tensorflow/tfjs-backend-wasm');
  } catch {
    throw new Error(
      'face engine: @tensorflow/tfjs-core, @tensorflow/tfjs-converter and @tensorflow/tfjs-backend-wasm 4.22.0 must be installed beside @vladmandic/human',
    );
  }
  const wasmDir = path.dirname(wasmEntry);
  const { Human } = humanRequire(path.join(HUMAN_DIST, 'human.node-wasm.js')) as HumanModule;
  const human = new Human(humanConfig(wasmDir, options.description));
  human.tf.io.registerLoadRouter(fileModelRouter(human.tf));
  await human.load();
  return human;
}

/** The loaded instance; the first call loads the models (about half a second), later calls share it. */
export function getHuman(): Promise<HumanInstance> {
  loading ??= createHuman().catch((error: unknown) => {
    loading = undefined; // let a later call retry rather than caching the failure forever
    throw error;
  });
  return loading;
}

/**
 * Runs `task` with exclusive use of the instance: human keeps per-call state (and the wasm
 * backend is single-threaded anyway), so concurrent requests take turns.
 */
export function withHuman<T>(task: (human: HumanInstance) => Promise<T>): Promise<T> {
  const run = queue.then(async () => task(await getHuman()));
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Waits for work in flight and forgets the instance (tests, graceful shutdown); the next use
 * creates a new one. human's model modules cache loaded graphs at module level, so this does
 * not free their memory, and a re-creation costs little.
 */
export async function closeFaceEngine(): Promise<void> {
  const pending = loading;
  loading = undefined;
  if (!pending) return;
  await queue;
  await pending.catch(() => undefined);
}
