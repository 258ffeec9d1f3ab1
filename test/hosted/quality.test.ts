/**
 * The hosted flow's photo checks (src/web/hosted/quality-measure.ts, the module the page runs) on real
 * photos of ../shared/realdata: clean scans and photos that the checks used to flag (white paper
 * as "too bright" or "glare", small specimens as "too small", a dark background as "too dark") pass
 * clean, and bad photos made from real ones (blurred, over-exposed, a glare spot, too dark, too
 * small) still warn. The whole set is measured by `npm run bench:quality`.
 */
import { describe, expect, it } from 'vitest';
import { MIN_LONG_SIDE_PX as SERVER_MIN_LONG, MIN_SHORT_SIDE_PX as SERVER_MIN_SHORT } from '../../src/engines/document/image.js';
import { measureQuality, MIN_LONG_SIDE_PX, MIN_SHORT_SIDE_PX } from '../../src/web/hosted/quality-measure.js';
import { badPhotos, realPhotos } from '../support/quality-photos.js';

/** Clean photos each of which the old checks flagged (in brackets), from the bench's list. */
const CLEAN = [
  'id/mrz-fastmrz/td1.jpg', // [too_bright] an ICAO specimen scanned on white
  'id/mrz-passporteye/tests__passport-td3.png', // [too_bright]
  'id/mrz-passporteye/testdata__79_pass-can.jpg', // [glare] white callout boxes beside the page
  'id/mrz-passporteye/testdata__100_visa-polx.jpg', // [glare] white form fields
  'id/mrz-passporteye/testdata__0_pass-lva.jpg', // [glare] an open booklet on white
  'id/mrz-passporteye/testdata__53_id-d.jpg', // [too_small] 250×159, which the server reads
  'face/obama__examples_obama-1080p.jpg', // [too_dark] a lit face between black bars
  'face/alex_lacamoire__examples_alex-lacamoire.png', // [blurry] a soft video still
];

/** Clean photos the bad ones are made from: a photographed booklet, a card scan, two faces. */
const SOURCES = new Set([
  'id/mrz-passporteye/testdata__100_pass-hrv.jpg',
  'id/mrz-passporteye/testdata__79_pass-can.jpg',
  'face/obama__tests_test_images_obama2.jpg',
  'face/biden__examples_knn_examples_train_biden_biden2.jpg',
]);

describe('photo checks on real photos', () => {
  it('given clean real scans and photos the old checks flagged, when measured, then none warns', async () => {
    const photos = await realPhotos((name) => CLEAN.includes(name));
    expect(photos.map((photo) => photo.name).sort()).toEqual([...CLEAN].sort());
    const warned = photos
      .map((photo) => ({ name: photo.name, problems: measureQuality(photo.pixels, photo.width, photo.height, photo.subject).problems }))
      .filter(({ problems }) => problems.length > 0);
    expect(warned).toEqual([]);
  });

  it('given bad photos made from real ones, when measured, then each gets its warning', async () => {
    const bad = await badPhotos((name) => SOURCES.has(name));
    // 5 spoilers for the two documents, 4 (no glare) for the two faces.
    expect(bad).toHaveLength(18);
    const missed = bad
      .map((photo) => ({
        name: photo.name,
        expected: photo.expected,
        problems: measureQuality(photo.pixels, photo.width, photo.height, photo.subject).problems,
      }))
      .filter(({ expected, problems }) => !problems.includes(expected));
    expect(missed).toEqual([]);
  });

  it('given the server refuses documents under 150×250 px, then the page refuses exactly those', () => {
    expect([MIN_SHORT_SIDE_PX, MIN_LONG_SIDE_PX]).toEqual([SERVER_MIN_SHORT, SERVER_MIN_LONG]);
    const white = { data: new Uint8ClampedArray(4 * 10 * 10).fill(255), width: 10, height: 10 };
    expect(measureQuality(white, 249, 150, 'document').problems).toContain('too_small');
    expect(measureQuality(white, 250, 149, 'document').problems).toContain('too_small');
    expect(measureQuality(white, 250, 150, 'document').problems).not.toContain('too_small');
  });
});
