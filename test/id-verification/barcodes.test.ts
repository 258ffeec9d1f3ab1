/**
 * Barcodes of ID documents, on bytes (no app): the AAMVA parser on the standard's own example and
 * on generated payloads of each date convention, the refusals of malformed data, the zxing-wasm
 * reader on real photos of PDF417 and Data Matrix symbols (zxing-cpp's test samples) and on
 * rendered licence backs, and ICAO visible digital seals: two seals produced by another
 * implementation (vdstools' sealgen test seals) verified with their signer certificates, a seal
 * built and signed here, and what happens without a certificate or with a tampered byte.
 */
import { generateKeyPairSync, sign, type X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aamvaDate, AamvaError, parseAamva } from '../../src/engines/document/aamva.js';
import sharp from 'sharp';
import { estimateSkewDegrees, readDocumentBarcodes } from '../../src/engines/document/barcode-reader.js';
import { crossCheckBarcode, readBarcodes, barcodeWarnings } from '../../src/engines/document/barcodes.js';
import { decodeC40, encodeC40, loadVdsTrust, parseVds, verifyVdsSignature, VdsError } from '../../src/engines/document/vds.js';
import { aamvaPayload, californiaLicence, ontarioLicence, renderLicenceBack, renderLicenceFront } from './support/licence.js';
import { verifyDocument } from '../../src/engines/document/engine.js';
import type { EngineContext } from '../../src/engines/node-engine.js';
import { buildSeal } from './support/seal.js';
import { decodeDocumentImage } from '../../src/engines/document/image.js';
import { mrzLines, toDataUri } from './support/synthetic-document.js';
import { findMrz } from '../../src/engines/document/mrz-text.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/barcodes');

/** The example payload of the AAMVA DL/ID Card Design Standard (2020), Annex D (fictional Virginia holder). */
const AAMVA_2020_EXAMPLE =
  '@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\nDADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\nDAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\nDCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\n\rZVZVA01\r';

/** vdstools' test seals (src/commonTest/kotlin/de/tsenger/vdstools/vds/VdsRawBytesCommon.kt, Apache-2.0). */
const RESIDENCE_PERMIT_SEAL = Buffer.from(
  'DC03D9C5D9CAC8A73A990F71346ECF47FB0602305CBA135875976EC066D417B59E8C6ABC133C133C133C133C3FEF3A2938EE43F1593D1AE52DBB26751FE64B7C133C136B0306D79519A65306FF408B7F3B5F9A83FDD4F46EC7DCCC3384BB6C540AAF52603CC66D1F08B7F5E71243475D0A833B51FD2A846622E847B1F3791803F26D734B9BD18178FA22CFF2A31A',
  'hex',
);
const VISA_SEAL = Buffer.from(
  'DC03D9C56D32C8A72CB10F71347D00175D01022CDD52134A74DA1347C6FED95CB89F9FCE133C133C133C133C203833734AAF47F0C32F1A1E20EB2625393AFE310403A00000050633BE1FED20C6FF389FD029C66FB2E4BF361CDBFFD8F5931B6259F645B077702C617F453D0B898A55E6E7870974FFE7B3AC416ACDE6B03B3C3A8CB5A22B456816',
  'hex',
);

