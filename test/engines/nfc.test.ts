import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/shared/config.js';
import { verifyDocument } from '../../src/engines/document/engine.js';
import { findMrz } from '../../src/engines/document/mrz-text.js';
import { compareChipMrz, loadNfcTrust, parseCscaBundle, verifyPassiveAuthentication } from '../../src/engines/document/nfc.js';
import { ApiError } from '../../src/shared/errors.js';
import { buildChip, buildDg1, buildSod, issueCertificate, nfcInput, toPem } from '../id-verification/support/chip.js';
import {
  mrzLines,
  renderDocument,
  toDataUri,
  type SyntheticIdentity,
  samplePassport,
} from '../id-verification/support/synthetic-document.js';

const PASSPORT: SyntheticIdentity = samplePassport();
const LINES = mrzLines(PASSPORT);

type Chip = Awaited<ReturnType<typeof buildChip>>;

/** The field errors of a 400 thrown by `run`. */
async function fieldErrors(run: () => Promise<unknown>): Promise<unknown> {
  const error = await run().then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe('validation_failed');
  return (error as ApiError).fieldErrors;
}

describe('NFC passive authentication', () => {
  let chip: Chip;

  beforeAll(async () => {
    chip = await buildChip(LINES);
  });

  describe('given a genuine chip', () => {
    it('when the CSCA is configured, then it passes and returns the chip MRZ', async () => {
      const result = await verifyPassiveAuthentication(nfcInput(chip), { cscaCertificates: [chip.csca.certificate] });
      expect(result).toEqual({ outcome: 'passed', chipMrz: LINES.join('') });
    });

    it('when no CSCA is configured, then the valid signature is only a warning (csca_not_configured)', async () => {
      const result = await verifyPassiveAuthentication(nfcInput(chip));
      expect(result).toMatchObject({ outcome: 'warning', reasonCode: 'csca_not_configured' });
    });

    it('when DG2 is not sent, then DG1 alone verifies', async () => {
      const result = await verifyPassiveAuthentication(nfcInput({ sod: chip.sod, dg1: chip.dg1 }), {
        cscaCertificates: [chip.csca.certificate],
      });
      expect(result.outcome).toBe('passed');
    });

    it('when no chip data is sent, then it is skipped', async () => {
      expect(await verifyPassiveAuthentication(undefined)).toEqual({ outcome: 'skipped' });
    });
  });

  describe('given chip data that does not verify', () => {
    it('when DG1 was altered, then it fails with nfc_hash_mismatch', async () => {
      const tampered = buildDg1([LINES[0].replace('MARTIN', 'MORTIN'), LINES[1]]);
      const result = await verifyPassiveAuthentication(nfcInput({ ...chip, dg1: tampered }), { cscaCertificates: [chip.csca.certificate] });
      expect(result).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_hash_mismatch' });
    });

    it('when DG2 was altered, then it fails with nfc_hash_mismatch', async () => {
      const dg2 = Buffer.from(chip.dg2);
      dg2[dg2.length - 1] ^= 0xff;
      const result = await verifyPassiveAuthentication(nfcInput({ ...chip, dg2 }), { cscaCertificates: [chip.csca.certificate] });
      expect(result).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_hash_mismatch' });
    });

    it('when the DS certificate does not chain to the configured CSCA, then it fails with nfc_certificate_untrusted', async () => {
      const otherCsca = await issueCertificate('Other CSCA', { ca: true });
      const result = await verifyPassiveAuthentication(nfcInput(chip), { cscaCertificates: [otherCsca.certificate] });
      expect(result).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_certificate_untrusted' });
    });

    it('when the DS certificate is self-issued by a forger, then it fails even without a configured CSCA', async () => {
      // A forger's DS is untrusted, but its signature is valid: only a CSCA can tell; without one it is a warning.
      const forger = await issueCertificate('Forged DS');
      const sod = await buildSod(forger, new Map([[1, chip.dg1]]));
      const trusted = await verifyPassiveAuthentication(nfcInput({ sod, dg1: chip.dg1 }), { cscaCertificates: [chip.csca.certificate] });
      expect(trusted).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_certificate_untrusted' });
      const untrusted = await verifyPassiveAuthentication(nfcInput({ sod, dg1: chip.dg1 }));
      expect(untrusted.outcome).toBe('warning');
    });

    it('when the signed content was replaced after signing, then it fails with nfc_signature_invalid', async () => {
      const tampered = buildDg1([LINES[0].replace('MARTIN', 'MORTIN'), LINES[1]]);
      const sod = await buildSod(chip.ds, new Map([[1, chip.dg1]]), { swapContentAfterSigning: new Map([[1, tampered]]) });
      const result = await verifyPassiveAuthentication(nfcInput({ sod, dg1: tampered }), { cscaCertificates: [chip.csca.certificate] });
      expect(result).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_signature_invalid' });
    });

    it('when the signature bytes were altered, then it fails with nfc_signature_invalid', async () => {
      const sod = Buffer.from(chip.sod);
      // The ECDSA signature is the last element of the SOD: flip a bit inside it.
      sod[sod.length - 5] ^= 0x01;
      const result = await verifyPassiveAuthentication(nfcInput({ ...chip, sod }), { cscaCertificates: [chip.csca.certificate] });
      expect(result).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_signature_invalid' });
    });

    it('when the CSCA and DS certificates are not valid at the check date, then it fails', async () => {
      const result = await verifyPassiveAuthentication(nfcInput(chip), {
        cscaCertificates: [chip.csca.certificate],
        checkDate: new Date(Date.now() + 2 * 365 * 24 * 3600 * 1000),
      });
      expect(result.outcome).toBe('failed');
    });
  });

  describe('given chip data whose DG1 differs from the printed MRZ', () => {
    it('when compared, then a verified chip fails with nfc_mrz_mismatch and equal lines keep the outcome', async () => {
      const verified = await verifyPassiveAuthentication(nfcInput(chip), { cscaCertificates: [chip.csca.certificate] });
      expect(compareChipMrz(verified, LINES)).toBe(verified);
      const otherPage = mrzLines({ ...PASSPORT, documentNumber: '19FR00001' });
      expect(compareChipMrz(verified, otherPage)).toMatchObject({ outcome: 'failed', reasonCode: 'nfc_mrz_mismatch' });
      expect(compareChipMrz(verified, null)).toBe(verified);
    });
  });

  describe('given malformed chip data', () => {
    it('when the SOD is not base64, then 400 on nfc.sod', async () => {
      expect(await fieldErrors(() => verifyPassiveAuthentication({ sod: 'not base64!', dg1: chip.dg1.toString('base64') }))).toEqual([
        expect.objectContaining({ field: 'nfc.sod', code: 'invalid' }),
      ]);
    });

    it('when the SOD is some other ASN.1 or garbage, then 400 on nfc.sod', async () => {
      for (const sod of [Buffer.from('hello world, not a SOD'), chip.dg1, chip.csca.certificate.toSchema().toBER(false)]) {
        expect(
          await fieldErrors(() =>
            verifyPassiveAuthentication({ sod: Buffer.from(new Uint8Array(sod)).toString('base64'), dg1: chip.dg1.toString('base64') }),
          ),
        ).toEqual([expect.objectContaining({ field: 'nfc.sod' })]);
      }
    });

    it('when DG1 is not an EF.DG1, then 400 on nfc.dg1', async () => {
      expect(await fieldErrors(() => verifyPassiveAuthentication(nfcInput({ sod: chip.sod, dg1: chip.sod })))).toEqual([
        expect.objectContaining({ field: 'nfc.dg1' }),
      ]);
    });
  });

  describe('given a CSCA PEM bundle', () => {
    it('when parsed or configured, then its certificates are the trust anchors; a bad bundle is a ConfigError', () => {
      const directory = mkdtempSync(join(tmpdir(), 'csca-'));
      const good = join(directory, 'csca.pem');
      writeFileSync(good, toPem(chip.csca.certificate, chip.ds.certificate));
      const bad = join(directory, 'bad.pem');
      writeFileSync(bad, 'nothing here');
      expect(parseCscaBundle(toPem(chip.csca.certificate))).toHaveLength(1);
      expect(loadNfcTrust(good)).toHaveLength(2);
      expect(() => loadNfcTrust(bad)).toThrow(ConfigError);
      expect(() => loadNfcTrust(join(directory, 'missing.pem'))).toThrow(ConfigError);
      expect(loadNfcTrust(undefined)).toHaveLength(0);
    });
  });

  describe('given the document engine with a passport photo', () => {
    let image: string;
    const readMrz = () => Promise.resolve(findMrz(LINES));

    beforeAll(async () => {
      image = toDataUri(await renderDocument(PASSPORT));
    });

    it('when the chip verifies against a configured CSCA, then the result is clear with nfc_signature passed', async () => {
      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image, nfc: nfcInput(chip) }, null, {
        readMrz,
        cscaCertificates: [chip.csca.certificate],
      });
      expect(result.status).toBe('passed');
      expect(result.details).toMatchObject({ resultCode: 'clear', checks: { nfcSignature: 'passed' } });
      expect(result.warnings).toEqual([]);
    });

    it('when no CSCA is configured, then it passes with nfc_signature warning and a csca_not_configured warning', async () => {
      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image, nfc: nfcInput(chip) }, null, {
        readMrz,
      });
      expect(result.status).toBe('passed');
      expect(result.details).toMatchObject({ resultCode: 'clear', checks: { nfcSignature: 'warning' } });
      expect(result.warnings).toEqual([expect.objectContaining({ code: 'csca_not_configured', field: 'nfc' })]);
    });

    it('when the chip belongs to another document, then it fails with nfc_signature_invalid and nfc_mrz_mismatch', async () => {
      const other = await buildChip(mrzLines({ ...PASSPORT, documentNumber: '19FR00001' }));
      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image, nfc: nfcInput(other) }, null, {
        readMrz,
        cscaCertificates: [other.csca.certificate],
      });
      expect(result.status).toBe('failed');
      expect(result.details).toMatchObject({ resultCode: 'nfc_signature_invalid', checks: { nfcSignature: 'failed' } });
      expect(result.warnings).toEqual([expect.objectContaining({ code: 'nfc_mrz_mismatch', field: 'nfc' })]);
    });
  });
});
