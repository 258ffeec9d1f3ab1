/**
 * NFC passive authentication of an ePassport chip (ICAO 9303 Part 11): the client reads the chip
 * and sends the Document Security Object (EF.SOD: tag 0x77 wrapping a CMS SignedData whose
 * content is the LDSSecurityObject, the list of data-group hashes) with DG1 (the MRZ) and
 * optionally DG2 (the portrait).
 *
 * Steps: decode the SOD, verify the CMS signature with the Document Signer (DS) certificate it
 * embeds, chain that certificate to a configured CSCA certificate (NFC_CSCA_CERTS_PATH; there is
 * no ICAO master list offline), hash DG1/DG2 with the SOD's algorithm and compare, and finally
 * (in the engine, once the photo is read) compare DG1's MRZ with the printed one.
 *
 * Malformed chip data (not base64, not a SOD, not a DG1) is a 400 on the field, like a bad image;
 * well-formed chip data that does not verify is a `failed` check. A valid signature without a
 * trust anchor is `warning` (`csca_not_configured`), never `passed`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { ConfigError } from '../../shared/config.js';
import { validationError } from '../../shared/errors.js';
import type { CheckOutcome } from '../details.js';

/** Chip data read by the client, each data group base64 as read from the chip. */
export interface NfcPassiveAuthenticationData {
  /** EF.SOD: the Document Security Object (tag 0x77 wrapping a CMS SignedData). */
  sod: string;
  /** EF.DG1: the MRZ as stored on the chip. */
  dg1: string;
  /** EF.DG2: the encoded portrait, when read. */
  dg2?: string;
}

/** Why passive authentication did not pass; also the warning code the engine lists. */
export type NfcReasonCode =
  'csca_not_configured' | 'nfc_signature_invalid' | 'nfc_certificate_untrusted' | 'nfc_hash_mismatch' | 'nfc_mrz_mismatch';

/** Outcome of passive authentication. */
export interface NfcVerification {
  /** `passed` (trusted signature, hashes hold), `warning` (valid but no CSCA configured), `failed`, or `skipped`. */
  outcome: CheckOutcome;
  /** Machine-readable reason when not `passed`/`skipped`, for the warnings list. */
  reasonCode?: NfcReasonCode;
  /** Why the check did not pass, for the warnings list. */
  reason?: string;
  /** The MRZ stored in DG1 (lines joined, no separators), to compare with the printed one. */
  chipMrz?: string;
}

/** Trust settings of passive authentication. */
export interface NfcTrustOptions {
  /** Country Signing CA certificates a DS certificate must chain to; none configured → `warning`. */
  cscaCertificates?: readonly pkijs.Certificate[];
  /** Date the DS and CSCA certificates must be valid at. @default now */
  checkDate?: Date;
}

/** eContentType of the LDSSecurityObject (ICAO 9303 Part 10, id-icao-mrtd-security-ldsSecurityObject). */
const LDS_SECURITY_OBJECT_OID = '2.23.136.1.1.1';

/** Hash algorithms a SOD may name, OID → Node crypto name. */
const HASH_ALGORITHMS: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** pkijs crypto engine over Node's WebCrypto, passed explicitly so no global engine is set. */
const cryptoEngine = new pkijs.CryptoEngine({ name: 'node', crypto: globalThis.crypto });

/** The decoded parts of EF.SOD this check needs. */
interface DecodedSod {
  signedData: pkijs.SignedData;
  /** Node crypto name of the data-group hash algorithm. */
  hashAlgorithm: string;
  /** Data-group number → hash. */
  hashes: Map<number, Buffer>;
}

function badField(field: string, message: string): never {
  throw validationError([{ field, code: 'invalid', message }]);
}

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function decodeBase64(value: string, field: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 === 1) badField(field, `${field} must be base64`);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0) badField(field, `${field} must not be empty`);
  return bytes;
}

/** Parses one complete BER element, or null when the bytes are not exactly one element. */
function parseBer(bytes: Buffer | ArrayBuffer): asn1js.AsnType | null {
  const parsed = asn1js.fromBER(bytes instanceof ArrayBuffer ? bytes : toArrayBuffer(bytes));
  if (parsed.offset === -1) return null;
  return parsed.result;
}

