/**
 * The barcodes of an ID document in the document step: the AAMVA PDF417 on the back of US and
 * Canadian licences and ID cards, and ICAO visible digital seals (Data Matrix or QR). Reads both
 * photos, parses what it finds, cross-checks the barcode with what the front gave (the MRZ, or the
 * printed visual zone when there is no MRZ), and verifies a seal's signature when its signer
 * certificate is configured. docs/id-verification.md ("Barcodes") documents the details.
 */
import type { Warning } from '../../domain/types.js';
import type { DocumentVerificationDetails } from '../details.js';
import { AamvaError, looksLikeAamva, parseAamva, type AamvaFields, type AamvaRecord } from './aamva.js';
import { readDocumentBarcodes, type DecodedBarcode, type DocumentBarcodeFormat } from './barcode-reader.js';
import type { DocumentImage } from './image.js';
import type { LicenceFrontFields } from './licence-front.js';
import { looksLikeVds, parseVds, verifyVdsSignature, VdsError, type VdsTrust } from './vds.js';

/** Document types whose US or Canadian issue carries an AAMVA PDF417 on the back. */
export const AAMVA_ID_TYPES: readonly string[] = ['DRIVERS_LICENSE', 'NATIONAL_ID', 'ID_CARD', 'STATE_ID'];
/** Countries whose licences and ID cards carry AAMVA data (ISO-2, as the request names them). */
export const AAMVA_COUNTRIES: readonly string[] = ['US', 'CA'];

/** Whether the request names a document that must carry an AAMVA barcode. */
export function expectsAamva(country: string, idType: string): boolean {
  return AAMVA_COUNTRIES.includes(country) && AAMVA_ID_TYPES.includes(idType);
}

/** A field the barcode and the front disagree on. */
export interface BarcodeMismatch {
  field: 'last_name' | 'first_name' | 'date_of_birth' | 'expiry_date' | 'document_number' | 'mrz';
  barcode: string;
  front: string;
  /** What the front value was read from. */
  source: 'mrz' | 'viz';
}

/** `details.barcode` of a document result. */
export type DocumentBarcodeDetails = {
  /** Each symbol read: its format, the photo it was on and what it holds. */
  symbols: { format: DocumentBarcodeFormat; side: 'image_front' | 'image_back'; kind: 'aamva' | 'vds' | 'other' }[];
  /** The AAMVA data of a US or Canadian licence or ID card. */
  aamva?: Omit<AamvaRecord, 'elements'>;
  /** Why a PDF417 that looked like AAMVA data was refused. */
  aamvaError?: string;
  /** An ICAO visible digital seal. */
  vds?: {
    version: number;
    issuingCountry: string;
    signerReference: string;
    issueDate: string | null;
    signatureDate: string | null;
    documentType: string | null;
    documentTypeRef: string;
    mrz: string | null;
    features: { tag: number; hex: string; text?: string }[];
    /** `verified`, `invalid`, or `not_verified` when no configured certificate answers to `signer_reference` (never a pass). */
    signature: 'verified' | 'invalid' | 'not_verified';
    signatureReason: string;
  };
  /** Why a seal was refused. */
  vdsError?: string;
  /** A licence without MRZ: the fields read from its printed front (`LN`, `FN`, `DOB`, `EXP`, `DL`), dates `YYYY-MM-DD`. */
  front?: LicenceFrontFields;
  /** Fields compared with the front. */
  compared: string[];
  /** Fields that differ (`barcode_front_mismatch`). */
  mismatches: BarcodeMismatch[];
};

/** What the photos' barcodes gave. */
export interface BarcodeRead {
  details: DocumentBarcodeDetails;
  /** The parsed AAMVA record, when one was read. */
  aamva: AamvaRecord | null;
  /** Whether any symbol was decoded at all. */
  found: boolean;
}

/** Reads the barcodes of a photo; the reader is replaceable for tests and the bench. */
export type BarcodeDecoder = (photo: Buffer) => Promise<DecodedBarcode[]>;

/**
 * Reads both photos (the back first: that is where licences print the PDF417), parses an AAMVA
 * PDF417 and a seal, and verifies the seal with the configured signer certificates.
 */
export async function readBarcodes(
  front: DocumentImage,
  back: DocumentImage | null,
  trust: VdsTrust,
  today: Date,
  decode: BarcodeDecoder = readDocumentBarcodes,
): Promise<BarcodeRead> {
  const details: DocumentBarcodeDetails = { symbols: [], compared: [], mismatches: [] };
  let aamva: AamvaRecord | null = null;
  const sides: ['image_front' | 'image_back', DocumentImage][] = back ? [['image_back', back]] : [];
  if (!back || !back.bytes.equals(front.bytes)) sides.push(['image_front', front]);
  for (const [side, image] of sides) {
    // A licence's data is on its back: once read there, the front is not searched (a seal is never on a licence).
    if (side === 'image_front' && aamva) break;
    for (const symbol of await decode(image.bytes)) {
      const text = symbol.bytes.toString('latin1');
      if (symbol.format === 'PDF417' && looksLikeAamva(text)) {
        details.symbols.push({ format: symbol.format, side, kind: 'aamva' });
        if (aamva) continue;
        try {
          aamva = parseAamva(text);
          const { elements: _elements, ...record } = aamva;
          details.aamva = record;
          delete details.aamvaError;
        } catch (error) {
          if (!(error instanceof AamvaError)) throw error;
          details.aamvaError ??= error.message;
        }
      } else if (looksLikeVds(symbol.bytes)) {
        details.symbols.push({ format: symbol.format, side, kind: 'vds' });
        if (details.vds) continue;
        try {
          const seal = parseVds(symbol.bytes);
          const signature = verifyVdsSignature(seal, trust, today);
          details.vds = {
            version: seal.version,
            issuingCountry: seal.issuing_country,
            signerReference: seal.signer_reference,
            issueDate: seal.issue_date,
            signatureDate: seal.signature_date,
            documentType: seal.document_type,
            documentTypeRef: seal.document_type_ref,
            mrz: seal.mrz,
            features: seal.features,
            signature: signature.status,
            signatureReason: signature.reason,
          };
          delete details.vdsError;
        } catch (error) {
          if (!(error instanceof VdsError)) throw error;
          details.vdsError ??= error.message;
        }
      } else details.symbols.push({ format: symbol.format, side, kind: 'other' });
    }
  }
  return { details, aamva, found: details.symbols.length > 0 };
}

