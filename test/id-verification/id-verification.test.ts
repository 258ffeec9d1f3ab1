import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckRunSchema } from '../../entities/check-run.entity.js';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { IdVerificationResultJson } from '../../src/rest/routes/id-verification.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { buildChip, nfcInput } from './support/chip.js';
import { mrzLines, renderDocument, toDataUri, yymmdd, type SyntheticIdentity, samplePassport } from './support/synthetic-document.js';

const PATH = '/v1/id-verification';

const VERIFY_ID_DOCUMENT = /* GraphQL */ `
  mutation ($input: VerifyIdDocumentInput!) {
    verifyIdDocument(input: $input) {
      verificationId
      status
      resultCode
      checks {
        documentAuthentic
        mrzMatch
        expiryCheck
        nfcSignature
      }
      issuingCountry
      documentType
      extracted {
        lastName
        expiryDate
        mrzFormat
      }
      metadata
    }
  }
`;

const PASSPORT: SyntheticIdentity = samplePassport();

const ID_CARD: SyntheticIdentity = {
  format: 'TD1',
  issuingState: 'D',
  lastName: 'MUSTERMANN',
  firstName: 'ERIKA',
  documentNumber: 'L01X00T47',
  birthDate: '640812',
  expiryDate: yymmdd(4),
};