describe('AAMVA parsing', () => {
  it("given the AAMVA 2020 standard's example, when parsed, then every DL/ID field comes out with US dates", () => {
    const record = parseAamva(AAMVA_2020_EXAMPLE);
    expect(record).toMatchObject({ version: 10, jurisdictionVersion: 0, issuerId: '636000', issuer: 'Virginia', documentType: 'DL' });
    expect(record.subfiles).toEqual(['DL', 'ZV']);
    expect(record.fields).toEqual({
      lastName: 'SAMPLE',
      firstName: 'MICHAEL',
      middleName: 'JOHN',
      dateOfBirth: '1986-06-06',
      expiryDate: '2024-12-10',
      issueDate: '2019-06-06',
      documentNumber: 'T64235789',
      sex: 'M',
      country: 'USA',
      state: 'VA',
      addressStreet: '2300 WEST BROAD STREET',
      addressCity: 'RICHMOND',
      addressPostalCode: '23269',
      documentDiscriminator: '2424244747474786102204',
    });
  });

  it('given a Canadian payload, when parsed, then its dates are read CCYYMMDD', () => {
    const licence = ontarioLicence(new Date('2026-06-01'));
    const record = parseAamva(aamvaPayload(licence));
    expect(record.fields).toMatchObject({
      country: 'CAN',
      dateOfBirth: '1984-11-05',
      expiryDate: '2029-11-05',
      documentNumber: 'T7654-32108-41105',
      addressPostalCode: 'M5J 2W3',
    });
    expect(record.issuer).toBe('Ontario');
  });

  it('given a payload without DCG, when parsed, then the country comes from the IIN and decides the date order', () => {
    const licence = { ...ontarioLicence(new Date('2026-06-01')), country: null };
    const record = parseAamva(aamvaPayload(licence));
    expect(record.fields.country).toBe('CAN');
    expect(record.fields.dateOfBirth).toBe('1984-11-05');
  });

  it('given each version 1 to 10, when a generated payload is parsed, then the names and dates come back (version 1: CCYYMMDD, no jurisdiction version)', () => {
    for (let version = 1; version <= 10; version++) {
      const record = parseAamva(aamvaPayload({ ...californiaLicence(4, new Date('2026-06-01')), version }));
      expect(record.version, `version ${version}`).toBe(version);
      expect(record.jurisdictionVersion).toBe(version === 1 ? null : 0);
      expect(record.fields).toMatchObject({
        lastName: 'SAMPLE',
        firstName: 'JANE',
        dateOfBirth: '1990-01-31',
        expiryDate: '2030-01-31',
      });
    }
  });

  it('given a version-1 card with DAA and a version-2 card with DCT, when parsed, then the names are split', () => {
    const v1 = '@\n\x1e\rANSI 6360140101DL00290100DLDAQA1234567\nDAADOE,JOHN,PAUL\nDBB19800115\nDBA20300115\nDBCM\nDAJCA\n\r';
    expect(parseAamva(v1).fields).toMatchObject({
      lastName: 'DOE',
      firstName: 'JOHN',
      middleName: 'PAUL',
      dateOfBirth: '1980-01-15',
      sex: 'M',
    });
    const v2 = '@\n\x1e\rANSI 636014020001DL00310100DLDAQA1234567\nDCSDOE\nDCTJOHN PAUL\nDBB01151980\nDCGUSA\n\r';
    expect(parseAamva(v2).fields).toMatchObject({ lastName: 'DOE', firstName: 'JOHN', middleName: 'PAUL', dateOfBirth: '1980-01-15' });
  });

  it('given header quirks of real cards (no RS, CR LF separators, offsets off), when parsed, then the fields are still read', () => {
    const noRs = AAMVA_2020_EXAMPLE.replace('@\n\x1e\r', '@\n\r');
    expect(parseAamva(noRs).fields.lastName).toBe('SAMPLE');
    const crlf = AAMVA_2020_EXAMPLE.replace(/\n(?=[A-Z]{3})/g, '\r\n').replace('DL00410278', 'DL00450278');
    expect(parseAamva(crlf).fields.dateOfBirth).toBe('1986-06-06');
  });

  it('given malformed data, when parsed, then it is refused with the reason', () => {
    const refused = (text: string) => {
      try {
        parseAamva(text);
      } catch (error) {
        expect(error).toBeInstanceOf(AamvaError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused('HELLO WORLD')).toMatch(/Not an AAMVA payload/);
    expect(refused('@\n\x1e\rANSI 63601X100002')).toMatch(/header is malformed/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('636000100002', '636000110002'))).toMatch(/Unsupported AAMVA version 11/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('DL00410278ZV', 'ZX00410278ZV').replace('DLDAQ', 'ZXDAQ'))).toMatch(/no DL or ID subfile/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('DBB06061986', 'DBB13401986'))).toMatch(/DBB is not a date in MMDDCCYY/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('DBC1', 'DBC7'))).toMatch(/DBC/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('DAQT64235789\n', ''))).toMatch(/no customer id number/);
    expect(refused(AAMVA_2020_EXAMPLE.replace('DCSSAMPLE\n', ''))).toMatch(/no family name/);
    expect(() => aamvaDate('2024023', 'CCYYMMDD', 'DBA')).toThrow(/8-digit/);
  });
});

