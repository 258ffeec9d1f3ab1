/**
 * ICAO visible digital seals (VDS, ICAO 9303 Part 13): a signed barcode (Data Matrix, sometimes QR)
 * printed on visas, emergency travel documents and some residence documents. Parsed by hand:
 *
 * - header: magic `0xDC`, version byte (`0x02` = version 3, `0x03` = version 4), issuing country
 *   (C40, 2 bytes), signer identifier and certificate reference (C40: version 3 a fixed
 *   `SSSSRRRRR`, version 4 `SSSSLL` then `LL` hex characters of reference), issue and signature
 *   dates (3 bytes each, the decimal `MMDDYYYY`), document feature reference and type category;
 * - message zone: TLV features (tag, DER length, value) until the signature marker `0xFF`;
 * - signature: `0xFF`, DER length, ECDSA `r || s` over header and message.
 *
 * The signature is verified only against a configured signer certificate whose subject and serial
 * match the seal's signer reference (`VDS_SIGNER_CERTS_PATH`); without one the seal is reported
 * as not verified, never as a pass.
 */
import { createHash, createPublicKey, verify, X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../shared/config.js';

/** Why bytes were refused as a seal. */
export class VdsError extends Error {
  override name = 'VdsError';
}

/** The magic byte every seal starts with. */
export const VDS_MAGIC = 0xdc;

/** Document types ICAO 9303-13 and the German BSI TR-03137 define, by `featureRef << 8 | typeCategory`, with their MRZ feature. */
const DOCUMENT_TYPES: Record<number, { name: string; mrzTag?: number; mrzLength?: number }> = {
  0x5d01: { name: 'visa', mrzTag: 0x02 },
  0x5e03: { name: 'emergency_travel_document', mrzTag: 0x02 },
  0xfb06: { name: 'residence_permit', mrzTag: 0x02 },
  0xfa06: { name: 'supplementary_sheet', mrzTag: 0x02 },
  0xfd02: { name: 'arrival_attestation', mrzTag: 0x02 },
  0xfc04: { name: 'social_insurance_card' },
  0xf80a: { name: 'address_sticker_passport' },
  0xf908: { name: 'address_sticker_id_card' },
  0xf90c: { name: 'address_sticker_residence_permit' },
};

/** One message feature of the seal. */
export interface VdsFeature {
  tag: number;
  /** The value as hex. */
  hex: string;
  /** The value C40-decoded when it decodes (MRZ, document numbers), else absent. */
  text?: string;
}

/** A parsed seal. */
export interface VdsSeal {
  /** ICAO VDS version: 3 or 4. */
  version: 3 | 4;
  /** Issuing country, ICAO alpha-3. */
  issuing_country: string;
  /** Signer identifier: the signer certificate's country and CN (`DETS`, `UTTS`). */
  signer_identifier: string;
  /** Certificate reference as printed (the signer certificate's serial number, hex). */
  certificate_reference: string;
  /** Signer identifier and reference without leading zeros (`UTTS5B`): what a certificate is looked up by. */
  signer_reference: string;
  /** `YYYY-MM-DD`. */
  issue_date: string | null;
  /** `YYYY-MM-DD`. */
  signature_date: string | null;
  /** `featureRef typeCategory` as 4 hex digits (`5d01`). */
  document_type_ref: string;
  /** The document type's name when known (`visa`, `residence_permit`), null otherwise. */
  document_type: string | null;
  /** Message features in order. */
  features: VdsFeature[];
  /** The MRZ the seal carries (visa, emergency travel document, residence documents), lines joined by `\n`. */
  mrz: string | null;
  /** The signed bytes (header and message). */
  signed: Buffer;
  /** The signature `r || s`. */
  signature: Buffer;
}

const C40_CHARS = ' 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** C40 (as ICAO 9303-13 uses it: shift 0 set only) → text; `<` is written as a space in MRZ features and turned back. */
export function decodeC40(bytes: Buffer): string {
  let out = '';
  for (let index = 0; index < bytes.length; index += 2) {
    if (bytes[index] === 0xfe) {
      // Unlatch: the last character as ASCII + 1.
      if (index + 1 < bytes.length) out += String.fromCharCode(bytes[index + 1] - 1);
      break;
    }
    if (index + 1 >= bytes.length) throw new VdsError('A C40 value has an odd number of bytes.');
    const packed = bytes[index] * 256 + bytes[index + 1] - 1;
    for (const code of [Math.floor(packed / 1600), Math.floor(packed / 40) % 40, packed % 40]) {
      if (code === 0) continue; // shift 1 used as padding
      if (code < 3) throw new VdsError('A C40 value uses a shift set the seal format does not.');
      out += C40_CHARS[code - 3];
    }
  }
  return out;
}

/** Text → C40 bytes (shift 0 set; padding and unlatch as ICAO 9303-13 writes them); for building test seals. */
export function encodeC40(text: string): Buffer {
  const codes = [...text.toUpperCase().replace(/</g, ' ')].map((char) => {
    const code = C40_CHARS.indexOf(char);
    if (code < 0) throw new VdsError(`C40 cannot encode ${JSON.stringify(char)}.`);
    return code + 3;
  });
  const out: number[] = [];
  let index = 0;
  for (; index + 3 <= codes.length; index += 3) {
    const packed = codes[index] * 1600 + codes[index + 1] * 40 + codes[index + 2] + 1;
    out.push(packed >> 8, packed & 0xff);
  }
  const rest = codes.length - index;
  if (rest === 2) {
    const packed = codes[index] * 1600 + codes[index + 1] * 40 + 0 + 1;
    out.push(packed >> 8, packed & 0xff);
  } else if (rest === 1) out.push(0xfe, text.toUpperCase().charCodeAt(text.length - 1) + 1);
  return Buffer.from(out);
}

/** 3 bytes → the decimal `MMDDYYYY` → `YYYY-MM-DD`; null for the all-zero "no date". */
function decodeDate(bytes: Buffer): string | null {
  const number = bytes.readUIntBE(0, 3);
  if (number === 0) return null;
  const digits = String(number).padStart(8, '0');
  const [month, day, year] = [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4, 8)];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    throw new VdsError(`The seal date ${digits} is no date.`);
  return `${year}-${month}-${day}`;
}