/** Decodes EF.SOD (0x77 → ContentInfo → SignedData → LDSSecurityObject); throws a 400 when it is not one. */
function decodeSod(bytes: Buffer): DecodedSod {
  const field = 'nfc.sod';
  const outer = parseBer(bytes);
  // 0x77 = application class (tagClass 2), constructed, tag number 23.
  if (!outer || outer.idBlock.tagClass !== 2 || outer.idBlock.tagNumber !== 23 || !(outer instanceof asn1js.Constructed))
    badField(field, 'nfc.sod is not an EF.SOD (tag 0x77)');
  const inner = outer.valueBlock.value[0];
  if (!inner) badField(field, 'nfc.sod is empty');
  let signedData: pkijs.SignedData | null = null;
  try {
    const contentInfo = new pkijs.ContentInfo({ schema: inner });
    if (contentInfo.contentType === pkijs.ContentInfo.SIGNED_DATA) signedData = new pkijs.SignedData({ schema: contentInfo.content });
  } catch {
    // pkijs throws on any structure that does not fit its schema: the same 400 as a wrong type.
  }
  if (!signedData) badField(field, 'nfc.sod does not hold a CMS SignedData');
  const encapsulated = signedData.encapContentInfo;
  if (encapsulated.eContentType !== LDS_SECURITY_OBJECT_OID || !encapsulated.eContent)
    badField(field, 'nfc.sod does not hold an LDSSecurityObject');
  const lds = parseBer(encapsulated.eContent.getValue());
  // LDSSecurityObject ::= SEQUENCE { version, hashAlgorithm AlgorithmIdentifier, dataGroupHashValues SEQUENCE OF DataGroupHash }
  if (!(lds instanceof asn1js.Sequence) || lds.valueBlock.value.length < 3) badField(field, 'nfc.sod holds a malformed LDSSecurityObject');
  const [, algorithmBlock, hashesBlock] = lds.valueBlock.value;
  let algorithmOid: string;
  try {
    algorithmOid = new pkijs.AlgorithmIdentifier({ schema: algorithmBlock }).algorithmId;
  } catch {
    badField(field, 'nfc.sod holds a malformed LDSSecurityObject');
  }
  const hashAlgorithm = HASH_ALGORITHMS[algorithmOid];
  if (!hashAlgorithm) badField(field, `nfc.sod uses an unsupported hash algorithm (${algorithmOid})`);
  if (!(hashesBlock instanceof asn1js.Sequence)) badField(field, 'nfc.sod holds a malformed LDSSecurityObject');
  const hashes = new Map<number, Buffer>();
  for (const entry of hashesBlock.valueBlock.value) {
    const [number, hash] = entry instanceof asn1js.Sequence ? entry.valueBlock.value : [];
    if (!(number instanceof asn1js.Integer) || !(hash instanceof asn1js.OctetString))
      badField(field, 'nfc.sod holds a malformed data-group hash');
    hashes.set(number.valueBlock.valueDec, Buffer.from(hash.getValue()));
  }
  return { signedData, hashAlgorithm, hashes };
}

/** Reads the MRZ out of EF.DG1 (tag 0x61 → 0x5F1F); throws a 400 when it is not a DG1. */
function decodeDg1Mrz(bytes: Buffer): string {
  const field = 'nfc.dg1';
  const outer = parseBer(bytes);
  // 0x61 = application class, constructed, tag number 1; 0x5F1F = application class, tag number 31.
  if (!outer || outer.idBlock.tagClass !== 2 || outer.idBlock.tagNumber !== 1 || !(outer instanceof asn1js.Constructed))
    badField(field, 'nfc.dg1 is not an EF.DG1 (tag 0x61)');
  const mrz = outer.valueBlock.value.find((element) => element.idBlock.tagClass === 2 && element.idBlock.tagNumber === 31);
  if (!(mrz instanceof asn1js.Primitive)) badField(field, 'nfc.dg1 holds no MRZ (tag 0x5F1F)');
  const text = Buffer.from(mrz.valueBlock.valueHexView).toString('latin1');
  if (!/^[A-Z0-9<]+$/.test(text)) badField(field, 'nfc.dg1 holds no MRZ (tag 0x5F1F)');
  return text;
}

function sameHash(expected: Buffer, actual: Buffer): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function failed(reasonCode: NfcReasonCode, reason: string, chipMrz?: string): NfcVerification {
  return { outcome: 'failed', reasonCode, reason, ...(chipMrz ? { chipMrz } : {}) };
}

/**
 * Verifies the chip data's signature, trust chain and data-group hashes. Undefined data is
 * `skipped`; malformed data throws a 400 `ApiError`. The result carries DG1's MRZ so the engine
 * can compare it with the printed one (`compareChipMrz`).
 */