describe('barcode reading (zxing-wasm)', () => {
  it("given zxing-cpp's real photos of PDF417 symbols and Data Matrix samples, when read, then most decode to their expected text", async () => {
    let read = 0;
    let total = 0;
    for (const folder of ['pdf417-2', 'datamatrix-2']) {
      const directory = join(FIXTURES, 'zxing-cpp', folder);
      for (const name of readdirSync(directory).filter((file) => !file.endsWith('.txt'))) {
        total++;
        const expected = readFileSync(join(directory, name.replace(/\.\w+$/, '.txt')), 'utf8');
        const symbols = await readDocumentBarcodes(readFileSync(join(directory, name)));
        if (symbols.some((symbol) => symbol.text === expected)) read++;
        else console.log(`not read: ${folder}/${name}`);
      }
    }
    expect(total).toBeGreaterThan(30);
    // Measured 2026-11: see the bench; a drop below 90 % is a regression of the reader or its options.
    expect(read / total).toBeGreaterThan(0.9);
  }, 120_000);

  it('given a rendered licence back photographed slightly rotated and compressed, when read, then the AAMVA payload comes back byte for byte', async () => {
    const licence = californiaLicence();
    const photo = await renderLicenceBack(licence, { rotateDegrees: 3, jpegQuality: 70 });
    const symbols = await readDocumentBarcodes(photo);
    expect(symbols.map((symbol) => symbol.format)).toContain('PDF417');
    expect(symbols[0].bytes.toString('latin1')).toBe(aamvaPayload(licence));
  }, 60_000);

  it('given licence backs photographed 5° and 15° off, when read, then the skew is estimated and the straightened photo decodes (ZXing alone reads neither)', async () => {
    const licence = ontarioLicence();
    for (const degrees of [5, -15]) {
      const photo = await renderLicenceBack(licence, { rotateDegrees: degrees, blurSigma: 1, jpegQuality: 60 });
      expect(Math.abs((await estimateSkewDegrees(sharp(photo))) - degrees)).toBeLessThan(2.5);
      const symbols = await readDocumentBarcodes(photo);
      expect(symbols[0]?.bytes.toString('latin1'), `${degrees}°`).toBe(aamvaPayload(licence));
    }
  }, 60_000);

  it('given a photo without any barcode, when read, then nothing is returned', async () => {
    const blank = await (
      await import('sharp')
    )
      .default({ create: { width: 600, height: 400, channels: 3, background: '#dde' } })
      .png()
      .toBuffer();
    expect(await readDocumentBarcodes(blank)).toEqual([]);
  });
});

describe('cross-check with the front', () => {
  it('given a licence whose barcode and front differ in the surname and the date of birth, when compared, then those fields are listed', async () => {
    const licence = californiaLicence();
    const back = await decodeDocumentImage(toDataUri(await renderLicenceBack(licence)), 'image_back');
    const front = await decodeDocumentImage(toDataUri(await renderLicenceBack({ ...licence, lastName: 'OTHER' })), 'image_front');
    const read = await readBarcodes(front, back, [], new Date());
    expect(read.aamva?.fields.lastName).toBe('SAMPLE');
    crossCheckBarcode(read, {
      source: 'viz',
      last_name: 'SAMPLE',
      given_names: 'JANE',
      date_of_birth: '1990-01-31',
      document_number: 'D1234567',
    });
    expect(read.details.mismatches).toEqual([]);
    expect(read.details.compared).toEqual(['last_name', 'first_name', 'date_of_birth', 'document_number']);
    crossCheckBarcode(read, { source: 'viz', last_name: 'SAMPLES', given_names: 'JANE QUINN', date_of_birth: '1991-01-31' });
    expect(read.details.mismatches.map((mismatch) => mismatch.field)).toEqual(['last_name', 'date_of_birth']);
    expect(barcodeWarnings(read)[0]).toMatchObject({ code: 'barcode_front_mismatch', field: 'last_name' });
  }, 60_000);
});

