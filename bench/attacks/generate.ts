/**
 * Development presentation-attack set, made at run time from the real photos of
 * `../shared/realdata/face` (and the ID specimens of `../shared/realdata/id`): nothing generated is
 * committed. Each attack simulates what a camera sees when a photo is presented to it:
 * - `print`: the photo printed (tone curve of ink on paper, lower saturation, halftone or paper
 *   grain), with its white paper margin, tilted on a table or wall, re-captured (blur, noise, JPEG).
 * - `screen`: the photo shown on a phone or monitor (colour shift, raised black level, sub-pixel
 *   stripes or scanlines that alias into moiré), inside its dark bezel, tilted, re-captured.
 * - `cutout`: the face cut out of a print (an oval or a head-and-shoulders shape with its white
 *   paper rim), held in front of a room.
 * Two generator variants that share no parameters: `A` is what thresholds were calibrated on, `B`
 * (other periods, angles, colour casts, borders and backgrounds) is what they are measured on, so
 * a check fitted to one generator's artefacts shows it (docs/fraud.md).
 */
import sharp, { type Sharp } from 'sharp';
import { prng } from '../../test/support/prng.js';

/** Which generator made an attack (see the module comment). */
export type AttackVariant = 'A' | 'B';
/** Presentation-attack species of the development set (ISO/IEC 30107-3 "PAI species"). */
export type AttackKind = 'print' | 'screen' | 'cutout';

/** Raw RGB pixels. */
interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function toRaw(image: Buffer | Sharp, width?: number): Promise<Raw> {
  let pipeline = Buffer.isBuffer(image) ? sharp(image).rotate() : image;
  if (width) pipeline = pipeline.resize({ width });
  const { data, info } = await pipeline.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function fromRaw(raw: Raw): Sharp {
  return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } });
}

function clamp(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : value;
}

/** Applies `map(r, g, b, x, y)` to every pixel. */
function mapPixels(raw: Raw, map: (rgb: [number, number, number], x: number, y: number) => [number, number, number]): Raw {
  const out = Buffer.alloc(raw.data.length);
  for (let y = 0; y < raw.height; y++) {
    for (let x = 0; x < raw.width; x++) {
      const i = (y * raw.width + x) * 3;
      const [r, g, b] = map([raw.data[i], raw.data[i + 1], raw.data[i + 2]], x, y);
      out[i] = clamp(r);
      out[i + 1] = clamp(g);
      out[i + 2] = clamp(b);
    }
  }
  return { ...raw, data: out };
}

/** A background the presented photo lies on: a lit table or wall (A), or a blurred real scene (B). */
async function background(variant: AttackVariant, width: number, height: number, scene: Buffer, random: () => number): Promise<Buffer> {
  if (variant === 'A') {
    const base: [number, number, number] = [150 + random() * 60, 120 + random() * 50, 90 + random() * 50];
    const flat = mapPixels({ data: Buffer.alloc(width * height * 3), width, height }, (_, x, y) => {
      const light = 0.75 + 0.35 * (1 - y / height) + 0.1 * Math.sin(x / 37) + (random() - 0.5) * 0.08;
      return [base[0] * light, base[1] * light, base[2] * light];
    });
    return fromRaw(flat).png().toBuffer();
  }
  return sharp(scene).rotate().resize({ width, height, fit: 'cover' }).blur(6).modulate({ brightness: 0.8 }).png().toBuffer();
}

/** Ink on paper: compressed tone range, a gamma, less saturation, a warm paper white, then halftone (A) or paper grain (B). */
function printTone(raw: Raw, variant: AttackVariant, random: () => number): Raw {
  const period = variant === 'A' ? 4 + random() * 2 : 0;
  const angle = (variant === 'A' ? 45 : 15) * (Math.PI / 180);
  const grain = Array.from({ length: 64 * 64 }, () => random() - 0.5);
  const low = variant === 'A' ? 22 : 35;
  const high = variant === 'A' ? 238 : 228;
  const gamma = variant === 'A' ? 1.25 : 0.85;
  return mapPixels(raw, ([r, g, b], x, y) => {
    const grey = 0.299 * r + 0.587 * g + 0.114 * b;
    const saturation = variant === 'A' ? 0.8 : 0.7;
    const channels = [r, g, b].map((c) => grey + (c - grey) * saturation);
    let texture = 1;
    if (period > 0) {
      const u = (x * Math.cos(angle) + y * Math.sin(angle)) / period;
      const v = (-x * Math.sin(angle) + y * Math.cos(angle)) / period;
      texture = 1 - 0.12 * Math.cos(2 * Math.PI * u) * Math.cos(2 * Math.PI * v);
    } else {
      texture = 1 + 0.1 * grain[(y % 64) * 64 + (x % 64)];
    }
    const tint = variant === 'A' ? [1, 0.98, 0.92] : [0.97, 0.97, 1];
    return channels.map((c, k) => (low + (high - low) * Math.pow(c / 255, gamma)) * texture * tint[k]) as [number, number, number];
  });
}

/** A screen's rendering: colour cast, raised black, gamma, and sub-pixel stripes (A) or scanlines (B), drawn at 3× and scaled down so they alias. */
async function screenTone(photo: Buffer, width: number, variant: AttackVariant, random: () => number): Promise<Raw> {
  const big = await toRaw(photo, width * 3);
  const cast = variant === 'A' ? [0.9, 1.0, 1.12] : [0.92, 1.06, 1.0];
  const black = variant === 'A' ? 18 : 28;
  const gamma = variant === 'A' ? 0.85 : 1.15;
  const linePeriod = variant === 'A' ? 0 : 7 + Math.floor(random() * 4);
  const lit = mapPixels(big, ([r, g, b], x, y) => {
    const stripes = variant === 'A' ? [0, 1, 2].map((k) => (x % 3 === k ? 1 : 0.55)) : [1, 1, 1];
    const line = linePeriod > 0 ? 0.78 + 0.22 * Math.cos((2 * Math.PI * y) / linePeriod) : 1;
    return [r, g, b].map((c, k) => (black + (255 - black) * Math.pow(c / 255, gamma)) * cast[k] * stripes[k] * line) as [
      number,
      number,
      number,
    ];
  });
  return toRaw(await fromRaw(lit).png().toBuffer(), width);
}