/** `YYYY-MM-DD` → 3 bytes; for building test seals. */
export function encodeVdsDate(iso: string): Buffer {
  const [year, month, day] = iso.split('-');
  const out = Buffer.alloc(3);
  out.writeUIntBE(Number(`${month}${day}${year}`), 0, 3);
  return out;
}

/** A DER length at `at`: [length, bytes it took]. */
function derLength(bytes: Buffer, at: number): [number, number] {
  if (at >= bytes.length) throw new VdsError('The seal ends inside a length.');
  const first = bytes[at];
  if (first < 0x80) return [first, 1];
  const count = first & 0x7f;
  if (count === 0 || count > 3 || at + count >= bytes.length) throw new VdsError('The seal has a malformed length.');
  return [bytes.readUIntBE(at + 1, count), 1 + count];
}

/** A DER length's bytes; for building test seals. */
export function encodeDerLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x100) return Buffer.from([0x81, length]);
  return Buffer.from([0x82, length >> 8, length & 0xff]);
}

/** Whether bytes start like a seal (a Data Matrix or QR code of something else is not one). */
export function looksLikeVds(bytes: Buffer): boolean {
  return bytes.length > 20 && bytes[0] === VDS_MAGIC && (bytes[1] === 0x02 || bytes[1] === 0x03);
}

