/**
 * Barcodes through the public API, on the real engines (zxing-wasm, PaddleOCR) and the real
 * database: a US licence read from its AAMVA PDF417 and compared with its printed front, a back
 * whose barcode disagrees with the front, a back whose barcode cannot be read (a retake in a
 * session), and ICAO visible digital seals verified with a configured signer certificate, not
 * verified without one, and failed when altered.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMrzReader, readMrz } from '../../src/engines/document/mrz-reader.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession } from '../sessions/support.js';
import { issueCertificate, toPem, type Issued } from './support/chip.js';
import { aamvaPayload, californiaLicence, renderLicenceBack, renderLicenceFront } from './support/licence.js';
import { buildSeal, withSeal } from './support/seal.js';
import { mrzLines, renderDocument, samplePassport, toDataUri } from './support/synthetic-document.js';

const PATH = '/v1/id-verification';

const VERIFY_ID_DOCUMENT = /* GraphQL */ `
  mutation ($input: VerifyIdDocumentInput!) {
    verifyIdDocument(input: $input) {
      status
      resultCode
      warnings {
        code
        message
      }
      barcode
    }
  }
`;

/** A seal over the passport's MRZ, signed by `signer` (a certificate of C=UT, CN=TS). */
async function sealedPassport(signer: Issued, tamper = false): Promise<string> {
  const passport = samplePassport();
  const serial = Buffer.from(signer.certificate.serialNumber.valueBlock.valueHexView).toString('hex').replace(/^0+/, '');
  const seal = await buildSeal(
    {
      country: 'UTO',
      signerIdentifier: 'UTTS',
      certificateReference: serial,
      documentRef: [0x5e, 0x03],
      mrz: mrzLines(passport).join(''),
      issued: '2026-01-15',
    },
    async (signed) => Buffer.from(await globalThis.crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signer.keys.privateKey, signed)),
  );
  if (tamper) seal[seal.length - 5] ^= 0x01;
  return toDataUri(await withSeal(await renderDocument(passport, { jpegQuality: 85 }), seal, 700, 360));
}