/** Tilts `layer` (with transparent corners) and lays it on the background; returns the re-captured JPEG. */
async function present(layer: Buffer, variant: AttackVariant, scene: Buffer, random: () => number, fill: number): Promise<Buffer> {
  const tilt = (variant === 'A' ? 3 + random() * 5 : -(2 + random() * 6)) * (random() < 0.5 ? -1 : 1);
  const rotated = await sharp(layer)
    .ensureAlpha()
    .rotate(tilt, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  const meta = await sharp(rotated).metadata();
  const width = Math.round(meta.width! / fill);
  const height = Math.round(meta.height! / fill);
  const base = await background(variant, width, height, scene, random);
  const left = Math.round((width - meta.width!) * (0.3 + random() * 0.4));
  const top = Math.round((height - meta.height!) * (0.3 + random() * 0.4));
  const composed = await sharp(base)
    .composite([{ input: rotated, left, top }])
    .png()
    .toBuffer();
  const target = variant === 'A' ? 1100 : 900;
  const noisy = await toRaw(
    sharp(composed)
      .resize({ width: target })
      .blur(variant === 'A' ? 0.7 : 1.0),
  );
  const noise = mapPixels(noisy, ([r, g, b]) => {
    const n = (random() - 0.5) * (variant === 'A' ? 6 : 10);
    return [r + n, g + n, b + n];
  });
  return fromRaw(noise)
    .jpeg({ quality: variant === 'A' ? 88 : 80 })
    .toBuffer();
}

/** A printed copy of `photo` re-captured by a camera. */
export async function makePrint(photo: Buffer, variant: AttackVariant, scene: Buffer, seed: number): Promise<Buffer> {
  const random = prng(seed);
  const printed = printTone(await toRaw(photo, variant === 'A' ? 700 : 560), variant, random);
  const margin = Math.round(printed.width * (variant === 'A' ? 0.07 : 0.12));
  const paper = variant === 'A' ? { r: 246, g: 244, b: 236 } : { r: 236, g: 238, b: 242 };
  const sheet = await fromRaw(printed)
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: paper })
    .png()
    .toBuffer();
  return present(sheet, variant, scene, random, variant === 'A' ? 0.8 : 0.7);
}

/** `photo` shown on a screen and re-captured by a camera. */
export async function makeScreen(photo: Buffer, variant: AttackVariant, scene: Buffer, seed: number): Promise<Buffer> {
  const random = prng(seed);
  const shown = await screenTone(photo, variant === 'A' ? 640 : 520, variant, random);
  const bezel = Math.round(shown.width * (variant === 'A' ? 0.05 : 0.09));
  const frame = variant === 'A' ? { r: 12, g: 12, b: 14 } : { r: 48, g: 48, b: 52 };
  const device = await fromRaw(shown)
    .extend({ top: bezel * 2, bottom: bezel * 2, left: bezel, right: bezel, background: frame })
    .png()
    .toBuffer();
  return present(device, variant, scene, random, variant === 'A' ? 0.8 : 0.72);
}

/** The face of `photo` (box `[x, y, w, h]` in its upright pixels) cut out of a print and held in front of a room. */
export async function makeCutout(
  photo: Buffer,
  box: [number, number, number, number],
  variant: AttackVariant,
  scene: Buffer,
  seed: number,
): Promise<Buffer> {
  const random = prng(seed);
  const upright = await toRaw(photo);
  const printed = printTone(upright, variant, random);
  const [x, y, w, h] = box;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const rx = w * (variant === 'A' ? 0.8 : 1.1);
  const ry = h * (variant === 'A' ? 1.0 : 1.4);
  const left = Math.max(0, Math.round(cx - rx - 6));
  const top = Math.max(0, Math.round(cy - ry - 6));
  const width = Math.min(upright.width - left, Math.round(2 * rx + 12));
  const height = Math.min(upright.height - top, Math.round(2 * ry + 12));
  const rim = variant === 'A' ? 5 : 2;
  const shape =
    variant === 'A'
      ? `<ellipse cx="${cx - left}" cy="${cy - top}" rx="${rx}" ry="${ry}"`
      : `<rect x="${cx - left - rx}" y="${cy - top - ry * 0.8}" width="${2 * rx}" height="${ry * 1.8}" rx="${rx * 0.6}"`;
  const svg = (fill: string, grow: number) =>
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><g transform="translate(${cx - left} ${cy - top}) scale(${1 + grow}) translate(${-(cx - left)} ${-(cy - top)})">${shape} fill="${fill}"/></g></svg>`,
    );
  const face = await fromRaw(printed).extract({ left, top, width, height }).png().toBuffer();
  const cut = await sharp(face)
    .ensureAlpha()
    .composite([{ input: svg('#fff', 0), blend: 'dest-in' }])
    .png()
    .toBuffer();
  const paperRim = await sharp(svg('#f4f2ec', rim / Math.min(rx, ry)))
    .composite([{ input: cut }])
    .png()
    .toBuffer();
  return present(paperRim, variant, scene, random, variant === 'A' ? 0.45 : 0.55);
}