/** Parses a seal; throws `VdsError` with the reason when the bytes are not a well-formed one. */
export function parseVds(bytes: Buffer): VdsSeal {
  if (bytes[0] !== VDS_MAGIC) throw new VdsError('Not a visible digital seal: it does not start with the magic byte 0xDC.');
  if (bytes[1] !== 0x02 && bytes[1] !== 0x03)
    throw new VdsError(`Unsupported seal version byte 0x${(bytes[1] ?? 0).toString(16)}: 0x02 and 0x03 are read.`);
  const version = bytes[1] === 0x02 ? 3 : 4;
  let at = 2;
  const take = (count: number) => {
    if (at + count > bytes.length) throw new VdsError('The seal header is truncated.');
    const slice = bytes.subarray(at, at + count);
    at += count;
    return slice;
  };
  const issuingCountry = decodeC40(take(2));
  let signerIdentifier: string;
  let certificateReference: string;
  if (version === 3) {
    const signer = decodeC40(take(6));
    [signerIdentifier, certificateReference] = [signer.slice(0, 4), signer.slice(4)];
  } else {
    const signer = decodeC40(take(4));
    signerIdentifier = signer.slice(0, 4);
    const length = Number.parseInt(signer.slice(4, 6), signerIdentifier === 'DEZV' ? 10 : 16);
    if (!Number.isFinite(length)) throw new VdsError('The seal certificate reference length is not a number.');
    const reference = decodeC40(take(Math.ceil(length / 3) * 2));
    certificateReference = reference.slice(0, length);
  }
  const issueDate = decodeDate(take(3));
  const signatureDate = decodeDate(take(3));
  const [featureRef, typeCategory] = take(2);
  const documentRef = (featureRef << 8) | typeCategory;
  const features: VdsFeature[] = [];
  while (at < bytes.length && bytes[at] !== 0xff) {
    const tag = bytes[at];
    const [length, lengthBytes] = derLength(bytes, at + 1);
    at += 1 + lengthBytes;
    const valueBytes = take(length);
    let text: string | undefined;
    try {
      text = decodeC40(valueBytes);
    } catch {
      text = undefined;
    }
    features.push({ tag, hex: valueBytes.toString('hex'), ...(text === undefined ? {} : { text }) });
  }
  if (at >= bytes.length) throw new VdsError('The seal has no signature (the 0xFF marker is missing).');
  const signed = bytes.subarray(0, at);
  const [signatureLength, lengthBytes] = derLength(bytes, at + 1);
  at += 1 + lengthBytes;
  const signature = take(signatureLength);
  if (signature.length === 0 || signature.length % 2 !== 0) throw new VdsError('The seal signature is not an r || s pair.');
  const type = DOCUMENT_TYPES[documentRef];
  const mrzFeature = type?.mrzTag === undefined ? undefined : features.find((feature) => feature.tag === type.mrzTag);
  return {
    version,
    issuing_country: issuingCountry,
    signer_identifier: signerIdentifier,
    certificate_reference: certificateReference,
    signer_reference: `${signerIdentifier}${certificateReference.replace(/^0+(?=.)/, '')}`.toUpperCase(),
    issue_date: issueDate,
    signature_date: signatureDate,
    document_type_ref: documentRef.toString(16).padStart(4, '0'),
    document_type: type?.name ?? null,
    features,
    mrz: mrzFeature?.text ? mrzLines(mrzFeature.text, type?.name === 'visa') : null,
    signed: Buffer.from(signed),
    signature: Buffer.from(signature),
  };
}

/**
 * An MRZ feature (C40 writes `<` as a space) as its lines: a visa seal keeps the first 28
 * characters of the second line (ICAO 9303-13: no optional data), other documents both whole
 * lines of 36 (TD2) or 44 (TD3) characters.
 */
function mrzLines(text: string, visa: boolean): string {
  const mrz = text.replace(/ /g, '<');
  const width = visa ? mrz.length - 28 : mrz.length === 72 ? 36 : mrz.length === 88 ? 44 : mrz.length / 2;
  return Number.isInteger(width) ? `${mrz.slice(0, width)}\n${mrz.slice(width)}` : mrz;
}

