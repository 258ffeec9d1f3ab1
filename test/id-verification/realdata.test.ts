import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyDocument } from '../../src/engines/document/engine.js';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { TWO_SIDED_ID_TYPES } from '../../src/engines/inputs.js';

// Real specimen photos nobody on this project made (../shared/realdata/id, see its README), read
// by the live engine: a small page, a tilted one, ICAO's specimen state, a visa. Only present on
// machines that have the shared data set; elsewhere the file is skipped.

const DATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/id');
const NOW = new Date('2026-11-23T12:00:00Z');
/** One photo can take several OCR passes on a loaded 2-core machine. */
const OCR_TIMEOUT_MS = 300_000;

/** Verifies one file of the data set as `POST /v1/id-verification` would (as both sides for two-sided types, as a client with one photo sends it). */
async function verifyFile(file: string, country: string, idType: string) {
  const bytes = await readFile(path.join(DATA_DIR, file));
  const uri = `data:image/${file.endsWith('.png') ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`;
  const back = TWO_SIDED_ID_TYPES.includes(idType) ? { image_back: uri } : {};
  return verifyDocument({ country, id_type: idType, image_front: uri, ...back }, null, { now: () => NOW });
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

        expect(result.details.result_code).toBe('document_expired');
        expect(result.details.extracted).toMatchObject({
          document_number: 'M00000426',
          last_name: 'LIN',
          date_of_birth: '1968-03-02',
          expiry_date: '1998-01-04',
          nationality: 'TW',
          nationality_code: 'TWN',
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

        expect(result.details.checks.mrz_match).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          document_number: 'PA0940409',
          last_name: 'CITIZEN',
          first_name: 'JANE',
          date_of_birth: '1984-06-07',
          expiry_date: '2019-03-21',
          issuing_state: 'AUS',
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

        expect(result.details.result_code).toBe('document_expired');
        expect(result.details.checks).toMatchObject({ mrz_match: 'passed', document_authentic: 'warning' });
        expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'specimen_state_code' }));
        expect(result.details.extracted).toMatchObject({
          document_number: 'L898902C3',
          last_name: 'ERIKSSON',
          first_name: 'ANNA MARIA',
          date_of_birth: '1974-08-12',
          expiry_date: '2012-04-15',
          issuing_state: 'UTO',
          mrz_format: 'TD3',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });

  describe("given ICAO 9303's MRV-B visa specimen", () => {
    it(
      'when verified as a VISA, then it is read as MRV-B with its fields',
      async () => {
        const result = await verifyFile('mrz-fastmrz/mrvb.jpg', 'SE', 'VISA');

        expect(result.details.checks.mrz_match).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          mrz_format: 'MRVB',
          document_code: 'V',
          document_number: 'L8988901C',
          nationality: null,
          nationality_code: 'XXX',
          date_of_birth: '1940-09-07',
          expiry_date: '1996-12-10',
          sex: 'F',
        });
      },
      OCR_TIMEOUT_MS,
    );
  });
  describe('given a small photo (455×330 px) of a Dutch specimen passport whose name fillers PaddleOCR reads as S and K', () => {
    it(
      'when verified, then the reads of the MRZ zone are combined and the names come out right',
      async () => {
        const result = await verifyFile('mrz-passporteye/testdata__98_pass-nld.jpg', 'NL', 'PASSPORT');

        expect(result.details.checks.mrz_match).toBe('passed');
        expect(result.details.extracted).toMatchObject({
          last_name: 'MEULENDIJK',
          first_name: 'LOES ALBERTINE',
          document_number: 'XA0000014',
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

        expect(result.details.checks.mrz_match).toBe('passed');
        expect(result.details.extracted).toMatchObject({ document_number: 'T22000129', first_name: 'ERIKA', date_of_birth: '1964-08-12' });
        if (result.details.extracted.last_name !== 'MUSTERMANN')
          expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'mrz_name_unconfirmed' }));
      },
      OCR_TIMEOUT_MS,
    );
  });
});
