import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseProofOfAddress } from '../../src/engines/poa/engine.js';
import { closeOcrWorker, skewDegrees } from '../../src/engines/poa/ocr.js';
import { ELA_TEXTURED_MAX_SCORE, elaTamperScore } from '../../src/engines/poa/tamper.js';
import { billPng, dataUri, phonePhotoOf } from './fixtures.js';

// Phone photos of bills: OCR preprocessing (even lighting, contrast, deskew) and a tamper score
// that does not take a camera's texture for an edit. The data set has no photo of a bill, so the
// photos are made here from a rendered bill; the real camera JPEGs of ../shared/realdata (faces,
// ID specimens) check the tamper side where the folder is present.

const REALDATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata');
const NOW = new Date('2026-03-20T12:00:00Z');

afterAll(async () => {
  await closeOcrWorker();
});

describe('given a rendered bill turned by a known angle', () => {
  it.each([-7, 4])('when its skew is measured at %i°, then it is found within half a degree', async (degrees) => {
    const turned = await sharp(await billPng())
      .rotate(degrees, { background: '#ffffff' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });

    const skew = await skewDegrees(turned.data, turned.info.width, turned.info.height);

    expect(Math.abs(skew - degrees)).toBeLessThanOrEqual(0.5);
  });
});

describe('given a phone photo of a bill: turned 6°, dim, lit from one side, noisy, JPEG', () => {
  it('when analysed, then the addressee, address, issuer and issue date are read and it is not suspected of tampering', async () => {
    const photo = await phonePhotoOf(await billPng({ issued: '12 March 2026' }), 6);

    const analysis = await analyseProofOfAddress({ documentImage: dataUri('image/jpeg', photo), country: 'GB' }, { now: () => NOW });

    expect(analysis.details.textSource).toBe('image_ocr');
    expect(analysis.details.extracted).toMatchObject({ name: 'Jane Doe', issuedAt: '2026-03-12' });
    expect(analysis.details.extracted.address).toContain('42 Baker Street');
    expect(analysis.details.extracted.address).toContain('NW1 6XE');
    expect(analysis.details.extracted.issuer).toContain('Northwind Energy Ltd');
    expect(analysis.details.checks.tamperScore).toBeLessThan(0.5);
  });
});

describe('given phone photos of a clean bill turned -8° and 9°, lit unevenly (the darker side is noisy)', () => {
  it.each([-8, 9])(
    'when the %i° photo is scored, then ELA stays below review (it scored 0.69 and 0.42 with six-block windows)',
    async (degrees) => {
      const photo = await phonePhotoOf(await billPng({ issued: '12 March 2026' }), degrees);

      expect(await elaTamperScore(photo)).toBeLessThan(0.5);
    },
  );
});

describe.skipIf(!existsSync(REALDATA_DIR))('given genuine camera and scanner JPEGs of the real-data set', () => {
  it.each(['face/biden__tests_test_images_biden.jpg', 'face/obama__tests_test_images_obama3.jpg', 'id/mrz-fastmrz/td3.jpg'])(
    'when %s is scored, then ELA stays below review (it scored 0.97–1 before textured images were capped)',
    async (file) => {
      const score = await elaTamperScore(await readFile(path.join(REALDATA_DIR, file)));

      expect(score).toBeLessThanOrEqual(ELA_TEXTURED_MAX_SCORE);
    },
  );
});

if (!existsSync(REALDATA_DIR)) console.warn(`test/poa/photo.test.ts: real-data cases skipped, ${REALDATA_DIR} is absent.`);
