/**
 * Phone photos of real bills, made at run time from their PDFs (nothing generated is committed):
 * page 1 is rendered with poppler's `pdftoppm`, then photographed with ImageMagick (`convert`,
 * not sharp nor the engine's own code, so the engine is not measured on its own tools): the page
 * lies on a textured desk, seen at an angle (a perspective warp of its four corners), turned,
 * lit unevenly (a gradient across the page at any angle, a soft shadow of the phone or a hand
 * over one part), slightly out of focus, with sensor noise and JPEG compression. Each photo's
 * parameters come from a seeded generator, so a seed names one photo on every run.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prng } from '../../test/support/prng.js';

const run = promisify(execFile);

/** Resolution page 1 is rendered at before it is photographed, in dots per inch (a 12 MP phone filling its frame with an A4 page sees about 250). */
export const PHOTO_RENDER_DPI = 200;

/** The parameters one seed picks (for logs). */
export interface PhonePhotoParameters {
  /** Rotation of the page on the desk, degrees. */
  degrees: number;
  /** Largest displacement of a corner by the perspective, as a share of the page's width. */
  tilt: number;
  /** Darkest share of the light across the page (1 = even). */
  dimmest: number;
  /** Whether a soft shadow falls over part of the page. */
  shadow: boolean;
  /** Gaussian blur sigma, pixels. */
  blur: number;
  /** JPEG quality. */
  quality: number;
  /** Where the page's corners lie in the photo (top-left, top-right, bottom-right, bottom-left), pixels. */
  corners: { x: number; y: number }[];
}

/** Whether pdftoppm and ImageMagick's convert are on this machine (the generator needs both). */
export async function phonePhotoToolsPresent(): Promise<boolean> {
  try {
    await run('pdftoppm', ['-v']);
    await run('convert', ['-version']);
    return true;
  } catch {
    return false;
  }
}

