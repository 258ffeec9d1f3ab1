/**
 * The one `@vladmandic/face-api` instance of the process, loaded lazily on first use: the face
 * detector (SSD MobileNet v1), the 68-point landmark model that aligns the face, and the
 * recognition model (a ResNet-34-like network trained dlib-style, 128-d descriptor, LFW 99.38 %)
 * that makes the embedding. Measured against human's faceres in docs/face.md.
 *
 * - Build: `dist/face-api.node-wasm.js`, on the same tfjs-core and wasm backend as human (one
 *   copy of each, resolved from human's folder). That build `require`s the `@tensorflow/tfjs`
 *   umbrella package, which we do not install (it adds tfjs-layers, tfjs-data and the webgl
 *   backend, none of which face-api uses): the bundle is evaluated with a `require` that answers
 *   `@tensorflow/tfjs` with tfjs-core plus tfjs-converter.
 * - Models: read from the `model/` folder of the face-api package with `loadFromDisk` (Node's
 *   `fs`), so nothing is fetched.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { getHuman } from './human.js';

/**
 * Smallest confidence (0–1) of face-api's SSD detector in the crop around a face human found: human
 * already decided there is a face (at ≥ 0.5), the SSD only places it for the landmarks, and on
 * small or recompressed faces it scores 0.2–0.5 where it is right. At 0.1 it finds 12 more of
 * the 120 screenshot crops, but their embeddings are poor (same-person pairs down to 0.86, where
 * a 400 asking for a better photo serves the user better than a failed match; docs/face.md).
 */
export const FACEAPI_MIN_CONFIDENCE = 0.2;
/** Most faces the detector reports; enough to tell "one" from "several". */
export const FACEAPI_MAX_FACES = 10;
/** Length of face-api's recognition descriptor. */
export const FACEAPI_DESCRIPTOR_LENGTH = 128;

/** The face face-api found in the crop, with its aligned descriptor. */
export interface FaceApiFace {
  /** `[x, y, width, height]` of face-api's box in pixels of the whole image. */
  box: [number, number, number, number];
  /** Detector confidence, 0–1. */
  score: number;
  /** 128 floats (not normalised). */
  descriptor: Float32Array;
  /** The 68 landmarks (iBUG 300-W order) in pixels of the face's crop: what the head pose is read from (head-pose.ts). */
  landmarks: { x: number; y: number }[];
}

interface FaceApiBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface FaceApiResult {
  detection: { box: FaceApiBox; score: number };
  descriptor: Float32Array;
  landmarks: { positions: { x: number; y: number }[] };
}
interface FaceApiNet {
  loadFromDisk(dir: string): Promise<void>;
}
/** The parts of face-api we use. */
interface FaceApiModule {
  nets: {
    ssdMobilenetv1: FaceApiNet;
    faceLandmark68Net: FaceApiNet;
    faceRecognitionNet: FaceApiNet & { computeFaceDescriptor(input: unknown): Promise<Float32Array | Float32Array[]> };
  };
  SsdMobilenetv1Options: new (options: { minConfidence: number; maxResults: number }) => unknown;
  detectAllFaces(input: unknown, options: unknown): { withFaceLandmarks(): { withFaceDescriptors(): Promise<FaceApiResult[]> } };
}

const require = createRequire(import.meta.url);
const FACEAPI_PACKAGE = path.dirname(require.resolve('@vladmandic/face-api/package.json'));
/** Folder of the model files shipped in the face-api package. */
export const FACEAPI_MODELS_DIR = path.join(FACEAPI_PACKAGE, 'model');

type TensorLike = { shape: number[]; throwIfDisposed(): void };
type TfOps = Record<string, unknown> & {
  Tensor: { prototype: Record<string, unknown> };
  reshape(x: TensorLike, shape: number[]): unknown;
  cast(x: TensorLike, dtype: string): unknown;
};

/**
 * tfjs' chained tensor methods that face-api's bundle calls and that are the op of the same name
 * on the tensor: the intersection of tfjs-core's `public/chained_ops` with the method names in
 * `face-api.node-wasm.js` (the reshaping `as1D`–`as4D` and `toInt` are defined apart).
 */
const CHAINED_OPS = [
  'abs',
  'add',
  'all',
  'asin',
  'atan',
  'batchNorm',
  'cast',
  'clipByValue',
  'concat',
  'conv2d',
  'div',
  'exp',
  'expandDims',
  'floor',
  'isNaN',
  'log',
  'matMul',
  'max',
  'mean',
  'min',
  'mul',
  'pad',
  'relu',
  'reshape',
  'reverse',
  'round',
  'sigmoid',
  'slice',
  'softmax',
  'split',
  'sqrt',
  'stack',
  'sub',
  'tile',
  'transpose',
  'unstack',
] as const;

