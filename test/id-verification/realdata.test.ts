import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyDocument } from '../../src/engines/document/engine.js';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { TWO_SIDED_ID_TYPES } from '../../src/engines/inputs.js';
import { mrzLines } from './support/synthetic-document.js';
import { storedFlipProblems } from '../support/stored-keys.js';

// Real specimen photos nobody on this project made (../shared/realdata/id, see its README), read
// by the live engine: a small page, a tilted one, ICAO's specimen state, a visa. Only present on
// machines that have the shared data set; elsewhere the file is skipped.

const DATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/id');
const NOW = new Date('2026-11-23T12:00:00Z');
/** One photo can take several OCR passes on a loaded 2-core machine. */
const OCR_TIMEOUT_MS = 300_000;

/** Verifies one file of the data set as `POST /v1/id-verification` would (as both sides for two-sided types, as a client with one photo sends it), and checks its details flip to the stored shape losslessly. */
async function verifyFile(file: string, country: string, idType: string, bytes?: Buffer) {
  bytes ??= await readFile(path.join(DATA_DIR, file));
  const uri = `data:image/${file.endsWith('.png') ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`;
  const back = TWO_SIDED_ID_TYPES.includes(idType) ? { imageBack: uri } : {};
  const result = await verifyDocument({ country, idType, imageFront: uri, ...back }, null, { now: () => NOW });
  // What a session would keep of this real output says the same, in snake_case (the one case flip).
  expect(storedFlipProblems(result.details)).toEqual([]);
  return result;
}