/** Letters and digits only, upper case: how names and numbers are compared across zones. */
function folded(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
}

/** What the front gave, in the barcode's terms (ISO dates), for the comparison. */
export interface FrontFields {
  source: 'mrz' | 'viz';
  last_name?: string | null;
  /** Given names as the front prints them (an MRZ holds first and middle names together). */
  given_names?: string | null;
  date_of_birth?: string | null;
  expiry_date?: string | null;
  document_number?: string | null;
  /** The MRZ lines (a seal's MRZ is compared with them). */
  mrz_lines?: string[];
}

/**
 * Compares the barcode with the front: names (the front's given names against the barcode's
 * first and middle names), dates, the document number (only against a printed visual zone: an
 * MRZ may number the card differently) and a seal's MRZ against the printed one. Fields either side
 * lacks are not judged. Fills `compared` and `mismatches` of the details.
 */
export function crossCheckBarcode(read: BarcodeRead, front: FrontFields): void {
  const { details } = read;
  const compare = (field: BarcodeMismatch['field'], barcode: string | null | undefined, printed: string | null | undefined) => {
    if (!barcode || !printed) return;
    details.compared.push(field);
    if (folded(barcode) !== folded(printed)) details.mismatches.push({ field, barcode, front: printed, source: front.source });
  };
  const fields: AamvaFields | undefined = read.aamva?.fields;
  if (fields) {
    compare('last_name', fields.lastName, front.last_name);
    if (front.given_names && fields.firstName) {
      // The front may print only the first name, or first and middle: compare as many words as it shows.
      const printedWords = front.given_names.split(/[\s<,]+/).filter(Boolean);
      const barcodeWords = [fields.firstName, fields.middleName ?? ''].join(' ').split(/\s+/).filter(Boolean);
      compare('first_name', barcodeWords.slice(0, Math.max(1, printedWords.length)).join(' '), printedWords.join(' '));
    }
    compare('date_of_birth', fields.dateOfBirth, front.date_of_birth);
    compare('expiry_date', fields.expiryDate, front.expiry_date);
    if (front.source === 'viz') compare('document_number', fields.documentNumber, front.document_number);
  }
  const sealMrz = details.vds?.mrz;
  if (sealMrz && front.mrz_lines?.length) {
    // A visa seal keeps the second line's first 28 characters only: compare what it carries.
    const sealLines = sealMrz.split('\n');
    const printed = sealLines.map((line, index) => (front.mrz_lines?.[index] ?? '').slice(0, line.length)).join('\n');
    compare('mrz', sealMrz, printed);
  }
}

/** The warnings the barcodes raise: a disagreement with the front, a refused payload, a seal not verified or invalid. */
export function barcodeWarnings(read: BarcodeRead): Warning[] {
  const { details } = read;
  const warnings: Warning[] = [];
  if (details.mismatches.length > 0)
    warnings.push({
      code: 'barcode_front_mismatch',
      field: details.mismatches[0].field,
      message: `The barcode disagrees with the front: ${details.mismatches.map((m) => `${m.field} barcode ${JSON.stringify(m.barcode)}, ${m.source} ${JSON.stringify(m.front)}`).join('; ')}.`,
    });
  if (details.aamvaError && !details.aamva)
    warnings.push({
      code: 'barcode_invalid',
      field: 'image_back',
      message: `The PDF417 barcode is not valid AAMVA data: ${details.aamvaError}`,
    });
  if (details.vdsError && !details.vds)
    warnings.push({ code: 'barcode_invalid', field: 'image_front', message: `The digital seal is malformed: ${details.vdsError}` });
  if (details.vds?.signature === 'not_verified')
    warnings.push({ code: 'vds_certificate_unknown', field: 'barcode', message: `Digital seal ${details.vds.signatureReason}.` });
  if (details.vds?.signature === 'invalid')
    warnings.push({ code: 'vds_signature_invalid', field: 'barcode', message: details.vds.signatureReason });
  return warnings;
}

/** The guidance a licence whose barcode could not be read gets (a retake). */
export const BARCODE_UNREADABLE_WARNING: Warning = {
  code: 'barcode_unreadable',
  field: 'image_back',
  message:
    'The PDF417 barcode on the back could not be read. Photograph the back flat and square, filling the frame, in even light without glare, with the whole barcode sharp.',
};

/** The extracted fields of a licence read from its barcode alone (`source: barcode`). */
export function extractedFromAamva(
  record: AamvaRecord,
): Pick<DocumentVerificationDetails['extracted'], 'firstName' | 'lastName' | 'dateOfBirth' | 'documentNumber' | 'expiryDate' | 'sex'> {
  const { fields } = record;
  return {
    firstName: [fields.firstName, fields.middleName].filter(Boolean).join(' ') || null,
    lastName: fields.lastName,
    dateOfBirth: fields.dateOfBirth,
    documentNumber: fields.documentNumber,
    expiryDate: fields.expiryDate,
    sex: fields.sex,
  };
}