/**
 * Adds tfjs' chained tensor methods (`x.as3D(…)`, `x.expandDims()`, …) that face-api calls, as
 * the `@tensorflow/tfjs` umbrella does on import (tfjs-core's Node build leaves them out and
 * its ESM files cannot be imported by Node). Each method calls the op of the same name on the
 * tensor; the reshaping and casting ones are spelled out. Existing methods are left alone.
 */
function registerChainedOps(tf: TfOps): void {
  const prototype = tf.Tensor.prototype;
  const define = (name: string, method: (this: TensorLike, ...args: never[]) => unknown) => {
    if (!(name in prototype)) prototype[name] = method;
  };
  define('as1D', function () {
    return tf.reshape(this, [-1]);
  });
  define('as2D', function (rows: number, columns: number) {
    return tf.reshape(this, [rows, columns]);
  });
  define('as3D', function (rows: number, columns: number, depth: number) {
    return tf.reshape(this, [rows, columns, depth]);
  });
  define('as4D', function (rows: number, columns: number, depth: number, depth2: number) {
    return tf.reshape(this, [rows, columns, depth, depth2]);
  });
  define('toInt', function () {
    return tf.cast(this, 'int32');
  });
  define('toFloat', function () {
    return tf.cast(this, 'float32');
  });
  for (const name of CHAINED_OPS) {
    const op = tf[name];
    if (typeof op !== 'function') throw new Error(`tfjs-core has no op ${name}`);
    define(name, function (...args: never[]) {
      this.throwIfDisposed();
      return (op as (x: TensorLike, ...rest: never[]) => unknown)(this, ...args);
    });
  }
}

let loading: Promise<FaceApiModule> | undefined;

async function createFaceApi(): Promise<FaceApiModule> {
  // human's instance first: it resolves tfjs and sets up the wasm backend both libraries run on.
  await getHuman();
  const humanRequire = createRequire(require.resolve('@vladmandic/human'));
  const tfjs = { ...humanRequire('@tensorflow/tfjs-core'), ...humanRequire('@tensorflow/tfjs-converter') } as Record<string, unknown>;
  registerChainedOps(tfjs as TfOps);
  const file = path.join(FACEAPI_PACKAGE, 'dist', 'face-api.node-wasm.js');
  const bundleRequire = (id: string): unknown => {
    if (id === '@tensorflow/tfjs') return tfjs;
    return humanRequire(id);
  };
  const module = { exports: {} as FaceApiModule };
  const wrapper = vm.compileFunction(readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], {
    filename: file,
  });
  wrapper(module.exports, bundleRequire, module, file, path.dirname(file));
  const faceapi = module.exports;
  await Promise.all([
    faceapi.nets.ssdMobilenetv1.loadFromDisk(FACEAPI_MODELS_DIR),
    faceapi.nets.faceLandmark68Net.loadFromDisk(FACEAPI_MODELS_DIR),
    faceapi.nets.faceRecognitionNet.loadFromDisk(FACEAPI_MODELS_DIR),
  ]);
  return faceapi;
}