describe('ICAO visible digital seals', () => {
  const trust = loadVdsTrust(join(FIXTURES, 'vds'));

  it("given vdstools' residence permit and visa seals, when parsed, then the header, the signer reference and the MRZ come out", () => {
    const permit = parseVds(RESIDENCE_PERMIT_SEAL);
    expect(permit).toMatchObject({
      version: 4,
      issuing_country: 'UTO',
      signer_reference: 'UTTS5B',
      issue_date: '2020-01-01',
      signature_date: '2023-07-26',
      document_type: 'residence_permit',
    });
    expect(permit.mrz).toBe('ATD<<RESIDORCE<<ROLAND<<<<<<<<<<<<<<\n6525845096USA7008038M2201018<<<<<<06');
    const visa = parseVds(VISA_SEAL);
    expect(visa).toMatchObject({ signer_reference: 'DETS32', document_type: 'visa' });
    expect(visa.mrz).toBe('VCD<<DENT<<ARTHUR<PHILIP<<<<<<<<<<<<\n1234567XY7GBR5203116M2005250');
  });

  it('given their signer certificates configured, when verified, then both signatures hold (brainpool P-256 and P-224), and a changed byte fails', () => {
    expect(trust.map((signer) => signer.reference).sort()).toEqual(['DETS32', 'UTTS5B']);
    expect(verifyVdsSignature(parseVds(RESIDENCE_PERMIT_SEAL), trust).status).toBe('verified');
    expect(verifyVdsSignature(parseVds(VISA_SEAL), trust).status).toBe('verified');
    const tampered = Buffer.from(RESIDENCE_PERMIT_SEAL);
    tampered[40] ^= 0x01;
    expect(verifyVdsSignature(parseVds(tampered), trust).status).toBe('invalid');
  });

  it('given no certificate for the signer, when verified, then it is not verified (certificate unknown), never verified', () => {
    const check = verifyVdsSignature(parseVds(VISA_SEAL), []);
    expect(check).toEqual({ status: 'not_verified', reason: expect.stringContaining('not verified: certificate unknown') });
  });

  it('given a seal built and signed here per ICAO 9303-13 (P-256), when parsed and verified, then it round-trips', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const seal = await buildSeal(
      {
        country: 'UTO',
        signerIdentifier: 'UTAB',
        certificateReference: '1F',
        documentRef: [0x5d, 0x01],
        mrz: 'VCUTOSPECIMEN<<ANNA<<<<<<<<<<<<<<<<<<L898902C<3UTO7408122F2701011'.padEnd(64, '<'),
        issued: '2026-01-15',
      },
      (signed) => sign('sha256', signed, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
    );
    const parsed = parseVds(seal);
    expect(parsed).toMatchObject({ issuing_country: 'UTO', signer_reference: 'UTAB1F', document_type: 'visa', issue_date: '2026-01-15' });
    // A certificate-less trust entry: the public key stands in for the signer certificate.
    const fakeCertificate = { publicKey: { export: () => publicKey.export({ format: 'pem', type: 'spki' }) }, validTo: '2099-01-01' };
    const check = verifyVdsSignature(parsed, [{ reference: 'UTAB1F', certificate: fakeCertificate as unknown as X509Certificate }]);
    expect(check.status).toBe('verified');
  });

  it('given malformed seals, when parsed, then each is refused with the reason', () => {
    expect(() => parseVds(Buffer.from('dd03', 'hex'))).toThrow(/magic byte/);
    expect(() => parseVds(Buffer.from('dc05aabb', 'hex'))).toThrow(/Unsupported seal version/);
    expect(() => parseVds(RESIDENCE_PERMIT_SEAL.subarray(0, 10))).toThrow(VdsError);
    const unsigned = RESIDENCE_PERMIT_SEAL.subarray(0, RESIDENCE_PERMIT_SEAL.indexOf(0xff, 60));
    expect(() => parseVds(unsigned)).toThrow(/no signature/);
  });

  it('given C40, when encoded and decoded, then text round-trips (padding and unlatch included)', () => {
    for (const text of ['UTO', 'DETS32', 'UTAB021F', 'A', 'AB']) expect(decodeC40(encodeC40(text))).toBe(text);
  });
});