export async function verifyPassiveAuthentication(
  data: NfcPassiveAuthenticationData | undefined,
  options: NfcTrustOptions = {},
): Promise<NfcVerification> {
  if (data === undefined) return { outcome: 'skipped' };
  const sodBytes = decodeBase64(data.sod, 'nfc.sod');
  const dg1Bytes = decodeBase64(data.dg1, 'nfc.dg1');
  const dg2Bytes = data.dg2 === undefined ? undefined : decodeBase64(data.dg2, 'nfc.dg2');
  const sod = decodeSod(sodBytes);
  const chipMrz = decodeDg1Mrz(dg1Bytes);
  const checkDate = options.checkDate ?? new Date();

  let signer: pkijs.Certificate | null | undefined;
  try {
    const result = await sod.signedData.verify({ signer: 0, checkChain: false, extendedMode: true, checkDate }, cryptoEngine);
    if (!result.signatureVerified) return failed('nfc_signature_invalid', 'The SOD signature does not verify.', chipMrz);
    signer = result.signerCertificate;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failed('nfc_signature_invalid', `The SOD signature does not verify: ${message}`, chipMrz);
  }
  if (!signer) return failed('nfc_signature_invalid', 'The SOD carries no Document Signer certificate.', chipMrz);

  for (const [number, bytes] of [
    [1, dg1Bytes],
    [2, dg2Bytes],
  ] as const) {
    if (!bytes) continue;
    const expected = sod.hashes.get(number);
    if (!expected) return failed('nfc_hash_mismatch', `The SOD holds no hash for DG${number}.`, chipMrz);
    const actual = createHash(sod.hashAlgorithm).update(bytes).digest();
    if (!sameHash(expected, actual)) return failed('nfc_hash_mismatch', `DG${number} does not match its hash in the SOD.`, chipMrz);
  }

  const anchors = options.cscaCertificates ?? [];
  if (anchors.length === 0)
    return {
      outcome: 'warning',
      reasonCode: 'csca_not_configured',
      reason: 'The chip signature is valid, but no CSCA certificates are configured (NFC_CSCA_CERTS_PATH), so the signer is not trusted.',
      chipMrz,
    };
  const chain = await new pkijs.CertificateChainValidationEngine({
    trustedCerts: [...anchors],
    certs: [signer],
    checkDate,
  }).verify({}, cryptoEngine);
  if (!chain.result)
    return failed(
      'nfc_certificate_untrusted',
      `The Document Signer certificate does not chain to a configured CSCA: ${chain.resultMessage}`,
      chipMrz,
    );
  return { outcome: 'passed', chipMrz };
}

/**
 * Compares DG1's MRZ with the printed MRZ read from the photo: a verified chip whose MRZ differs
 * from the page is a page that does not belong to the chip (`failed`). Other outcomes pass through.
 */
export function compareChipMrz(chip: NfcVerification, printedLines: readonly string[] | null): NfcVerification {
  if (chip.outcome !== 'passed' && chip.outcome !== 'warning') return chip;
  if (!printedLines || !chip.chipMrz) return chip;
  if (printedLines.join('') === chip.chipMrz) return chip;
  return failed('nfc_mrz_mismatch', 'The MRZ stored on the chip (DG1) differs from the printed MRZ.', chip.chipMrz);
}

/** Parses a PEM bundle of CSCA certificates; throws with the path when it holds none or a bad one. */
export function parseCscaBundle(pem: string, source = 'CSCA bundle'): pkijs.Certificate[] {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) throw new Error(`${source} holds no PEM certificate`);
  return blocks.map((block, index) => {
    try {
      return pkijs.Certificate.fromBER(Buffer.from(block[1].replace(/\s+/g, ''), 'base64'));
    } catch {
      throw new Error(`${source}: certificate ${index + 1} is not a valid X.509 certificate`);
    }
  });
}

/** Reads the PEM bundle NFC_CSCA_CERTS_PATH names, at start-up (a bad bundle stops the process). */
export function loadCscaBundle(path: string): pkijs.Certificate[] {
  return parseCscaBundle(readFileSync(path, 'utf8'), path);
}

/** The CSCA certificates a server trusts for NFC passive authentication (empty: chips are read, not trusted). */
export type NfcTrust = readonly pkijs.Certificate[];

/** Loads the CSCA certificates NFC_CSCA_CERTS_PATH names (none without it); a bad bundle is a configuration error that stops the start. */
export function loadNfcTrust(path: string | undefined): NfcTrust {
  try {
    return path ? loadCscaBundle(path) : [];
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  NFC_CSCA_CERTS_PATH: ${error instanceof Error ? error.message : String(error)}`);
  }
}