/** The loaded module; the first call loads the models, later calls share them. */
export function getFaceApi(): Promise<FaceApiModule> {
  loading ??= createFaceApi().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Side of the square crop around a detected face that face-api describes, in pixels: the face fills about half of it. */
export const FACE_CROP_SIDE_PX = 320;
/** The crop's side as a multiple of the detected face's larger side. */
export const FACE_CROP_SCALE = 2;

/** The tfjs ops `describeFaceAt` uses (human's tfjs instance, shared with face-api). */
export interface CropTf {
  cast(x: unknown, dtype: 'float32'): { dispose(): void };
  expandDims(x: unknown, axis: number): { dispose(): void };
  reverse(x: unknown, axis: number): { dispose(): void };
  image: {
    cropAndResize(image: unknown, boxes: number[][], boxIndices: number[], size: [number, number]): { dispose(): void };
    transform(
      image: unknown,
      transforms: number[][],
      interpolation: 'bilinear',
      fillMode: 'constant',
      fillValue: number,
      outputShape: [number, number],
    ): { dispose(): void };
  };
}

/**
 * How the face is cut out for the recognition net.
 * - `five-point`: the chip the model was trained on. face-api's recognition net is dlib's
 *   `dlib_face_recognition_resnet_model_v1`, trained on 150 px chips made by dlib's
 *   `get_face_chip(img, shape, 150, 0.25)`: a similarity transform (shift, scale, in-plane
 *   rotation) fitted by least squares from five landmarks (the corners of both eyes and the base
 *   of the nose) to dlib's canonical positions, with 25 % padding. The points come from face-api's
 *   68 landmarks.
 * - `face-api`: face-api's own cut (the engine's): an upright square from the eyes' and mouth's
 *   centres, no rotation. With `flip` it is re-cut here the same way.
 */
export type FaceAlignment = 'five-point' | 'face-api';

/** How `describeFaceAt` describes a face; the engine runs `DEFAULT_DESCRIBE_OPTIONS`. */
export interface DescribeOptions {
  /** Which cut of the face the recognition net sees. */
  alignment: FaceAlignment;
  /** Also describe the mirrored chip and average the two descriptors (a frontal face's mirror is the same person; the average is steadier). */
  flip: boolean;
}

/** The engine's choice: face-api's cut, which separated the evaluation photos better than the five-point chip (docs/face.md "Error rates on photos of many people"). */
export const DEFAULT_DESCRIBE_OPTIONS: DescribeOptions = { alignment: 'face-api', flip: false };

/** Side of the chip the recognition net describes, in pixels (dlib's `get_face_chip` size for this model). */
export const FACE_CHIP_SIDE_PX = 150;
/** Padding of the chip around dlib's mean face, as a share of the mean face's size (dlib's 0.25 for this model). */
export const FACE_CHIP_PADDING = 0.25;
/**
 * dlib's canonical positions (0–1 in the unpadded mean face) of the five points, paired with the
 * iBUG 68-landmark indices they are read from: outer and inner corner of the image-right eye,
 * outer and inner corner of the image-left eye, base of the nose (dlib's 5-point shape order).
 */
const FIVE_POINT_TEMPLATE: readonly { landmark: number; x: number; y: number }[] = [
  { landmark: 45, x: 0.8595674595992, y: 0.2134981538014 },
  { landmark: 42, x: 0.6460604764104, y: 0.2289674387677 },
  { landmark: 36, x: 0.1205750620789, y: 0.2137274526848 },
  { landmark: 39, x: 0.3340850613712, y: 0.2290642403242 },
  { landmark: 33, x: 0.4901123135679, y: 0.6277975316084 },
];

/**
 * The similarity transform (x′ = a·x − b·y + tx, y′ = b·x + a·y + ty) that best maps `from` onto
 * `to` in the least-squares sense (closed form for 2D similarity, as dlib's
 * `find_similarity_transform`).
 */
export function fitSimilarity(
  from: readonly { x: number; y: number }[],
  to: readonly { x: number; y: number }[],
): { a: number; b: number; tx: number; ty: number } {
  const n = from.length;
  const meanFrom = { x: from.reduce((s, p) => s + p.x, 0) / n, y: from.reduce((s, p) => s + p.y, 0) / n };
  const meanTo = { x: to.reduce((s, p) => s + p.x, 0) / n, y: to.reduce((s, p) => s + p.y, 0) / n };
  let dot = 0;
  let cross = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const fx = from[i].x - meanFrom.x;
    const fy = from[i].y - meanFrom.y;
    const tx = to[i].x - meanTo.x;
    const ty = to[i].y - meanTo.y;
    dot += fx * tx + fy * ty;
    cross += fx * ty - fy * tx;
    norm += fx * fx + fy * fy;
  }
  const a = dot / norm;
  const b = cross / norm;
  return { a, b, tx: meanTo.x - (a * meanFrom.x - b * meanFrom.y), ty: meanTo.y - (b * meanFrom.x + a * meanFrom.y) };
}

/** The projective-transform row (tfjs `image.transform`) that samples the five-point chip out of an image whose 68 `landmarks` are in its pixels. */
export function fivePointChipTransform(landmarks: readonly { x: number; y: number }[]): number[] {
  const chip = FIVE_POINT_TEMPLATE.map((point) => ({
    x: ((FACE_CHIP_PADDING + point.x) / (1 + 2 * FACE_CHIP_PADDING)) * FACE_CHIP_SIDE_PX,
    y: ((FACE_CHIP_PADDING + point.y) / (1 + 2 * FACE_CHIP_PADDING)) * FACE_CHIP_SIDE_PX,
  }));
  const image = FIVE_POINT_TEMPLATE.map((point) => landmarks[point.landmark]);
  const { a, b, tx, ty } = fitSimilarity(chip, image);
  return [a, -b, tx, b, a, ty, 0, 0];
}

/**
 * The descriptor of the face `box` of an RGB image tensor (`[height, width, 3]`): a square around
 * the box (`FACE_CROP_SCALE` times its larger side, black beyond the image) is scaled to
 * `FACE_CROP_SIDE_PX`, so small faces (document portraits, distant selfies) reach face-api's
 * detector at a size it finds and large ones cost no more; then face-api detects, aligns and
 * describes the face of that crop nearest its centre. Null when it finds none there.
 */
