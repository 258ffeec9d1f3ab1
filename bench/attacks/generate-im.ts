/**
 * Development attack family C, made differently from variants A and B (bench/attacks/generate.ts):
 * the medium is simulated with ImageMagick (`convert`, Debian's package) instead of sharp and our
 * own pixel loops, and every attack draws its own model from several, so no one artefact is shared
 * by all of them. Thresholds are never set on this family: it is the measurement set.
 * - `print`: a laser print (CMYK halftone at 6 or 8 px cells, angled or orthogonal), an inkjet
 *   print (error diffusion: no periodic structure at all) or a photo-paper print (continuous tone,
 *   gloss); tone and saturation of ink; a paper margin, or none (the print fills the view);
 *   perspective (the print held at an angle), a glare spot, the camera's blur, noise and JPEG at
 *   one of several output sizes.
 * - `screen`: the photo drawn on a pixel grid of 3 or 4 px per pixel with RGB stripes or a dot
 *   mask, then photographed at a non-integer scale so the grid aliases into moiré (or resolved
 *   away); the panel's black level, gamma and colour temperature; a bezel of some width, or none
 *   (the screen fills the view); perspective, glare, noise, JPEG.
 * - `cutout`: the face cut out of a print (any of the print models) along a scissor polygon or a
 *   head-and-shoulders outline, with or without a paper rim, held in front of a sharp real scene.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { prng } from '../../test/support/prng.js';

const run = promisify(execFile);

/** Runs `convert` with `args` in a scratch folder holding `inputs`; returns the file named `out`. */
export async function convert(inputs: Record<string, Buffer>, args: (dir: string) => string[], out: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'attack-c-'));
  try {
    for (const [name, bytes] of Object.entries(inputs)) writeFileSync(join(dir, name), bytes);
    await run('convert', args(dir), { maxBuffer: 1 << 26 });
    return readFileSync(join(dir, out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An ImageMagick geometry offset (`+x+y`, `-x+y`, …). */
const offset = (x: number, y: number) => `${x >= 0 ? '+' : ''}${x}${y >= 0 ? '+' : ''}${y}`;
const pick = <T>(random: () => number, options: readonly T[]): T => options[Math.floor(random() * options.length)]!;
const between = (random: () => number, low: number, high: number) => low + random() * (high - low);

type PrintModel = 'laser' | 'inkjet' | 'photo';

/** The photo as printed by `model`, at `width` px of paper: PNG. */
async function printed(photo: Buffer, model: PrintModel, width: number, random: () => number): Promise<Buffer> {
  const upright = await sharp(photo).rotate().png().toBuffer();
  const cast = pick(random, ['#ffe6c8', '#e8f0ff', '#fff8e0', '#f0ffe8']);
  const tone = [
    '-level',
    `${Math.round(between(random, 3, 12))}%,${Math.round(between(random, 88, 97))}%`,
    '-modulate',
    `100,${Math.round(between(random, 70, 90))}`,
  ];
  const ink =
    model === 'laser'
      ? ['-colorspace', 'CMYK', '-ordered-dither', pick(random, ['h6x6a', 'h8x8a', 'h6x6o', 'h8x8o']), '-colorspace', 'sRGB']
      : model === 'inkjet'
        ? ['-dither', 'FloydSteinberg', '-colors', String(Math.round(between(random, 12, 40)))]
        : ['-blur', '0x0.6'];
  // Inks are laid at twice the camera's later resolution, so their structure is finer than a pixel there.
  return convert(
    { 'in.png': upright },
    (dir) => [
      join(dir, 'in.png'),
      '-resize',
      `${width * 2}x`,
      ...tone,
      ...ink,
      '-fill',
      cast,
      '-colorize',
      '8%',
      '-resize',
      `${width}x`,
      join(dir, 'out.png'),
    ],
    'out.png',
  );
}

/** The photo on a screen: each pixel drawn as a `pitch`×`pitch` cell of sub-pixels, lit with the panel's tone. PNG. */
async function onScreen(photo: Buffer, width: number, random: () => number): Promise<Buffer> {
  const pitch = pick(random, [3, 4]);
  const mask = pick(random, ['stripes', 'dots'] as const);
  const { data, info } = await sharp(photo).rotate().resize({ width }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const big = Buffer.alloc(info.width * pitch * info.height * pitch * 3);
  const bigWidth = info.width * pitch;
  const black = between(random, 10, 30);
  const gamma = between(random, 0.8, 1.2);
  const temperature = pick(random, [
    [0.92, 1, 1.1],
    [1, 1, 1],
    [1.04, 1, 0.9],
    [0.95, 1.05, 0.98],
  ]);
  for (let y = 0; y < info.height * pitch; y++) {
    for (let x = 0; x < bigWidth; x++) {
      const source = (Math.floor(y / pitch) * info.width + Math.floor(x / pitch)) * 3;
      const sx = x % pitch;
      const sy = y % pitch;
      for (let k = 0; k < 3; k++) {
        const lit = mask === 'stripes' ? Math.floor((sx * 3) / pitch) === k && sy < pitch - 1 : (sx + sy + k) % pitch === 0 || sx === k;
        const value = black + (255 - black) * Math.pow(data[source + k]! / 255, gamma);
        big[(y * bigWidth + x) * 3 + k] = Math.max(0, Math.min(255, value * temperature[k]! * (lit ? 1.6 : 0.25)));
      }
    }
  }
  return sharp(big, { raw: { width: bigWidth, height: info.height * pitch, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * Presents `layer` (PNG, may be transparent) to a camera: held at an angle (perspective), in front
 * of `scene`, with a glare spot, photographed at `outWidth` px (blur, sensor noise, JPEG).
 * `fill` is the share of the view the layer takes (above 1: the layer overflows the view, no edge).
 */
async function photograph(layer: Buffer, scene: Buffer, fill: number, outWidth: number, random: () => number): Promise<Buffer> {
  const meta = await sharp(layer).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const skew = () => between(random, -0.06, 0.06);
  const corners = [
    [0, 0, w * skew(), h * skew()],
    [w, 0, w * (1 + skew()), h * skew()],
    [w, h, w * (1 + skew()), h * (1 + skew())],
    [0, h, w * skew(), h * (1 + skew())],
  ]
    .map((corner) => corner.map((value) => value.toFixed(1)).join(','))
    .join(' ');
  const viewWidth = Math.round(w / fill);
  const viewHeight = Math.round(h / fill);
  const background = await sharp(scene).rotate().resize({ width: viewWidth, height: viewHeight, fit: 'cover' }).png().toBuffer();
  const offsetX = Math.round((viewWidth - w) * between(random, 0.3, 0.7));
  const offsetY = Math.round((viewHeight - h) * between(random, 0.3, 0.7));
  const glareX = Math.round(viewWidth * between(random, 0.1, 0.9));
  const glareY = Math.round(viewHeight * between(random, 0.1, 0.9));
  const glareRadius = Math.round(Math.min(viewWidth, viewHeight) * between(random, 0.1, 0.35));
  const glareStrength = Math.round(between(random, 10, 45));
  return convert(
    { 'layer.png': layer, 'scene.png': background },
    (dir) => [
      join(dir, 'scene.png'),
      '(',
      join(dir, 'layer.png'),
      '-alpha',
      'set',
      '-virtual-pixel',
      'transparent',
      '+distort',
      'Perspective',
      corners,
      ')',
      '-geometry',
      offset(offsetX, offsetY),
      '-composite',
      '(',
      '-size',
      `${2 * glareRadius}x${2 * glareRadius}`,
      'radial-gradient:white-black',
      '-evaluate',
      'multiply',
      (glareStrength / 100).toFixed(2),
      ')',
      '-geometry',
      offset(glareX - glareRadius, glareY - glareRadius),
      '-compose',
      'Screen',
      '-composite',
      '-filter',
      pick(random, ['Triangle', 'Lanczos', 'Catrom']),
      '-resize',
      `${outWidth}x`,
      '-blur',
      `0x${between(random, 0.4, 1.1).toFixed(2)}`,
      '-attenuate',
      between(random, 0.2, 0.6).toFixed(2),
      '+noise',
      'Gaussian',
      '-quality',
      String(Math.round(between(random, 72, 92))),
      join(dir, 'out.jpg'),
    ],
    'out.jpg',
  );
}

/** A print of `photo` (one of three printer models), photographed. */
export async function makePrintC(photo: Buffer, scene: Buffer, seed: number): Promise<Buffer> {
  const random = prng(seed);
  const model = pick(random, ['laser', 'inkjet', 'photo'] as const);
  const paper = await printed(photo, model, Math.round(between(random, 500, 800)), random);
  const marginShare = pick(random, [0, 0.05, 0.1]);
  const margin = Math.round((await sharp(paper).metadata()).width! * marginShare);
  const sheet = await sharp(paper)
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: pick(random, ['#f7f6f0', '#fbfbfb', '#efeee6']) })
    .png()
    .toBuffer();
  // Without a margin the print is held close, so its edges leave the view.
  return photograph(sheet, scene, marginShare === 0 ? 1.15 : between(random, 0.6, 0.85), pick(random, [720, 1024, 1400]), random);
}

/** `photo` on a screen (pixel grid, panel tone), photographed. */
export async function makeScreenC(photo: Buffer, scene: Buffer, seed: number): Promise<Buffer> {
  const random = prng(seed);
  const panel = await onScreen(photo, Math.round(between(random, 300, 480)), random);
  const bezelShare = pick(random, [0, 0.04, 0.08]);
  const width = (await sharp(panel).metadata()).width!;
  const bezel = Math.round(width * bezelShare);
  const grey = Math.round(between(random, 5, 60));
  const device = await sharp(panel)
    .extend({ top: bezel * 2, bottom: bezel * 2, left: bezel, right: bezel, background: { r: grey, g: grey, b: grey + 3 } })
    .png()
    .toBuffer();
  return photograph(device, scene, bezelShare === 0 ? 1.12 : between(random, 0.6, 0.85), pick(random, [720, 1024, 1400]), random);
}

/** The face (box `[x, y, w, h]` in the photo's upright pixels) cut out of a print and held in front of `scene`. */
export async function makeCutoutC(photo: Buffer, box: [number, number, number, number], scene: Buffer, seed: number): Promise<Buffer> {
  const random = prng(seed);
  const upright = await sharp(photo).rotate().png().toBuffer();
  const { width: fullWidth = 0 } = await sharp(upright).metadata();
  const paper = await printed(upright, pick(random, ['laser', 'inkjet', 'photo'] as const), fullWidth, random);
  const { height: fullHeight = 0 } = await sharp(paper).metadata();
  const [x, y, w, h] = box;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const left = Math.max(0, Math.round(cx - w * 1.3));
  const top = Math.max(0, Math.round(cy - h * 1.1));
  const width = Math.min(fullWidth - left, Math.round(w * 2.6));
  const height = Math.min(fullHeight - top, Math.round(h * 2.4));
  const local = (px: number, py: number) => `${(px - left).toFixed(1)},${(py - top).toFixed(1)}`;
  let outline: string;
  if (random() < 0.5) {
    // Scissor cut: a polygon of 9–13 straight cuts around the head.
    const corners = 9 + Math.floor(random() * 5);
    outline = `polygon ${Array.from({ length: corners }, (_, i) => {
      const angle = (2 * Math.PI * i) / corners;
      const reach = between(random, 0.75, 0.95);
      return local(cx + Math.cos(angle) * w * reach, cy + Math.sin(angle) * h * reach * 1.15);
    }).join(' ')}`;
  } else {
    // Head and shoulders: an ellipse for the head over a wide rounded body.
    outline = `ellipse ${local(cx, cy)} ${(w * 0.7).toFixed(1)},${(h * 0.85).toFixed(1)} 0,360 roundrectangle ${local(cx - w * 1.2, cy + h * 0.55)} ${local(cx + w * 1.2, cy + h * 1.6)} ${(w * 0.4).toFixed(1)},${(w * 0.4).toFixed(1)}`;
  }
  const rim = pick(random, [0, 0, 3, 6]);
  // Shapes drawn on a transparent canvas: the cut (where the print stays) and, for a rim, the paper around it.
  const shape = (fill: string, stroke: number) =>
    convert(
      {},
      (dir) => [
        '-size',
        `${width}x${height}`,
        'xc:none',
        '-fill',
        fill,
        '-stroke',
        fill,
        '-strokewidth',
        String(stroke),
        '-draw',
        outline,
        join(dir, 'out.png'),
      ],
      'out.png',
    );
  const crop = await sharp(paper).extract({ left, top, width, height }).ensureAlpha().png().toBuffer();
  let cut = await sharp(crop)
    .composite([{ input: await shape('white', 0), blend: 'dest-in' }])
    .png()
    .toBuffer();
  if (rim > 0)
    cut = await sharp(await shape('#f2f0ea', 2 * rim))
      .composite([{ input: cut }])
      .png()
      .toBuffer();
  return photograph(cut, scene, between(random, 0.4, 0.6), pick(random, [720, 1024]), random);
}
