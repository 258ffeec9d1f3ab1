/**
 * Synthetic ePassport chip data for NFC passive authentication tests, built with pkijs over
 * Node's WebCrypto: a self-signed CSCA, a Document Signer (DS) certificate it issues, EF.DG1
 * holding an MRZ, an EF.DG2 blob, and EF.SOD (0x77 → CMS SignedData over an LDSSecurityObject
 * with the data-group hashes) signed by the DS key. ECDSA P-256 keeps key generation fast.
 */
import { createHash, randomBytes, type webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const crypto = new pkijs.CryptoEngine({ name: 'node', crypto: globalThis.crypto });
const SIGNING = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const LDS_SECURITY_OBJECT_OID = '2.23.136.1.1.1';
const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const DAY_MS = 24 * 3600 * 1000;

/** A certificate with its key pair. */
export interface Issued {
  /** The X.509 certificate. */
  certificate: pkijs.Certificate;
  /** Its key pair. */
  keys: webcrypto.CryptoKeyPair;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function name(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.6', value: new asn1js.PrintableString({ value: 'UT' }) }),
      new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: commonName }) }),
    ],
  });
}

/** Issues a certificate for `commonName`, signed by `issuer` (self-signed when absent). */
export async function issueCertificate(commonName: string, options: { issuer?: Issued; ca?: boolean } = {}): Promise<Issued> {
  const keys = (await globalThis.crypto.subtle.generateKey(SIGNING, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: toArrayBuffer(Uint8Array.from([0x01, ...randomBytes(8)])) });
  certificate.subject = name(commonName);
  certificate.issuer = options.issuer ? options.issuer.certificate.subject : name(commonName);
  certificate.notBefore.value = new Date(Date.now() - DAY_MS);
  certificate.notAfter.value = new Date(Date.now() + 365 * DAY_MS);
  if (options.ca) {
    const constraints = new pkijs.BasicConstraints({ cA: true });
    certificate.extensions = [
      new pkijs.Extension({
        extnID: '2.5.29.19',
        critical: true,
        extnValue: constraints.toSchema().toBER(false),
        parsedValue: constraints,
      }),
    ];
  }
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, crypto);
  await certificate.sign(options.issuer?.keys.privateKey ?? keys.privateKey, 'SHA-256', crypto);
  return { certificate, keys };
}

/** PEM text of certificates, as NFC_CSCA_CERTS_PATH holds them. */
export function toPem(...certificates: pkijs.Certificate[]): string {
  return certificates
    .map((certificate) => {
      const base64 = Buffer.from(certificate.toSchema().toBER(false)).toString('base64');
      return `-----BEGIN CERTIFICATE-----\n${base64.replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
    })
    .join('');
}

/** EF.DG1: 0x61 { 0x5F1F MRZ }. */
export function buildDg1(mrzLines: readonly string[]): Buffer {
  const mrz = new asn1js.Primitive({
    idBlock: { tagClass: 2, tagNumber: 31 },
    valueHex: toArrayBuffer(Buffer.from(mrzLines.join(''), 'latin1')),
  });
  return Buffer.from(new asn1js.Constructed({ idBlock: { tagClass: 2, tagNumber: 1 }, value: [mrz] }).toBER(false));
}

/** The LDSSecurityObject (version 0, SHA-256) over the given data groups. */
function ldsSecurityObject(dataGroups: ReadonlyMap<number, Buffer>): ArrayBuffer {
  return new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 0 }),
      new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }).toSchema(),
      new asn1js.Sequence({
        value: [...dataGroups].map(
          ([number, bytes]) =>
            new asn1js.Sequence({
              value: [
                new asn1js.Integer({ value: number }),
                new asn1js.OctetString({ valueHex: toArrayBuffer(createHash('sha256').update(bytes).digest()) }),
              ],
            }),
        ),
      }),
    ],
  }).toBER(false);
}

/** Options of `buildSod`, to make broken SODs. */
export interface SodOptions {
  /** Replace the signed LDSSecurityObject with this one after signing (signature over other content). */
  swapContentAfterSigning?: ReadonlyMap<number, Buffer>;
}

/** EF.SOD over `dataGroups`, signed by `signer` with its certificate included. */
export async function buildSod(signer: Issued, dataGroups: ReadonlyMap<number, Buffer>, options: SodOptions = {}): Promise<Buffer> {
  const content = ldsSecurityObject(dataGroups);
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: LDS_SECURITY_OBJECT_OID,
      eContent: new asn1js.OctetString({ valueHex: content }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: signer.certificate.issuer,
          serialNumber: signer.certificate.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: '1.2.840.113549.1.9.3',
              values: [new asn1js.ObjectIdentifier({ value: LDS_SECURITY_OBJECT_OID })],
            }),
            new pkijs.Attribute({
              type: '1.2.840.113549.1.9.4',
              values: [new asn1js.OctetString({ valueHex: toArrayBuffer(createHash('sha256').update(Buffer.from(content)).digest()) })],
            }),
          ],
        }),
      }),
    ],
    certificates: [signer.certificate],
  });
  await signedData.sign(signer.keys.privateKey, 0, 'SHA-256', undefined, crypto);
  if (options.swapContentAfterSigning) {
    signedData.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: ldsSecurityObject(options.swapContentAfterSigning) });
  }
  const contentInfo = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
  // 0x77: application class, constructed, tag number 23.
  return Buffer.from(new asn1js.Constructed({ idBlock: { tagClass: 2, tagNumber: 23 }, value: [contentInfo.toSchema()] }).toBER(false));
}

/** A complete, genuine chip: CSCA, DS, DG1 for `mrzLines`, a DG2 blob, and the SOD. */
export async function buildChip(mrzLines: readonly string[]) {
  const csca = await issueCertificate('Utopia CSCA', { ca: true });
  const ds = await issueCertificate('Utopia Document Signer', { issuer: csca });
  const dg1 = buildDg1(mrzLines);
  const dg2 = Buffer.concat([Buffer.from([0x75, 0x82, 0x00, 0x10]), randomBytes(16)]);
  const sod = await buildSod(
    ds,
    new Map([
      [1, dg1],
      [2, dg2],
    ]),
  );
  return { csca, ds, dg1, dg2, sod };
}

/** The `nfc` input field for chip bytes. */
export function nfcInput(chip: { sod: Buffer; dg1: Buffer; dg2?: Buffer }): { sod: string; dg1: string; dg2?: string } {
  return {
    sod: chip.sod.toString('base64'),
    dg1: chip.dg1.toString('base64'),
    ...(chip.dg2 ? { dg2: chip.dg2.toString('base64') } : {}),
  };
}
