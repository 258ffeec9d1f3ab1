/**
 * Replays of a document's portrait as a fraudster makes them from a photo of the document: the
 * portrait cropped with some margin, resized, slightly blurred or brightened, and re-encoded as
 * JPEG, so the result is a crop and never the document's bytes. Used by the replay test and
 * `bench/accuracy/face-replay.ts`.
 */
import sharp from 'sharp';

/** One replay crop. */
export interface ReplayCrop {
  /** How it was made. */
  name: string;
  /** JPEG bytes. */
  bytes: Buffer;
}

/** The ways a crop is made: margin around the face box (× its size), output width, blur sigma, brightness, JPEG quality. */
const VARIANTS = [
  { name: 'wide margin, 480 px, q85', margin: 0.6, width: 480, blur: 0, brightness: 1, quality: 85 },
  { name: 'tight margin, 320 px, blur 0.8, q70', margin: 0.3, width: 320, blur: 0.8, quality: 70, brightness: 1 },
  { name: 'whole head, 640 px, brighter, sharpened, q92', margin: 1, width: 640, blur: 0, brightness: 1.08, quality: 92 },
] as const;

/**
 * Crops of the face at `box` (`[x, y, width, height]` in the pixels the face engine analysed: the
 * upright image scaled to fit `analysisSidePx`) from the document image.
 */
export async function portraitReplayCrops(
  document: Buffer,
  box: readonly [number, number, number, number] | readonly number[],
  analysisSidePx: number,
): Promise<ReplayCrop[]> {
  const upright = await sharp(document).rotate().toBuffer({ resolveWithObject: true });
  const { width: fullWidth, height: fullHeight } = upright.info;
  const scale = Math.max(fullWidth, fullHeight) > analysisSidePx ? Math.max(fullWidth, fullHeight) / analysisSidePx : 1;
  const [x, y, w, h] = box.map((value) => value * scale);
  const crops: ReplayCrop[] = [];
  for (const variant of VARIANTS) {
    const left = Math.max(0, Math.round(x - variant.margin * w));
    const top = Math.max(0, Math.round(y - variant.margin * h));
    const width = Math.min(fullWidth - left, Math.round(w * (1 + 2 * variant.margin)));
    const height = Math.min(fullHeight - top, Math.round(h * (1 + 2 * variant.margin)));
    let image = sharp(upright.data).extract({ left, top, width, height }).resize({ width: variant.width });
    if (variant.blur > 0) image = image.blur(variant.blur);
    if (variant.brightness !== 1) image = image.modulate({ brightness: variant.brightness }).sharpen();
    crops.push({ name: variant.name, bytes: await image.jpeg({ quality: variant.quality }).toBuffer() });
  }
  return crops;
}