describe('the document step with barcodes (engine on bytes; OCR replaced by the lines a front prints)', () => {
  const licence = californiaLicence();
  /** The OCR lines of the licence's front, as PaddleOCR reads them (labels glued to values). */
  const frontLines = (overrides: { lastName?: string; dateOfBirth?: string } = {}) =>
    [
      'CA DRIVERLICENSE',
      `DL${licence.documentNumber}`,
      'EXP01/31/' + licence.expiryDate.slice(0, 4),
      `LN ${overrides.lastName ?? licence.lastName}`,
      `FN${licence.firstName} ${licence.middleName}`,
      `DOB${overrides.dateOfBirth ?? '01/31/1990'}`,
    ].map((text) => ({ text }));
  let pageReads = 0;
  const run = async (back: Buffer, options: { lines?: { text: string }[]; country?: string; expected?: Record<string, string> } = {}) => {
    const front = toDataUri(await renderLicenceBack({ ...licence, lastName: 'UNUSED' }, {}, 'NOT A BARCODE'));
    return verifyDocument(
      { country: options.country ?? 'US', idType: 'DRIVERS_LICENSE', imageFront: front, imageBack: toDataUri(back) },
      options.expected
        ? ({ tenantId: 't', sessionId: 's', amlScoreThreshold: 80, expectedDetails: options.expected } as EngineContext)
        : null,
      {
        readMrz: async () => null,
        readPage: async () => {
          pageReads++;
          return options.lines ?? frontLines();
        },
      },
    );
  };

  it('given a back and a front that agree, when checked, then it passes with the barcode fields and every labelled field compared', async () => {
    const result = await run(await renderLicenceBack(licence));
    expect(result).toMatchObject({
      status: 'passed',
      details: { resultCode: 'clear', extracted: { source: 'barcode', lastName: 'SAMPLE' } },
    });
    expect(result.details.barcode?.compared.sort()).toEqual(['date_of_birth', 'document_number', 'expiry_date', 'first_name', 'last_name']);
  });

  it('given a front printing another surname, when checked, then barcode_front_mismatch sends it to review', async () => {
    const result = await run(await renderLicenceBack(licence), { lines: frontLines({ lastName: 'SAMPSON' }) });
    expect(result).toMatchObject({ status: 'review', details: { resultCode: 'barcode_front_mismatch' } });
    expect(result.details.barcode?.mismatches).toEqual([{ field: 'last_name', barcode: 'SAMPLE', front: 'SAMPSON', source: 'viz' }]);
  });

  it('given a PDF417 that is not AAMVA data, when checked, then barcode_invalid goes to review with the reason', async () => {
    const broken = aamvaPayload(licence).replace('DBB01311990', 'DBB13311990');
    const result = await run(await renderLicenceBack(licence, {}, broken));
    expect(result).toMatchObject({ status: 'review', details: { resultCode: 'barcode_invalid' } });
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ code: 'barcode_invalid', message: expect.stringContaining('DBB is not a date') }),
    );
  });

  it('given an Ontario licence sent as a US one, when checked, then country_mismatch fails it', async () => {
    const ontario = ontarioLicence();
    const result = await run(await renderLicenceBack(ontario), { lines: [] });
    expect(result).toMatchObject({ status: 'failed', details: { resultCode: 'country_mismatch' } });
  });

  it("given a session whose expected_details name someone else, when checked, then the barcode's name is compared (name_mismatch)", async () => {
    const result = await run(await renderLicenceBack(licence), { expected: { first_name: 'Jane', last_name: 'Smith' } });
    expect(result.warnings.map((warning) => warning.code)).toContain('name_mismatch');
  });

  it("given a licence whose back barcode is read, when checked, then the back's MRZ is only read where the photo shows one; without a readable barcode it is searched for thoroughly", async () => {
    const searches: (string | undefined)[] = [];
    const check = async (back: Buffer) =>
      verifyDocument(
        { country: 'US', idType: 'DRIVERS_LICENSE', imageFront: toDataUri(await renderLicenceFront(licence)), imageBack: toDataUri(back) },
        null,
        {
          readMrz: async (_bytes, options) => {
            searches.push(options?.search);
            return null;
          },
          readPage: async () => frontLines(),
        },
      );
    expect(await check(await renderLicenceBack(licence))).toMatchObject({
      status: 'passed',
      details: { extracted: { source: 'barcode' } },
    });
    expect(await check(await renderLicenceBack(licence, {}, 'NOT A BARCODE'))).toMatchObject({
      details: { resultCode: 'barcode_unreadable' },
    });
    expect(searches).toEqual(['shown', 'thorough']);
  });

  it('given a back without a readable barcode, when checked, then barcode_unreadable fails it with guidance and the front is not OCR-read', async () => {
    pageReads = 0;
    const blank = await sharp({ create: { width: 856, height: 540, channels: 3, background: '#eef3fa' } })
      .composite([{ input: await renderLicenceFront(licence), left: 0, top: 0 }])
      .png()
      .toBuffer();
    const result = await run(blank);
    expect(result).toMatchObject({ status: 'failed', details: { resultCode: 'barcode_unreadable' } });
    expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'barcode_unreadable', field: 'image_back' }));
    expect(pageReads).toBe(0);
  });
});

