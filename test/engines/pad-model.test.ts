/**
 * The re-capture model (src/engines/face/pad-model.ts) on real photos of people
 * (../shared/realdata/face, from ageitgey/face_recognition, MIT licence): every genuine photo, as
 * sent and as a phone upload, scores above the weak level, and the same photos shown on a screen
 * and re-captured (bench/attacks/generate.ts, variant A) score under the strong one. The crop the
 * models see is checked on numbers. Skipped on machines without the shared data set.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { makeScreen } from '../../bench/attacks/generate.js';
import { analyzeFace, MAX_ANALYSIS_SIDE_PX } from '../../src/engines/face/analyze.js';
import { closeFaceEngine } from '../../src/engines/face/human.js';
import { RECAPTURE_MODEL_FAIL_BELOW, RECAPTURE_MODEL_WARN_BELOW } from '../../src/engines/face/pad.js';
import { closeRecaptureModel, modelCrop, recaptureModelScore } from '../../src/engines/face/pad-model.js';
import { decodeUpright, type Box } from '../../src/engines/recapture-evidence.js';

const FACE_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/face');

afterAll(async () => {
  await closeRecaptureModel();
  await closeFaceEngine();
});

/** The model's score of the largest face in `bytes`, measured as the face engine does. */
async function scoreOf(bytes: Buffer): Promise<number> {
  const analysis = await analyzeFace(bytes, { pick: 'largest' });
  return recaptureModelScore(await decodeUpright(bytes, MAX_ANALYSIS_SIDE_PX), analysis.box as Box);
}

describe('the crop the re-capture models see', () => {
  it('given a face in the middle of a large image, when cropped at 2.7, then the box grows 2.7 times around its centre', () => {
    expect(modelCrop(1000, 1000, [450, 450, 100, 100], 2.7)).toEqual([365, 365, 635, 635]);
  });

  it('given a face near the top-left corner, when cropped, then the crop is shifted back inside the image at its full size', () => {
    const [left, top, right, bottom] = modelCrop(1000, 800, [10, 20, 100, 100], 4);
    expect([left, top]).toEqual([0, 0]);
    expect([right - left, bottom - top]).toEqual([400, 400]);
  });

  it('given a face too large to grow that far, when cropped, then the crop is the largest the image holds and stays inside it', () => {
    const [left, top, right, bottom] = modelCrop(640, 480, [200, 100, 240, 300], 4);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(right).toBeLessThanOrEqual(639);
    expect(bottom).toBeLessThanOrEqual(479);
    expect(bottom - top).toBe(479);
  });
});

describe.skipIf(!existsSync(FACE_DIR))('the re-capture model on real photos', () => {
  const files = existsSync(FACE_DIR)
    ? readdirSync(FACE_DIR)
        .filter((file) => /\.(jpe?g|png)$/i.test(file))
        .sort()
    : [];

  it('given every genuine photo of the development set, as sent and as a phone upload, when scored, then none reaches the weak level', async () => {
    const low: string[] = [];
    for (const file of files) {
      const photo = readFileSync(path.join(FACE_DIR, file));
      const phone = await sharp(photo).rotate().resize({ width: 720, withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer();
      for (const [form, bytes] of [
        ['sent', photo],
        ['phone', phone],
      ] as const) {
        const score = await scoreOf(bytes);
        if (score < RECAPTURE_MODEL_WARN_BELOW) low.push(`${file} (${form}): ${score.toFixed(3)}`);
      }
    }
    expect(files.length).toBe(13);
    expect(low).toEqual([]);
  }, 120_000);

  it('given three of those photos shown on a phone screen and re-captured, when scored, then each is under the strong level', async () => {
    for (const [index, file] of files.slice(0, 3).entries()) {
      const photo = readFileSync(path.join(FACE_DIR, file));
      const scene = readFileSync(path.join(FACE_DIR, files[(index + 5) % files.length]!));
      const screen = await makeScreen(photo, 'A', scene, index * 7 + 2);
      expect(await scoreOf(screen), file).toBeLessThan(RECAPTURE_MODEL_FAIL_BELOW);
    }
  }, 60_000);
});