describe.skipIf(!existsSync(DATA_DIR))('document engine on real specimen photos', () => {
  afterAll(async () => {
    await closeMrzReader();
  });

  describe('given a small photo (506×363 px) of a Taiwanese passport that expired in 1998', () => {
    it(
      'when verified, then the MRZ is read and the expiry is 1998, not 2098',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__43_pass-twn.jpg', 'TW', 'PASSPORT');

        expect(result.details.resultCode).toBe('document_expired');
        expect(result.details.extracted).toMatchObject({
          documentNumber: 'M00000426',
          lastName: 'LIN',
          dateOfBirth: '1968-03-02',
          expiryDate: '1998-01-04',
          nationality: 'TW',
          nationalityCode: 'TWN',
          sex: 'M',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a phone screenshot of an Australian passport tilted about 20 degrees', () => {
    it(
      'when verified, then the page is straightened and every field read',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__62_pass-aus.png', 'AU', 'PASSPORT');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          documentNumber: 'PA0940409',
          lastName: 'CITIZEN',
          firstName: 'JANE',
          dateOfBirth: '1984-06-07',
          expiryDate: '2019-03-21',
          issuingState: 'AUS',
          sex: 'F',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe("given ICAO 9303's TD3 specimen passport (issuing state UTO)", () => {
    it(
      'when verified, then the specimen code is a warning, not mrz_mismatch',
      async () => {
        const result = await verifyFile('mrz-fastmrz/td3.jpg', 'SE', 'PASSPORT');

        expect(result.details.resultCode).toBe('document_expired');
        expect(result.details.checks).toMatchObject({ mrzMatch: 'passed', documentAuthentic: 'warning' });
        expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'specimen_state_code' }));
        expect(result.details.extracted).toMatchObject({
          documentNumber: 'L898902C3',
          lastName: 'ERIKSSON',
          firstName: 'ANNA MARIA',
          dateOfBirth: '1974-08-12',
          expiryDate: '2012-04-15',
          issuingState: 'UTO',
          mrzFormat: 'TD3',
        });
        // The printed page agrees: name, number and both dates were found by their captions and compared.
        expect(result.details.viz?.mismatches).toEqual([]);
        expect(result.details.viz?.compared).toEqual(
          expect.arrayContaining(['last_name', 'document_number', 'date_of_birth', 'expiry_date']),
        );
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe("given ICAO 9303's TD3 specimen whose MRZ was re-printed under another name and a later expiry", () => {
    it(
      'when verified, then the printed page disagrees with the MRZ: viz_mrz_mismatch for review, naming the fields',
      async () => {
        // A forger's move: the page's photo and printed name stay, the MRZ (check digits valid) is another person's.
        const original = await readFile(path.join(DATA_DIR, 'mrz-fastmrz/td3.jpg'));
        const lines = mrzLines({
          format: 'TD3',
          issuingState: 'UTO',
          lastName: 'SMITH',
          firstName: 'JOHN',
          documentNumber: 'L898902C3',
          birthDate: '740812',
          expiryDate: '300415',
        });
        const glyphs = lines
          .map((line, row) =>
            [...line]
              .map((char, col) => `<text x="${50 + col * 12.6}" y="${357 + row * 30}">${char === '<' ? '&lt;' : char}</text>`)
              .join(''),
          )
          .join('');
        const overlay = `<svg xmlns="http://www.w3.org/2000/svg" width="663" height="437"><rect x="30" y="332" width="600" height="68" fill="#fff"/><g font-family="DejaVu Sans Mono" font-size="18" fill="#111">${glyphs}</g></svg>`;
        const forged = await sharp(original)
          .composite([{ input: Buffer.from(overlay) }])
          .jpeg({ quality: 90 })
          .toBuffer();

        const result = await verifyFile('td3-reprinted.jpg', 'SE', 'PASSPORT', forged);

        expect(result.status).toBe('review');
        expect(result.details.resultCode).toBe('viz_mrz_mismatch');
        expect(result.details.checks.mrzMatch).toBe('review');
        expect(result.details.extracted.expiryDate).toBe('2030-04-15');
        expect(result.details.viz?.mismatches.map((mismatch) => mismatch.field)).toEqual(
          expect.arrayContaining(['last_name', 'expiry_date']),
        );
        expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'viz_mrz_mismatch', field: 'last_name' }));
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe("given ICAO 9303's MRV-B visa specimen", () => {
    it(
      'when verified as a VISA, then it is read as MRV-B with its fields',
      async () => {
        const result = await verifyFile('mrz-fastmrz/mrvb.jpg', 'SE', 'VISA');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          mrzFormat: 'MRVB',
          documentCode: 'V',
          documentNumber: 'L8988901C',
          nationality: null,
          nationalityCode: 'XXX',
          dateOfBirth: '1940-09-07',
          expiryDate: '1996-12-10',
          sex: 'F',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe("given ICAO 9303's visa specimens, which print a date of birth and a validity their MRZ does not carry", () => {
    it.each(['mrz-fastmrz/mrva.jpg', 'mrz-fastmrz/mrvb.jpg'])(
      'when %s is verified as a VISA, then the names of its visual zone are compared with the MRZ and agree; its dates are not compared',
      async (file) => {
        const result = await verifyFile(file, 'SE', 'VISA');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.viz).toMatchObject({ zone: 'located', compared: ['last_name', 'first_name'], mismatches: [] });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a small photo (455×330 px) of a Dutch specimen passport whose name fillers PaddleOCR reads as S and K', () => {
    it(
      'when verified, then the reads of the MRZ zone are combined and the names come out right',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__98_pass-nld.jpg', 'NL', 'PASSPORT');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          lastName: 'MEULENDIJK',
          firstName: 'LOES ALBERTINE',
          documentNumber: 'XA0000014',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a tiny photo (250×159 px) of a German ID card whose first MRZ line loses most of its fillers in OCR', () => {
    it(
      'when verified, then the MRZ is found, and a family name the page cannot confirm is flagged, not accepted silently',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__53_id-d.jpg', 'DE', 'NATIONAL_ID');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({ documentNumber: 'T22000129', firstName: 'ERIKA', dateOfBirth: '1964-08-12' });
        if (result.details.extracted.lastName !== 'MUSTERMANN')
          expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'mrz_name_unconfirmed' }));
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a tiny photo (282×179 px) of a Swiss ID card whose given name QUO blurs when the photo is only upscaled', () => {
    it(
      'when verified, then the enhanced zone read gives every field, the given name with its first letter',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__100_id-che.jpg', 'CH', 'NATIONAL_ID');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          mrzFormat: 'TD1',
          documentNumber: 'S0002068',
          lastName: 'VADIS',
          firstName: 'QUO',
          dateOfBirth: '1981-02-28',
          expiryDate: '2013-01-01',
          nationalityCode: 'CHE',
          sex: 'F',
        });
        // The back prints the dates of issue and expiry side by side (`010103 010113`): the expiry is compared.
        expect(result.details.viz).toMatchObject({ zone: 'located', fields: { expiry_date: '130101' }, mismatches: [] });
      },
      OCR_TIMEOUT_MS,
    );
  });

  /** What the US permanent resident card's MRZ says, however the photo lies. */
  const US_CARD_FIELDS = {
    mrzFormat: 'TD1',
    documentNumber: '000000003',
    dateOfBirth: '1958-08-17',
    expiryDate: '2010-04-02',
    nationalityCode: 'COD',
    lastName: 'SPECIMEN',
  };

  describe('given a US permanent resident card (TD1, three lines, optional data full of digits)', () => {
    it(
      'when verified as a residence permit, then every check digit holds and the fields are read',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__100_id-usa.jpg', 'US', 'RESIDENCE_PERMIT');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject(US_CARD_FIELDS);
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given the same US card photographed sideways (the photo turned a quarter clockwise, as a phone held upright takes a card lying across)', () => {
    it(
      'when verified, then the page is turned upright before its MRZ is read, and the fields are those of the upright photo',
      async () => {
        // Read as it lies, the sideways lines give an MRZ of the wrong layout with failing checks
        // (mrz_mismatch before the page was turned first).
        const file = 'mrz-passporteye/testdata__100_id-usa.jpg';
        const sideways = await sharp(await readFile(path.join(DATA_DIR, file)))
          .rotate(90)
          .jpeg({ quality: 92 })
          .toBuffer();
        const result = await verifyFile(file, 'US', 'RESIDENCE_PERMIT', sideways);

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject(US_CARD_FIELDS);
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a Latvian refugee travel document photographed sideways', () => {
    it(
      'when verified, then the page is turned and read',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__0_pass-lva.jpg', 'LV', 'PASSPORT');

        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          documentNumber: 'LT0000000',
          nationalityCode: 'XXC',
          dateOfBirth: '1986-05-10',
        });
        // Its MRZ was read in page-sized boxes: the visual zone is placed on the page read again turned upright.
        expect(result.details.viz).toMatchObject({
          zone: 'located',
          fields: { document_number: 'LT0000000', date_of_birth: '860510' },
          mismatches: [],
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a Finnish specimen passport whose small captions the OCR cannot read', () => {
    it(
      'when verified, then its visual zone is placed above the MRZ and its number and date of birth, taken by position, agree with the MRZ',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__100_pass-fin.png', 'FI', 'PASSPORT');

        expect(result.details.resultCode).toBe('document_expired');
        expect(result.details.checks.mrzMatch).toBe('passed');
        expect(result.details.viz).toMatchObject({
          zone: 'located',
          fields: { document_number: 'XP8271602', date_of_birth: '711221' },
          mismatches: [],
        });
        expect(result.details.viz?.compared).toEqual(expect.arrayContaining(['document_number', 'date_of_birth']));
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe('given a specimen whose printed MRZ breaks its own check digits (the Spanish card)', () => {
    it(
      'when verified, then it stays mrz_mismatch: no look-alike reading is invented to make it pass',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__0_id-esp.png', 'ES', 'NATIONAL_ID');

        expect(result.details.resultCode).toBe('mrz_mismatch');
      },
      OCR_TIMEOUT_MS,
    );
  });
});