describe('POST /v1/id-verification', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  const images = {} as Record<'passport' | 'expired' | 'cardFront' | 'cardBack' | 'tiny' | 'blurry', string>;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    // Phone-like damage: slight blur, rotation and JPEG compression.
    images.passport = toDataUri(await renderDocument(PASSPORT, { blurSigma: 1, rotateDegrees: 1.5, jpegQuality: 60 }));
    images.expired = toDataUri(await renderDocument({ ...PASSPORT, expiryDate: yymmdd(-1) }, { jpegQuality: 70 }));
    images.cardBack = toDataUri(await renderDocument(ID_CARD, { jpegQuality: 60 }));
    images.cardFront = images.cardBack;
    images.tiny = toDataUri(await renderDocument(PASSPORT, { widthPx: 200 }));
    images.blurry = toDataUri(await renderDocument(PASSPORT, { blurSigma: 5, jpegQuality: 80 }));
  });
  afterAll(async () => {
    await testApp.close();
    await closeMrzReader();
  });

  const verify = (body: unknown, key: string | null = tenant.liveKey) => testApp.rest('POST', PATH, { key, body });

  describe('given a genuine passport photo and a live key', () => {
    it('when verified, then it passes with the spec shape, echoes metadata and stores no image', async () => {
      const response = await verify({
        country: 'FR',
        id_type: 'PASSPORT',
        image_front: images.passport,
        metadata: { user_ref: 'u-42', attempt: 1 },
      });

      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(
        [
          'checks',
          'document_type',
          'extracted',
          'issuing_country',
          'metadata',
          'result_code',
          'status',
          'verification_id',
          'warnings',
        ].sort(),
      );
      expect(IdVerificationResultJson.strict().parse(response.body)).toBeTruthy();
      expect(response.body).toMatchObject({
        status: 'passed',
        result_code: 'clear',
        checks: { document_authentic: 'passed', mrz_match: 'passed', expiry_check: 'passed', nfc_signature: 'skipped' },
        issuing_country: 'FR',
        document_type: 'PASSPORT',
        extracted: {
          first_name: 'CLAIRE ANNE',
          last_name: 'MARTIN',
          document_number: '18FR04512',
          date_of_birth: '1985-04-12',
          nationality: 'FR',
          nationality_code: 'FRA',
          issuing_state: 'FRA',
          sex: 'F',
          document_code: 'P',
          mrz_format: 'TD3',
        },
        warnings: [],
        metadata: { user_ref: 'u-42', attempt: 1 },
      });
      const row = await testApp.app.orm.em.fork().findOneOrFail(CheckRunSchema, { id: response.body.verification_id });
      expect(row.kind).toBe('id_verification');
      expect(row.status).toBe('passed');
      expect(row.metadata).toEqual({ user_ref: 'u-42', attempt: 1 });
      expect(JSON.stringify(row.result)).not.toContain('base64');
    });

    it('when the request names another country, then it fails with country_mismatch', async () => {
      const response = await verify({ country: 'DE', id_type: 'PASSPORT', image_front: images.passport });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'failed',
        result_code: 'country_mismatch',
        issuing_country: 'DE',
        checks: { document_authentic: 'failed', mrz_match: 'passed' },
      });
      expect(response.body.warnings).toContainEqual(expect.objectContaining({ code: 'country_mismatch', field: 'country' }));
      expect(response.body).not.toHaveProperty('metadata');
    });
  });

  describe('given an expired passport', () => {
    it('when verified, then it fails with document_expired', async () => {
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.expired });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'failed',
        result_code: 'document_expired',
        checks: { expiry_check: 'failed', mrz_match: 'passed' },
      });
    });
  });

  describe('given a two-sided national ID card', () => {
    it('when both sides are sent, then the MRZ on the back is read and it passes', async () => {
      const response = await verify({ country: 'DE', id_type: 'NATIONAL_ID', image_front: images.cardFront, image_back: images.cardBack });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'passed', result_code: 'clear', issuing_country: 'DE', document_type: 'NATIONAL_ID' });
    });

    it('when the card is sent as a PASSPORT, then it fails with document_type_mismatch', async () => {
      const response = await verify({ country: 'DE', id_type: 'PASSPORT', image_front: images.cardBack });

      expect(response.body).toMatchObject({
        status: 'failed',
        result_code: 'document_type_mismatch',
        checks: { document_authentic: 'failed' },
      });
    });
  });

  describe('given unreadable photos', () => {
    it('when the photo is tiny, then it fails with image_too_small', async () => {
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.tiny });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'failed',
        result_code: 'image_too_small',
        checks: { document_authentic: 'failed', mrz_match: 'skipped' },
      });
    });

    it('when the photo is blurred, then it fails with image_blurry', async () => {
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.blurry });

      expect(response.body).toMatchObject({ status: 'failed', result_code: 'image_blurry' });
      expect(response.body.warnings).toContainEqual(expect.objectContaining({ code: 'image_blurry', field: 'image_front' }));
    });
  });

  describe('given a request the spec refuses (Errors 7)', () => {
    const cases: [string, () => Record<string, unknown>, string, string][] = [
      ['no country', () => ({ id_type: 'PASSPORT', image_front: images.passport }), 'country', 'required'],
      ['no id_type', () => ({ country: 'FR', image_front: images.passport }), 'id_type', 'required'],
      ['no image_front', () => ({ country: 'FR', id_type: 'PASSPORT' }), 'image_front', 'required'],
      [
        'a NATIONAL_ID without image_back',
        () => ({ country: 'DE', id_type: 'NATIONAL_ID', image_front: images.cardFront }),
        'image_back',
        'required',
      ],
      [
        'a DRIVERS_LICENSE with image_back null',
        () => ({ country: 'DE', id_type: 'DRIVERS_LICENSE', image_front: images.cardFront, image_back: null }),
        'image_back',
        'required',
      ],
      [
        'a RESIDENCE_PERMIT without image_back',
        () => ({ country: 'DE', id_type: 'RESIDENCE_PERMIT', image_front: images.cardFront }),
        'image_back',
        'required',
      ],
    ];
    it.each(cases)('when it has %s, then 400 naming the field', async (_label, body, field, code) => {
      const response = await verify(body());

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    });

    it('when image_back is missing with a sandbox key too, then 400', async () => {
      const response = await verify({ country: 'DE', id_type: 'NATIONAL_ID', image_front: 'sandbox:expired' }, tenant.sandboxKey);

      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'image_back', code: 'required' }));
    });
  });

  describe('given a malformed image', () => {
    const pngBytes = () => Buffer.from(images.tiny.split(',')[1], 'base64');
    const cases: [string, () => string, string][] = [
      ['not a data URI', () => 'hello', 'invalid'],
      ['a GIF', () => `data:image/gif;base64,${Buffer.from('GIF89a').toString('base64')}`, 'unsupported_type'],
      ['PNG bytes declared as JPEG', () => `data:image/jpeg;base64,${pngBytes().toString('base64')}`, 'content_mismatch'],
      ['a truncated PNG', () => `data:image/png;base64,${pngBytes().subarray(0, 64).toString('base64')}`, 'invalid_image'],
      ['an image over 10 MB', () => `data:image/jpeg;base64,${Buffer.alloc(10.5 * 1024 * 1024, 0xff).toString('base64')}`, 'too_large'],
    ];
    it.each(cases)('when image_front is %s, then 400 naming image_front', async (_label, image, code) => {
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: image() });

      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'image_front', code }));
    });

    it('when an unknown field or a non-boolean enable_nfc is sent, then 400', async () => {
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.tiny, enable_nfc: 'yes', colour: 'red' });

      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'enable_nfc' }),
          expect.objectContaining({ field: 'colour', code: 'unknown_field' }),
        ]),
      );
    });
  });

  describe('given a passport photo with chip data (NFC) and no CSCA configured', () => {
    it('when the chip verifies, then it passes with nfc_signature warning and csca_not_configured', async () => {
      const chip = await buildChip(mrzLines(PASSPORT));
      const image = toDataUri(await renderDocument(PASSPORT));

      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: image, nfc: nfcInput(chip) });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'passed', result_code: 'clear', checks: { nfc_signature: 'warning' } });
      expect(response.body.warnings).toEqual([expect.objectContaining({ code: 'csca_not_configured', field: 'nfc' })]);
    });

    it('when the SOD is not an EF.SOD, then 400 on nfc.sod', async () => {
      const chip = await buildChip(mrzLines(PASSPORT));
      const nfc = { ...nfcInput(chip), sod: Buffer.from('not a security object').toString('base64') };

      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.passport, nfc });

      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'nfc.sod', code: 'invalid' })]);
    });
  });

  describe('given no API key', () => {
    it('when verifying, then 401 and nothing is stored', async () => {
      const before = await testApp.app.orm.em.fork().count(CheckRunSchema, { kind: 'id_verification' });
      const response = await verify({ country: 'FR', id_type: 'PASSPORT', image_front: images.passport }, null);

      expect(response.status).toBe(401);
      expect(await testApp.app.orm.em.fork().count(CheckRunSchema, { kind: 'id_verification' })).toBe(before);
    });
  });

  describe('given a sandbox key over GraphQL', () => {
    it('when the sandbox:expired token is sent, then the sandbox answers document_expired', async () => {
      const response = await testApp.graphql(
        VERIFY_ID_DOCUMENT,
        { input: { country: 'FR', idType: 'PASSPORT', imageFront: 'sandbox:expired', enableNfc: true, metadata: { k: 'v' } } },
        tenant.sandboxKey,
      );

      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.verifyIdDocument).toMatchObject({
        status: 'failed',
        resultCode: 'document_expired',
        checks: { expiryCheck: 'failed', nfcSignature: 'passed' },
        issuingCountry: 'FR',
        documentType: 'PASSPORT',
        // The sandbox reads no MRZ: a placeholder name, no layout.
        extracted: { lastName: 'User', mrzFormat: null },
        metadata: { k: 'v' },
      });
      expect(response.body.data.verifyIdDocument.extracted.expiryDate < new Date().toISOString().slice(0, 10)).toBe(true);
    });
  });
});