/** Page 1 of a PDF as a PNG at `dpi`. */
export async function renderFirstPage(pdf: Buffer, dpi = PHOTO_RENDER_DPI): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'poa-render-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', ['-png', '-r', String(dpi), '-f', '1', '-l', '1', '-singlefile', join(dir, 'in.pdf'), join(dir, 'page')]);
    return await readFile(join(dir, 'page.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A phone photo (JPEG) of a rendered page, its look drawn from `seed` (see the module comment). */
export async function phonePhotoOfPage(page: Buffer, seed: number): Promise<{ jpeg: Buffer; parameters: PhonePhotoParameters }> {
  const random = prng(seed);
  const between = (low: number, high: number) => low + (high - low) * random();
  const dir = await mkdtemp(join(tmpdir(), 'poa-photo-'));
  try {
    await writeFile(join(dir, 'page.png'), page);
    const { stdout } = await run('identify', ['-format', '%w %h', join(dir, 'page.png')]);
    const [w, h] = stdout.trim().split(' ').map(Number);
    // The frame: the page fills 70–88 % of it, as a user framing a bill does.
    const fill = between(0.7, 0.88);
    const frameW = Math.round(w / fill);
    const frameH = Math.round((h / fill) * between(0.97, 1.05));
    const degrees = between(-12, 12);
    const tilt = between(0.02, 0.09);
    const cx = frameW / 2 + between(-0.04, 0.04) * frameW;
    const cy = frameH / 2 + between(-0.04, 0.04) * frameH;
    const theta = (degrees * Math.PI) / 180;
    // Corners turned about the centre, each pushed by the perspective (the top narrower or wider, one side nearer).
    const topSqueeze = between(-1, 1) * tilt * w;
    const sideSqueeze = between(-1, 1) * tilt * h * 0.6;
    const corners: [number, number, number, number][] = [
      [0, 0, -w / 2 + topSqueeze, -h / 2 + sideSqueeze],
      [w, 0, w / 2 - topSqueeze, -h / 2 - sideSqueeze],
      [w, h, w / 2 + between(-0.3, 0.3) * tilt * w, h / 2 + sideSqueeze * 0.3],
      [0, h, -w / 2 + between(-0.3, 0.3) * tilt * w, h / 2 - sideSqueeze * 0.3],
    ];
    const placed = corners.map(([, , dx, dy]) => ({
      x: cx + dx * Math.cos(theta) - dy * Math.sin(theta),
      y: cy + dx * Math.sin(theta) + dy * Math.cos(theta),
    }));
    const mapping = corners.map(([sx, sy], k) => `${sx},${sy} ${placed[k].x.toFixed(1)},${placed[k].y.toFixed(1)}`).join('  ');
    const desk = ['#6b5a48', '#3d3f44', '#8c7b69', '#2f4a5c', '#a39e94'][Math.floor(random() * 5)];
    const dimmest = between(0.45, 0.8);
    const lightAngle = random() * 2 * Math.PI;
    const lx = Math.cos(lightAngle);
    const ly = Math.sin(lightAngle);
    const from = `${Math.round(frameW / 2 - (lx * frameW) / 2)},${Math.round(frameH / 2 - (ly * frameH) / 2)}`;
    const to = `${Math.round(frameW / 2 + (lx * frameW) / 2)},${Math.round(frameH / 2 + (ly * frameH) / 2)}`;
    const grey = Math.round(255 * dimmest);
    const shadow = random() < 0.6;
    // The shadow: an ellipse over one edge region, 35–55 % dark, its edge soft.
    const sx = Math.round(between(0, 1) * frameW);
    const sy = Math.round(between(0, 1) * frameH);
    const srx = Math.round(between(0.25, 0.5) * frameW);
    const sry = Math.round(between(0.15, 0.35) * frameH);
    const shadowGrey = Math.round(255 * between(0.5, 0.7));
    const blur = between(0.4, 1.3);
    const noise = between(0.3, 0.9);
    const quality = Math.round(between(72, 92));
    const args = [
      // The desk: a flat colour with a grain.
      // Drawn at a quarter of the size and scaled up: the grain is as soft as a blur would make it, at a fraction of the time.
      '-size',
      `${Math.ceil(frameW / 4)}x${Math.ceil(frameH / 4)}`,
      `xc:${desk}`,
      '-seed',
      String(seed),
      '-attenuate',
      '0.6',
      '+noise',
      'Gaussian',
      '-resize',
      `${frameW}x${frameH}!`,
      // The page, seen at an angle, laid on the desk.
      '(',
      join(dir, 'page.png'),
      '-alpha',
      'set',
      '-virtual-pixel',
      'transparent',
      '-define',
      `distort:viewport=${frameW}x${frameH}+0+0`,
      '-distort',
      'Perspective',
      mapping,
      ')',
      '-compose',
      'over',
      '-composite',
      // The light: brighter on one side, dimmer on the other.
      '(',
      '-size',
      `${frameW}x${frameH}`,
      'xc:',
      '-sparse-color',
      'Barycentric',
      `${from} white ${to} rgb(${grey},${grey},${grey})`,
      ')',
      '-compose',
      'multiply',
      '-composite',
      ...(shadow
        ? [
            // Drawn at a quarter of the size too: its edge is soft anyway.
            '(',
            '-size',
            `${Math.ceil(frameW / 4)}x${Math.ceil(frameH / 4)}`,
            'xc:white',
            '-fill',
            `rgb(${shadowGrey},${shadowGrey},${shadowGrey})`,
            '-draw',
            `ellipse ${Math.round(sx / 4)},${Math.round(sy / 4)} ${Math.round(srx / 4)},${Math.round(sry / 4)} 0,360`,
            '-blur',
            `0x${Math.max(1, Math.round(frameW / 240))}`,
            '-resize',
            `${frameW}x${frameH}!`,
            ')',
            '-compose',
            'multiply',
            '-composite',
          ]
        : []),
      '-blur',
      `0x${blur.toFixed(2)}`,
      '-attenuate',
      noise.toFixed(2),
      '+noise',
      'Gaussian',
      '-quality',
      String(quality),
      join(dir, 'photo.jpg'),
    ];
    // One thread: on a shared machine ImageMagick's OpenMP threads mostly wait for each other.
    await run('convert', args, { maxBuffer: 1 << 26, env: { ...process.env, MAGICK_THREAD_LIMIT: '1' } });
    return {
      jpeg: await readFile(join(dir, 'photo.jpg')),
      parameters: {
        degrees: Math.round(degrees * 10) / 10,
        tilt: Math.round(tilt * 100) / 100,
        dimmest,
        shadow,
        blur,
        quality,
        corners: placed,
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