describe('barcodes through the API', { timeout: 300_000 }, () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let trusted: Issued;
  let unknown: Issued;
  const licence = californiaLicence();
  const images = {} as Record<'front' | 'back' | 'otherBack' | 'glareBack', string>;

  beforeAll(async () => {
    trusted = await issueCertificate('TS');
    unknown = await issueCertificate('TS');
    const signers = mkdtempSync(join(tmpdir(), 'vds-signers-'));
    writeFileSync(join(signers, 'trusted.pem'), toPem(trusted.certificate));
    // Two OCR passes per licence (back, then front) on a shared 2-core machine can pass the
    // 60 s default budget, the first with the models' cold start: the budget is not under test here.
    testApp = await startTestApp({ VDS_SIGNER_CERTS_PATH: signers, ENGINE_TIMEOUT_MS: '240000' });
    tenant = await testApp.tenant();
    images.front = toDataUri(await renderLicenceFront(licence, { jpegQuality: 85 }));
    images.back = toDataUri(await renderLicenceBack(licence, { rotateDegrees: 2, jpegQuality: 75 }));
    images.otherBack = toDataUri(
      await renderLicenceBack(licence, { jpegQuality: 75 }, aamvaPayload({ ...licence, lastName: 'SIMPLE', dateOfBirth: '1991-01-31' })),
    );
    // Glare over the barcode: the card is sharp (no quality failure), the symbol is not readable.
    const glare = await sharp({ create: { width: 420, height: 200, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    images.glareBack = toDataUri(
      await sharp(await renderLicenceBack(licence))
        .composite([{ input: glare, left: 220, top: 120 }])
        .jpeg({ quality: 80 })
        .toBuffer(),
    );
  });
  afterAll(async () => {
    await testApp.close();
    await closeMrzReader();
  });

  const verify = (body: Record<string, unknown>) =>
    testApp.rest('POST', PATH, { key: tenant.liveKey, body: { country: 'US', id_type: 'DRIVERS_LICENSE', ...body } });

  it('given a US licence whose back barcode and printed front agree, when verified, then the fields come from the barcode and pass the comparison', async () => {
    const response = await verify({ image_front: images.front, image_back: images.back });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      status: 'passed',
      result_code: 'clear',
      extracted: { last_name: 'SAMPLE', first_name: 'JANE QUINN', date_of_birth: '1990-01-31', document_number: 'D1234567' },
      checks: { document_authentic: 'passed', mrz_match: 'skipped', expiry_check: 'passed' },
    });
    const { barcode } = response.body;
    expect(barcode.symbols).toEqual([{ format: 'PDF417', side: 'image_back', kind: 'aamva' }]);
    expect(barcode.aamva).toMatchObject({ version: 10, issuer: 'California', document_type: 'DL' });
    expect(barcode.aamva.fields).toMatchObject({ last_name: 'SAMPLE', middle_name: 'QUINN', state: 'CA', address_postal_code: '95814' });
    expect(barcode.mismatches).toEqual([]);
    // The front was read too: every labelled field was compared, not just one.
    expect([...barcode.compared].sort()).toEqual(['date_of_birth', 'document_number', 'expiry_date', 'first_name', 'last_name']);
  });

  it('given a back whose barcode names someone else than the front, when verified, then it goes to review with the differing fields', async () => {
    const response = await verify({ image_front: images.front, image_back: images.otherBack });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'review', result_code: 'barcode_front_mismatch' });
    expect(response.body.barcode.mismatches.map((mismatch: { field: string }) => mismatch.field).sort()).toEqual([
      'date_of_birth',
      'last_name',
    ]);
    expect(response.body.warnings.map((warning: { code: string }) => warning.code)).toContain('barcode_front_mismatch');
  });

  it('given a US licence back without a readable barcode, when verified, then it fails as barcode_unreadable with guidance, and in a session it asks for a retake', async () => {
    const response = await verify({ image_front: images.front, image_back: images.glareBack });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', result_code: 'barcode_unreadable' });
    expect(response.body.warnings).toContainEqual({
      code: 'barcode_unreadable',
      field: 'image_back',
      message: expect.stringContaining('Photograph the back flat'),
    });

    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.liveKey,
      body: { name: 'Licence', nodes: [{ type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' }] },
    });
    expect(workflow.status).toBe(201);
    const session = await createSession(testApp, tenant.liveKey, {
      workflow_id: workflow.body.workflow_id,
      vendor_data: 'licence-1',
      expected_details: { first_name: 'Jane', last_name: 'Sample' },
    });
    const path = `/v1/sessions/${session.body.session_id}/steps/document`;
    const body = { country: 'US', id_type: 'DRIVERS_LICENSE', image_front: images.front };
    const first = await testApp.rest('POST', path, { key: tenant.liveKey, body: { ...body, image_back: images.glareBack } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.steps[0]).toMatchObject({ status: 'resubmission_requested', resubmission_reason: 'barcode_unreadable' });
    const retake = await testApp.rest('POST', path, { key: tenant.liveKey, body: { ...body, image_back: images.back } });
    expect(retake.body.steps[0].status).toBe('passed');
    const decision = await testApp.rest('GET', `/v1/sessions/${session.body.session_id}/decision`, { key: tenant.liveKey });
    expect(decision.body.status).toBe('approved');
    expect(decision.body.node_results.document_verification.details).toMatchObject({
      result_code: 'clear',
      extracted: { source: 'barcode', last_name: 'SAMPLE' },
      barcode: { aamva: { fields: { document_number: 'D1234567' } }, mismatches: [] },
    });
  });

  it("given the search for an MRZ the photo shows, when a licence back without one and a card with one are read, then the back has none and the card's MRZ is read as by the thorough search", async () => {
    // The engine searches a licence back this way once its barcode is read (test/id-verification/barcodes.test.ts).
    const back = Buffer.from(images.back.split(',')[1]!, 'base64');
    expect(await readMrz(back, { search: 'shown' })).toBeNull();
    const card = await renderDocument(
      { ...samplePassport(), format: 'TD1', documentCode: 'I', issuingState: 'USA', lastName: 'SAMPLE', firstName: 'JANE' },
      { jpegQuality: 85 },
    );
    const shown = await readMrz(card, { search: 'shown' });
    expect(shown?.valid).toBe(true);
    expect(shown?.fields).toEqual((await readMrz(card))?.fields);
  });

  it('given a passport with a visible digital seal whose signer certificate is configured, when verified over GraphQL, then the seal is verified and agrees with the MRZ', async () => {
    const response = await testApp.graphql(
      VERIFY_ID_DOCUMENT,
      { input: { country: 'FR', idType: 'PASSPORT', imageFront: await sealedPassport(trusted) } },
      tenant.liveKey,
    );
    expect(response.body.errors).toBeUndefined();
    const result = response.body.data.verifyIdDocument;
    expect(result).toMatchObject({ status: 'passed', resultCode: 'clear' });
    expect(result.barcode.vds).toMatchObject({ signature: 'verified', document_type: 'emergency_travel_document', issuing_country: 'UTO' });
    expect(result.barcode.compared).toEqual(['mrz']);
    expect(result.barcode.mismatches).toEqual([]);
  });

  it('given a seal whose signer certificate is not configured, when verified, then it is reported not verified (certificate unknown) as a warning, never verified', async () => {
    const response = await testApp.rest('POST', PATH, {
      key: tenant.liveKey,
      body: { country: 'FR', id_type: 'PASSPORT', image_front: await sealedPassport(unknown) },
    });
    expect(response.status).toBe(200);
    expect(response.body.barcode.vds).toMatchObject({
      signature: 'not_verified',
      signature_reason: expect.stringContaining('certificate unknown'),
    });
    expect(response.body.warnings.map((warning: { code: string }) => warning.code)).toContain('vds_certificate_unknown');
  });

  it('given a seal altered after signing, when verified, then the document fails as vds_signature_invalid', async () => {
    const response = await testApp.rest('POST', PATH, {
      key: tenant.liveKey,
      body: { country: 'FR', id_type: 'PASSPORT', image_front: await sealedPassport(trusted, true) },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', result_code: 'vds_signature_invalid' });
    expect(response.body.barcode.vds.signature).toBe('invalid');
  });
});