export async function describeFaceAt(
  tf: CropTf,
  input: unknown,
  imageSize: { width: number; height: number },
  box: [number, number, number, number],
  describe: DescribeOptions = DEFAULT_DESCRIBE_OPTIONS,
): Promise<FaceApiFace | null> {
  const [x, y, width, height] = box;
  const side = FACE_CROP_SCALE * Math.max(width, height);
  const left = x + width / 2 - side / 2;
  const top = y + height / 2 - side / 2;
  const normalised = [top / imageSize.height, left / imageSize.width, (top + side) / imageSize.height, (left + side) / imageSize.width];
  const floats = tf.cast(input, 'float32');
  const batch = tf.expandDims(floats, 0);
  const crop = tf.image.cropAndResize(batch, [normalised], [0], [FACE_CROP_SIDE_PX, FACE_CROP_SIDE_PX]);
  floats.dispose();
  batch.dispose();
  try {
    const faceapi = await getFaceApi();
    const options = new faceapi.SsdMobilenetv1Options({ minConfidence: FACEAPI_MIN_CONFIDENCE, maxResults: FACEAPI_MAX_FACES });
    const results = await faceapi.detectAllFaces(crop, options).withFaceLandmarks().withFaceDescriptors();
    // The face human found is at the crop's centre: take face-api's face nearest to it (a
    // neighbour's face can reach into the crop's margin).
    const centre = FACE_CROP_SIDE_PX / 2;
    const distance = (found: FaceApiBox) => Math.hypot(found.x + found.width / 2 - centre, found.y + found.height / 2 - centre);
    const nearest = results.sort((a, b) => distance(a.detection.box) - distance(b.detection.box))[0];
    if (!nearest) return null;
    const scale = side / FACE_CROP_SIDE_PX;
    const found = nearest.detection.box;
    const landmarks = nearest.landmarks.positions.map((point) => ({ x: point.x, y: point.y }));
    let descriptor = nearest.descriptor;
    if (describe.alignment === 'five-point' || describe.flip) {
      descriptor = await describeChip(tf, faceapi, crop, landmarks, describe);
    }
    return {
      box: [left + found.x * scale, top + found.y * scale, found.width * scale, found.height * scale],
      score: nearest.detection.score,
      descriptor,
      landmarks,
    };
  } finally {
    crop.dispose();
  }
}

/**
 * The recognition net's descriptor of the face in `crop` (`[1, side, side, 3]`, floats) whose 68
 * landmarks are given in the crop's pixels: the five-point chip (or face-api's upright square),
 * and with `flip` the mean of the chip's and its mirror's descriptors.
 */
async function describeChip(
  tf: CropTf,
  faceapi: FaceApiModule,
  crop: unknown,
  landmarks: readonly { x: number; y: number }[],
  options: DescribeOptions,
): Promise<Float32Array> {
  let chip: { dispose(): void };
  if (options.alignment === 'five-point') {
    chip = tf.image.transform(crop, [fivePointChipTransform(landmarks)], 'bilinear', 'constant', 0, [FACE_CHIP_SIDE_PX, FACE_CHIP_SIDE_PX]);
  } else {
    // face-api's cut (FaceLandmarks.alignDlib): an upright square from the eyes and mouth centres.
    const centre = (from: number, to: number) => {
      const points = landmarks.slice(from, to);
      return { x: points.reduce((s, p) => s + p.x, 0) / points.length, y: points.reduce((s, p) => s + p.y, 0) / points.length };
    };
    const [leftEye, rightEye, mouth] = [centre(36, 42), centre(42, 48), centre(48, 68)];
    const size = Math.floor(
      (Math.hypot(mouth.x - leftEye.x, mouth.y - leftEye.y) + Math.hypot(mouth.x - rightEye.x, mouth.y - rightEye.y)) / 2 / 0.45,
    );
    const middle = { x: (leftEye.x + rightEye.x + mouth.x) / 3, y: (leftEye.y + rightEye.y + mouth.y) / 3 };
    const x0 = Math.max(0, Math.floor(middle.x - 0.5 * size));
    const y0 = Math.max(0, Math.floor(middle.y - 0.43 * size));
    const s = FACE_CROP_SIDE_PX;
    chip = tf.image.cropAndResize(crop, [[y0 / s, x0 / s, (y0 + size) / s, (x0 + size) / s]], [0], [FACE_CHIP_SIDE_PX, FACE_CHIP_SIDE_PX]);
  }
  const mirrored = options.flip ? tf.reverse(chip, 2) : undefined;
  try {
    const first = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(chip)) as Float32Array;
    if (!mirrored) return first;
    const second = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(mirrored)) as Float32Array;
    // Each descriptor is brought to unit length first, so neither weighs more.
    const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0)) || 1;
    const [n1, n2] = [norm(first), norm(second)];
    return Float32Array.from(first, (value, i) => (value / n1 + second[i] / n2) / 2);
  } finally {
    chip.dispose();
    mirrored?.dispose();
  }
}
