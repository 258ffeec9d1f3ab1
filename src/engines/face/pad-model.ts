/**
 * A face anti-spoofing model trained on real re-captures: Minivision's Silent-Face MiniFASNet pair
 * (Apache-2.0; provenance, conversion and checksums in `models/README.md`), run by onnxruntime on
 * the CPU. The two small models of human (antispoof, liveness) score photos of photos like faces
 * (docs/fraud.md); this pair was trained on photographs of printed and on-screen faces taken by
 * phone cameras, which is the evidence passive image signals cannot give on their own.
 *
 * Each model sees the face box grown around its centre (2.7 and 4 times, clipped to the image
 * and shifted back inside it, as the models were trained), resized to 80 × 80, BGR values 0–255.
 * The score is the mean of the two models' probability of the "real face" class, 0 to 1.
 */
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Box, Rgb } from '../recapture-evidence.js';

/** The two models and the crop scale each was trained on. */
const MODELS = [
  { file: 'minifasnet-v2-2.7.onnx', scale: 2.7 },
  { file: 'minifasnet-v1se-4.0.onnx', scale: 4 },
] as const;
/** Side of the square input both models take, in pixels. */
const INPUT_PX = 80;
/** Index of the "real face" class in the models' output (0 and 2 are the two kinds of attack). */
const REAL_CLASS = 1;

/** The part of an onnxruntime session we use. */
interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: unknown }>>;
  release(): Promise<void>;
}
/** onnxruntime's tensor constructor. */
type TensorConstructor = new (type: 'float32', data: Float32Array, dims: number[]) => unknown;

let loading: Promise<{ sessions: Session[]; Tensor: TensorConstructor }> | undefined;

/** Loads both models once per thread (onnxruntime-node is imported lazily: processes that never judge a selfie do not load it). */
function models(): Promise<{ sessions: Session[]; Tensor: TensorConstructor }> {
  loading ??= import('onnxruntime-node')
    .then(async (ort) => ({
      // One thread per inference: an 80 × 80 input is far too small to gain from more, and the
      // engine threads already run side by side.
      sessions: (await Promise.all(
        MODELS.map(({ file }) =>
          ort.InferenceSession.create(fileURLToPath(new URL(`./models/${file}`, import.meta.url)), {
            intraOpNumThreads: 1,
            interOpNumThreads: 1,
          }),
        ),
      )) as unknown as Session[],
      Tensor: ort.Tensor as unknown as TensorConstructor,
    }))
    .catch((error: unknown) => {
      loading = undefined; // a later call retries rather than caching the failure
      throw error;
    });
  return loading;
}

/** The crop a model of `scale` sees: the face box grown around its centre, shifted back inside the image (left, top, right, bottom inclusive). */
export function modelCrop(width: number, height: number, [x, y, w, h]: Box, scale: number): [number, number, number, number] {
  const grown = Math.min((height - 1) / h, (width - 1) / w, scale);
  const cx = x + w / 2;
  const cy = y + h / 2;
  let left = cx - (w * grown) / 2;
  let right = cx + (w * grown) / 2;
  let top = cy - (h * grown) / 2;
  let bottom = cy + (h * grown) / 2;
  if (left < 0) [left, right] = [0, right - left];
  if (top < 0) [top, bottom] = [0, bottom - top];
  if (right > width - 1) [left, right] = [left - (right - width + 1), width - 1];
  if (bottom > height - 1) [top, bottom] = [top - (bottom - height + 1), height - 1];
  return [Math.max(0, Math.trunc(left)), Math.max(0, Math.trunc(top)), Math.trunc(right), Math.trunc(bottom)];
}

/** The model input for one crop: 80 × 80, planar BGR, values 0–255 (the models were trained without scaling). */
async function input(image: Rgb, crop: [number, number, number, number]): Promise<Float32Array> {
  const [left, top, right, bottom] = crop;
  const pixels = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({ left, top, width: right - left + 1, height: bottom - top + 1 })
    .resize(INPUT_PX, INPUT_PX, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const plane = INPUT_PX * INPUT_PX;
  const planar = new Float32Array(3 * plane);
  for (let p = 0; p < plane; p += 1) {
    planar[p] = pixels[p * 3 + 2]!;
    planar[plane + p] = pixels[p * 3 + 1]!;
    planar[2 * plane + p] = pixels[p * 3]!;
  }
  return planar;
}

/** How sure the model pair is that the face at `box` of the upright `image` is a real face in front of the camera, 0 (a reproduction) to 1, to three decimals (as the details show it). */
export async function recaptureModelScore(image: Rgb, box: Box): Promise<number> {
  const { sessions, Tensor } = await models();
  let real = 0;
  for (const [index, session] of sessions.entries()) {
    const data = await input(image, modelCrop(image.width, image.height, box, MODELS[index]!.scale));
    const output = await session.run({ input: new Tensor('float32', data, [1, 3, INPUT_PX, INPUT_PX]) });
    real += (output.probs!.data as Float32Array)[REAL_CLASS]!;
  }
  return Math.round((real / sessions.length) * 1000) / 1000;
}

/** Releases the models (tests, graceful shutdown); the next score loads them again. */
export async function closeRecaptureModel(): Promise<void> {
  const pending = loading;
  loading = undefined;
  const loaded = await pending?.catch(() => undefined);
  await Promise.all(loaded?.sessions.map((session) => session.release()) ?? []);
}
