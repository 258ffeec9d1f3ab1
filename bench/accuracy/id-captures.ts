/**
 * Phone-like captures of the ID development set, made at run time with ImageMagick (`convert`,
 * as bench/attacks/generate-im.ts): `npm run bench:accuracy:id -- --capture <kind>` reads every
 * specimen as a person with a phone might send it instead of as published. Exists because the
 * held-back misses were of these kinds (small, rotated, tilted, glare: issue 23) and the published
 * specimens are mostly flat scans. Nothing generated is kept.
 *
 * - `sideways`: turned a quarter clockwise (a phone held upright over a card lying across).
 * - `tilt`: on a table (a brown border of a sixth of each side), photographed from below-left:
 *   the far edge shorter by a twelfth of the width, sensor noise (seeded by the item's index),
 *   JPEG q82.
 * - `small`: scaled to 65 %, JPEG q80 (a document further from the camera).
 * - `glare`: a soft light reflection (an ellipse a fifth of the short side, blurred), placed by the
 *   item's index so that it covers different parts of different pages, JPEG q85.
 */
import { convert } from '../attacks/generate-im.js';

/** The capture kinds `captureAs` makes. */
export const CAPTURE_KINDS = ['sideways', 'tilt', 'small', 'glare'] as const;
/** One capture kind. */
export type CaptureKind = (typeof CAPTURE_KINDS)[number];

/** `bytes` (a specimen image) as captured the `kind` way; `index` (the item's place in the manifest) varies the glare's position. */
export async function captureAs(kind: CaptureKind, bytes: Buffer, index: number): Promise<Buffer> {
  const size = async () => {
    const out = await convert({ in: bytes }, (dir) => [`${dir}/in[0]`, '-format', '%w %h', `info:${dir}/size.txt`], 'size.txt');
    const [width, height] = out.toString('utf8').trim().split(' ').map(Number);
    return { width: width!, height: height! };
  };
  switch (kind) {
    case 'sideways':
      return convert({ in: bytes }, (dir) => [`${dir}/in[0]`, '-rotate', '90', `${dir}/out.jpg`], 'out.jpg');
    case 'small':
      return convert({ in: bytes }, (dir) => [`${dir}/in[0]`, '-resize', '65%', '-quality', '80', `${dir}/out.jpg`], 'out.jpg');
    case 'glare': {
      const { width, height } = await size();
      const cx = Math.round((width * (30 + ((index * 17) % 40))) / 100);
      const cy = Math.round((height * (25 + ((index * 23) % 50))) / 100);
      const r = Math.round(Math.min(width, height) / 5);
      return convert(
        { in: bytes },
        (dir) => [
          `${dir}/in[0]`,
          '-alpha',
          'off',
          '(',
          '-size',
          `${width}x${height}`,
          'xc:black',
          '-fill',
          'white',
          '-draw',
          `ellipse ${cx},${cy} ${r * 2},${r} 0,360`,
          '-blur',
          `0x${Math.round(r / 2)}`,
          ')',
          '-compose',
          'screen',
          '-composite',
          '-quality',
          '85',
          `${dir}/out.jpg`,
        ],
        'out.jpg',
      );
    }
    case 'tilt': {
      const { width: w, height: h } = await size();
      const [mw, mh, d] = [Math.round(w / 6), Math.round(h / 6), Math.round(w / 12)];
      const corners = [
        [mw, mh, mw + d, mh + Math.round(d / 2)],
        [mw + w, mh, mw + w - Math.round(d / 2), mh],
        [mw, mh + h, mw, mh + h],
        [mw + w, mh + h, mw + w, mh + h - Math.round(d / 3)],
      ];
      return convert(
        { in: bytes },
        (dir) => [
          `${dir}/in[0]`,
          '-alpha',
          'off',
          '-bordercolor',
          '#7a6a58',
          '-border',
          `${mw}x${mh}`,
          '-virtual-pixel',
          'background',
          '-background',
          '#7a6a58',
          '-distort',
          'Perspective',
          corners.map((corner) => `${corner[0]},${corner[1]} ${corner[2]},${corner[3]}`).join('  '),
          '-seed',
          String(1000 + index),
          '-attenuate',
          '0.4',
          '+noise',
          'Gaussian',
          '-quality',
          '82',
          `${dir}/out.jpg`,
        ],
        'out.jpg',
      );
    }
  }
}