describe('an ID card with both an MRZ and an AAMVA barcode (a US enhanced card; engine on bytes, the MRZ read given)', () => {
  const card = { ...californiaLicence(), type: 'ID' as const };
  const expiryYymmdd = `${card.expiryDate.slice(2, 4)}0131`;
  /** The card's TD1 MRZ, as the reader would return it; `lastName` prints another surname there. */
  const mrzOf = (lastName = card.lastName) =>
    findMrz(
      mrzLines({
        format: 'TD1',
        issuingState: 'USA',
        lastName,
        firstName: `${card.firstName} ${card.middleName}`,
        documentNumber: card.documentNumber,
        birthDate: '900131',
        expiryDate: expiryYymmdd,
        sex: 'F',
        documentCode: 'I',
      }).map((text) => ({ text })),
    );
  const run = async (lastName?: string) => {
    const back = toDataUri(await renderLicenceBack(card));
    const front = toDataUri(await renderLicenceFront(card));
    return verifyDocument({ country: 'US', idType: 'ID_CARD', imageFront: front, imageBack: back }, null, {
      readMrz: async () => mrzOf(lastName),
      readPage: async () => [],
    });
  };

  it('given an MRZ and a barcode that agree, when checked, then the names and dates of the MRZ are compared with the barcode and none differs', async () => {
    expect(mrzOf()?.valid).toBe(true);
    const result = await run();
    expect(result.details.extracted).toMatchObject({ lastName: 'SAMPLE', mrzFormat: 'TD1' });
    // The document number is compared only with a printed visual zone: an MRZ may number the card differently.
    expect(result.details.barcode?.compared.sort()).toEqual(['date_of_birth', 'expiry_date', 'first_name', 'last_name']);
    expect(result.details.barcode?.mismatches).toEqual([]);
    expect(result.warnings.map((warning) => warning.code)).not.toContain('barcode_front_mismatch');
  });

  it('given an MRZ printing another surname than the barcode, when checked, then barcode_front_mismatch names the surname read from the MRZ', async () => {
    const result = await run('SAMPSON');
    expect(result).toMatchObject({ status: 'review', details: { resultCode: 'barcode_front_mismatch' } });
    expect(result.details.barcode?.mismatches).toEqual([{ field: 'last_name', barcode: 'SAMPLE', front: 'SAMPSON', source: 'mrz' }]);
  });
});