/** A signer certificate trusted for seals, with the reference it answers to. */
export interface VdsSigner {
  /** `country code + CN + serial without leading zeros`, upper case (`UTTS5B`). */
  reference: string;
  certificate: X509Certificate;
}

/** The seal signer certificates VDS_SIGNER_CERTS_PATH names. */
export type VdsTrust = readonly VdsSigner[];

/** The reference a seal names a certificate by: subject C + CN, then the serial number in hex without leading zeros. */
export function signerReferenceOf(certificate: X509Certificate): string {
  // One attribute a line, or several in one multi-valued RDN (`C=UT + CN=TS`).
  const subject = certificate.subject.split(/\n| \+ /);
  const country = subject.find((part) => part.startsWith('C='))?.slice(2) ?? '';
  const commonName = subject.find((part) => part.startsWith('CN='))?.slice(3) ?? '';
  const serial = certificate.serialNumber.replace(/^0+(?=.)/, '');
  return `${country}${commonName}${serial}`.toUpperCase();
}

/** Certificates from a PEM bundle, a DER file, or a directory of either. */
function readCertificates(path: string): X509Certificate[] {
  if (statSync(path).isDirectory())
    return readdirSync(path)
      .filter((name) => /\.(pem|crt|cer|der)$/i.test(name))
      .flatMap((name) => readCertificates(join(path, name)));
  const bytes = readFileSync(path);
  const text = bytes.toString('latin1');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) return [new X509Certificate(bytes)];
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((match) => new X509Certificate(match[0]));
}

/** Loads the signer certificates VDS_SIGNER_CERTS_PATH names (none without it); a bad path or file stops the start. */
export function loadVdsTrust(path: string | undefined): VdsTrust {
  if (!path) return [];
  try {
    return readCertificates(path).map((certificate) => ({ reference: signerReferenceOf(certificate), certificate }));
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  VDS_SIGNER_CERTS_PATH: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A seal's signature outcome. */
export interface VdsSignatureCheck {
  /** `verified`, `invalid`, or `not_verified` (no configured certificate answers to the signer reference). */
  status: 'verified' | 'invalid' | 'not_verified';
  /** Why, in a sentence. */
  reason: string;
}

/** ECDSA hash by key size, as BSI TR-03116/ICAO 9303-13 pair them (224-bit curves SHA-224, 256 SHA-256, …). */
function hashFor(bits: number): string {
  if (bits <= 224) return 'sha224';
  if (bits <= 256) return 'sha256';
  if (bits <= 384) return 'sha384';
  return 'sha512';
}

/** Verifies a seal's signature with the configured certificate its signer reference names. */
export function verifyVdsSignature(seal: VdsSeal, trust: VdsTrust, at: Date = new Date()): VdsSignatureCheck {
  const signer = trust.find((candidate) => candidate.reference === seal.signer_reference);
  if (!signer)
    return {
      status: 'not_verified',
      reason: `not verified: certificate unknown (no configured signer certificate for ${seal.signer_reference})`,
    };
  const key = createPublicKey(signer.certificate.publicKey.export({ format: 'pem', type: 'spki' }));
  const bits = (seal.signature.length / 2) * 8;
  const valid = verify(hashFor(bits), seal.signed, { key, dsaEncoding: 'ieee-p1363' }, seal.signature);
  if (!valid) return { status: 'invalid', reason: `The seal signature does not verify with the certificate of ${seal.signer_reference}.` };
  if (
    new Date(signer.certificate.validTo) < at &&
    seal.signature_date &&
    new Date(seal.signature_date) > new Date(signer.certificate.validTo)
  )
    return { status: 'invalid', reason: `The seal was signed after the certificate of ${seal.signer_reference} expired.` };
  return { status: 'verified', reason: `The seal signature verifies with the configured certificate of ${seal.signer_reference}.` };
}

/** A short fingerprint of the signed bytes, so reviewers can tell two seals apart without the bytes. */
export function sealFingerprint(seal: VdsSeal): string {
  return createHash('sha256').update(seal.signed).digest('hex').slice(0, 16);
}
