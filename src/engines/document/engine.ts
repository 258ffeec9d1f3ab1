/**
 * The live ID document engine (`openkyc:mrz_ocr`): image quality, MRZ reading and ICAO 9303
 * check digits, expiry, consistency with the requested country and type, NFC passive
 * authentication. Result codes are catalogued in docs/id-verification.md; the sandbox engine
 * (`sandbox/document-sandbox.ts`) uses the same codes and details shape.
 */
import type { NodeResult, NodeStatus, Warning } from '../../domain/types.js';
import { validationError } from '../../shared/errors.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import type { CheckOutcome, DocumentChecks, DocumentVerificationDetails } from '../details.js';
import { TWO_SIDED_ID_TYPES, type DocumentVerificationInput } from '../inputs.js';
import { expectedDetailsWarnings } from '../../domain/node-outcome.js';
import type { EngineContext, NodeEngine } from '../node-engine.js';
import { decodeDataUri } from '../data-uri.js';
import { classifyStateCode, icaoToIso2 } from '../../shared/icao-countries.js';
import { assessQuality, decodeDocumentImage, DOCUMENT_IMAGE_TYPES, MAX_DOCUMENT_IMAGE_BYTES, type DocumentImage } from './image.js';
import { readMrz, readPageLines, readPageLinesTurned, type MrzSearchOptions } from './mrz-reader.js';
import { withRecapture } from './recapture.js';
import { checkNamesAgainstViz, NAME_MIN_CONFIDENCE } from './names.js';
import type { MrzRead, PageLine } from './mrz-text.js';
import { compareVizWithMrz, mrzSeenSideways, readVisualZone, readVisualZoneByMrz, type VizFields } from './viz.js';
import { compareChipMrz, verifyPassiveAuthentication, type NfcVerification } from './nfc.js';
import {
  BARCODE_UNREADABLE_WARNING,
  barcodeWarnings,
  crossCheckBarcode,
  expectsAamva,
  extractedFromAamva,
  readBarcodes,
  type BarcodeDecoder,
  type BarcodeRead,
  type FrontFields,
} from './barcodes.js';
import type { VdsTrust } from './vds.js';
import { readLicenceFront } from './licence-front.js';
import { DOCUMENT_RESULT_CODES, type DocumentResultCode } from './result-codes.js';

/** Provider name of this engine, as workflows name it. */
export const MRZ_OCR_PROVIDER = 'openkyc:mrz_ocr';

/** ID types whose documents always carry an MRZ: a photo without one cannot be that document. */
const MRZ_REQUIRED_TYPES: readonly string[] = ['PASSPORT'];

/** Options of the engine, for tests. */
export interface DocumentEngineOptions {
  /** Today, for the expiry check. @default () => new Date() */
  now?: () => Date;
  /** Reads an MRZ from a photo. @default the PaddleOCR reader of `mrz-reader.ts` */
  readMrz?: (bytes: Buffer, options?: MrzSearchOptions) => Promise<MrzRead | null>;
  /** Reads the text lines of a photo whose MRZ was not read (a card's front, a page without a readable MRZ). @default `readPageLines` of `mrz-reader.ts` */
  readPage?: (bytes: Buffer) => Promise<PageLine[]>;
  /** Reads the text lines of a photo turned quarter turns clockwise: the visual zone of an MRZ page photographed sideways. @default `readPageLinesTurned` of `mrz-reader.ts` */
  readPageTurned?: (bytes: Buffer, quarterTurns: 1 | 3) => Promise<PageLine[]>;
  /** CSCA certificates for NFC passive authentication. @default none (the engine's thread passes the server's `NfcTrust`) */
  cscaCertificates?: NonNullable<Parameters<typeof verifyPassiveAuthentication>[1]>['cscaCertificates'];
  /** Signer certificates of visible digital seals. @default none (the engine's thread passes the server's VDS_SIGNER_CERTS_PATH) */
  vdsSigners?: VdsTrust;
  /** Reads the barcodes of a photo. @default zxing-wasm (`barcode-reader.ts`) */
  readBarcodes?: BarcodeDecoder;
}

/** The warning that explains an NFC outcome other than `passed`/`skipped`. */
function nfcWarnings(nfc: NfcVerification): Warning[] {
  if (!nfc.reasonCode || !nfc.reason) return [];
  return [{ code: nfc.reasonCode, message: nfc.reason, field: 'nfc' }];
}

/** What a document check produces: the node result's status, warnings and details. */
export type DocumentOutcome = Omit<NodeResult, 'required' | 'provider'> & { details: DocumentVerificationDetails };

/**
 * Years after today within which an expiry is read in this century (a passport is valid 10 years
 * at most; 50 leaves room for any card). ICAO 9303 prints two digits and leaves the century to
 * the reader: an expiry `98` is 1998 in 2026, not 2098.
 */
export const EXPIRY_FUTURE_WINDOW_YEARS = 50;

/**
 * `YYMMDD` → `YYYY-MM-DD`. Birth: the latest such year not after this year. Expiry: the year in
 * this century unless that is `EXPIRY_FUTURE_WINDOW_YEARS` or more ahead (then the previous
 * century), and never before the birth year (then the next century).
 */
export function mrzDate(value: string | null | undefined, kind: 'birth' | 'expiry', today: Date, birthYear?: number): string | null {
  if (!value || !/^\d{6}$/.test(value)) return null;
  const yy = Number(value.slice(0, 2));
  const thisYear = today.getUTCFullYear();
  let year = thisYear - (thisYear % 100) + yy;
  if (kind === 'birth') {
    if (year > thisYear) year -= 100;
  } else {
    if (year >= thisYear + EXPIRY_FUTURE_WINDOW_YEARS) year -= 100;
    if (birthYear !== undefined && year < birthYear) year += 100;
  }
  return `${year}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
}

/** The MRZ's document code agrees with the requested type (only types we know; others pass). */
function typeMatches(idType: string, documentCode: string | null | undefined): boolean {
  if (!documentCode) return false;
  const isPassport = documentCode.startsWith('P');
  if (idType === 'PASSPORT') return isPassport;
  if (['NATIONAL_ID', 'RESIDENCE_PERMIT', 'DRIVERS_LICENSE'].includes(idType)) return !isPassport;
  return true;
}

/** Which photos to search for the MRZ, in order: cards print it on the back, passports on the data page. */
function mrzSides(idType: string, front: DocumentImage, back: DocumentImage | null): DocumentImage[] {
  if (back && TWO_SIDED_ID_TYPES.includes(idType)) return [back, front];
  return back ? [front, back] : [front];
}

/** Builds a result; `status` follows from the code (see the catalogue). */
function outcome(
  input: DocumentVerificationInput,
  code: DocumentResultCode,
  status: NodeStatus,
  checks: DocumentChecks,
  extracted: DocumentVerificationDetails['extracted'],
  warnings: Warning[],
): DocumentOutcome {
  return {
    status,
    warnings,
    details: { resultCode: code, documentType: input.idType, issuingCountry: input.country, checks, extracted },
  };
}

const NOTHING_READ: DocumentVerificationDetails['extracted'] = {
  firstName: null,
  lastName: null,
  dateOfBirth: null,
  documentNumber: null,
  expiryDate: null,
  nationality: null,
  nationalityCode: null,
  issuingState: null,
  sex: null,
  documentCode: null,
  mrzFormat: null,
};

/**
 * Runs the document check. Input problems (missing fields, bad data URIs, undecodable images, a
 * missing back for two-sided types) are 400s thrown as `ApiError`; everything about the document
 * itself is a result.
 */
export async function verifyDocument(
  input: DocumentVerificationInput,
  context: EngineContext | null,
  options: DocumentEngineOptions = {},
): Promise<DocumentOutcome> {
  const today = (options.now ?? (() => new Date()))();
  const read = options.readMrz ?? readMrz;
  const twoSided = TWO_SIDED_ID_TYPES.includes(input.idType);
  if (twoSided && (input.imageBack === undefined || input.imageBack === null || input.imageBack === '')) {
    throw validationError([{ field: 'imageBack', code: 'required', message: `imageBack is required for ${input.idType}` }]);
  }
  const front = await decodeDocumentImage(input.imageFront, 'imageFront');
  const back = input.imageBack ? await decodeDocumentImage(input.imageBack, 'imageBack') : null;
  // Before OCR, so malformed chip data is a 400 without the cost of reading the photo.
  const chip = await verifyPassiveAuthentication(input.nfc, {
    cscaCertificates: options.cscaCertificates ?? [],
    checkDate: today,
  });
  // Until the printed MRZ is read, the chip's own verification stands (early results keep it).
  const warnings: Warning[] = nfcWarnings(chip);
  const skippedChecks: DocumentChecks = {
    documentAuthentic: 'skipped',
    mrzMatch: 'skipped',
    expiryCheck: 'skipped',
    nfcSignature: chip.outcome,
  };

  for (const [side, image] of [
    ['image_front', front],
    ['image_back', back],
  ] as const) {
    if (!image) continue;
    const quality = await assessQuality(image);
    if (quality.problem) {
      warnings.push({
        code: quality.problem,
        field: side,
        message: `${side} is ${quality.problem === 'image_blurry' ? 'too blurry' : 'too small'} to read.`,
      });
      return outcome(input, quality.problem, 'failed', { ...skippedChecks, documentAuthentic: 'failed' }, NOTHING_READ, warnings);
    }
  }

  const barcodes = await readBarcodes(front, back, options.vdsSigners ?? [], today, options.readBarcodes);
  let mrz: MrzRead | null = null;
  let mrzBytes: Buffer | null = null;
  const readBytes: Buffer[] = [];
  // A US or Canadian licence or ID card prints an MRZ, if any (enhanced licences), on the back:
  // the front is not searched (one OCR pass less; its text is read once, for the comparison).
  const aamvaSide = back !== null && expectsAamva(input.country, input.idType);
  const sides = aamvaSide ? [back] : mrzSides(input.idType, front, back);
  // Once its barcode is read, the back's MRZ is only a cross-check: one that the photo shows is
  // read, but none is hunted for (turns, the bottom band: three OCR passes a back without one paid).
  const search: MrzSearchOptions = { search: aamvaSide && barcodes.aamva ? 'shown' : 'thorough' };
  for (const image of sides) {
    // One photo sent as both sides (a client with a single capture) is read once.
    if (readBytes.some((bytes) => bytes.equals(image.bytes))) continue;
    readBytes.push(image.bytes);
    const candidate = await read(image.bytes, search);
    if (candidate && (!mrz || candidate.valid)) {
      mrz = candidate;
      mrzBytes = image.bytes;
    }
    if (mrz?.valid) break;
  }
  const readPage = options.readPage ?? readPageLines;
  if (!mrz && (barcodes.aamva || expectsAamva(input.country, input.idType))) {
    return barcodeOutcome(input, barcodes, () => readPage(front.bytes), today, context, warnings, skippedChecks);
  }
  if (!mrz) {
    // Many driving licences and older ID cards have no MRZ: that is not evidence of forgery, but
    // nothing was verified either, so a human decides; a passport always has one, unless its
    // printed page was read (then its fields, at lower confidence, go to a human instead).
    const viz = readVisualZone(await readPage(front.bytes));
    const fromViz = vizExtracted(viz, today);
    const status: NodeStatus = fromViz || !MRZ_REQUIRED_TYPES.includes(input.idType) ? 'review' : 'failed';
    if (fromViz)
      warnings.push({
        code: 'fields_from_visual_zone',
        field: 'image_front',
        message: 'No MRZ was read; the fields come from the printed page (lower confidence) and need a human look.',
      });
    return outcome(input, 'mrz_not_found', status, { ...skippedChecks, mrzMatch: 'failed' }, fromViz ?? NOTHING_READ, warnings);
  }

  const nfc = compareChipMrz(chip, mrz.lines);
  // Only the chip's warning is listed so far; a page that does not belong to the chip replaces it.
  if (nfc !== chip) warnings.splice(0, warnings.length, ...nfcWarnings(nfc));
  const fields = mrz.fields;
  const names = checkNamesAgainstViz(mrz.nameField, mrz.pageText ?? []);
  const dateOfBirth = mrzDate(fields.birthDate, 'birth', today);
  const expiryDate = mrzDate(fields.expirationDate, 'expiry', today, dateOfBirth ? Number(dateOfBirth.slice(0, 4)) : undefined);
  const extracted: DocumentVerificationDetails['extracted'] = {
    firstName: names.firstName,
    lastName: names.lastName,
    dateOfBirth,
    documentNumber: fields.documentNumber,
    expiryDate,
    nationality: fields.nationality ? icaoToIso2(fields.nationality) : null,
    nationalityCode: fields.nationality,
    issuingState: fields.issuingState,
    sex: fields.sex,
    documentCode: fields.documentCode,
    mrzFormat: mrz.format,
  };
  // The visual zone: on the page the MRZ was read from, or, for a card whose MRZ is on the back,
  // on its front (one more OCR pass).
  const vizLines = mrz.pageLines ?? [];
  const frontLines =
    back && !front.bytes.equals(back.bytes) && mrzSides(input.idType, front, back)[0] === back ? await readPage(front.bytes) : [];
  // The MRZ's page is read by ICAO 9303 geometry above the MRZ; a separate front by its captions.
  const placement = { format: mrz.format, issuingState: fields.issuingState };
  let placed = readVisualZoneByMrz(vizLines, placement, today);
  // A valid MRZ read from a page photographed sideways: its lines give no geometry to place the
  // zone by; the page is read again turned a quarter each way (one or two OCR passes, on such
  // pages only), and the turn that shows the MRZ upright places the zone.
  if (placed.zone === 'unlocated' && mrz.valid && mrzBytes && mrzSeenSideways(vizLines)) {
    const readTurned = options.readPageTurned ?? readPageLinesTurned;
    for (const quarterTurns of [3, 1] as const) {
      const turnedPlaced = readVisualZoneByMrz(await readTurned(mrzBytes, quarterTurns), placement, today);
      if (turnedPlaced.zone === 'unlocated') continue;
      placed = turnedPlaced;
      break;
    }
  }
  const fromFront = readVisualZone(frontLines);
  const frontRead = Object.values(fromFront).some((value) => value !== null);
  const viz: VizFields = frontRead
    ? (Object.fromEntries(
        Object.entries(fromFront).map(([key, value]) => [key, value ?? placed.fields[key as keyof VizFields]]),
      ) as VizFields)
    : placed.fields;
  const vizZone = frontRead ? 'located' : placed.zone;
  const vizCheck = compareVizWithMrz(viz, fields);
  if (viz.last_name || viz.full_name) extracted.lastNameViz = viz.last_name ?? viz.full_name;
  if (viz.first_name) extracted.firstNameViz = viz.first_name;
  const vizMismatch = mrz.valid && vizCheck.mismatches.length > 0;
  if (vizMismatch)
    warnings.push({
      code: 'viz_mrz_mismatch',
      field: vizCheck.mismatches[0].field,
      message: `The printed page disagrees with the MRZ: ${vizCheck.mismatches.map((m) => `${m.field} printed ${JSON.stringify(m.viz)}, MRZ ${JSON.stringify(m.mrz)}`).join('; ')}.`,
    });
  const mrzMatch: CheckOutcome = mrz.valid ? (vizMismatch ? 'review' : 'passed') : 'failed';
  const state = stateVerdict(fields.issuingState, input.country);
  const typeOk = typeMatches(input.idType, fields.documentCode);
  const todayIso = today.toISOString().slice(0, 10);
  const expiryCheck: CheckOutcome = expiryDate === null ? 'skipped' : expiryDate < todayIso ? 'failed' : 'passed';
  const authentic: CheckOutcome = state.outcome === 'failed' || !typeOk || mrzMatch === 'failed' ? 'failed' : state.outcome;
  const checks: DocumentChecks = {
    // No print-feature analysis: "authentic" here means the MRZ is well-formed, its check digits
    // hold and it names the requested country and type (docs/id-verification.md); a specimen or
    // withdrawn state code is a warning.
    documentAuthentic: authentic,
    mrzMatch,
    expiryCheck,
    nfcSignature: nfc.outcome,
  };
  if (
    input.documentNumber &&
    extracted.documentNumber &&
    input.documentNumber.replace(/\s/g, '').toUpperCase() !== extracted.documentNumber
  ) {
    warnings.push({ code: 'document_number_mismatch', field: 'document_number', message: 'document_number does not match the MRZ.' });
  }
  if (context) {
    warnings.push(
      ...expectedDetailsWarnings(
        {
          country: input.country,
          first_name: extracted.firstName ?? undefined,
          last_name: extracted.lastName ?? undefined,
          date_of_birth: extracted.dateOfBirth ?? undefined,
        },
        context.expectedDetails,
      ),
    );
  }
  if (mrz.valid && !names.confirmed && mrz.nameConfidence < NAME_MIN_CONFIDENCE) {
    // Names carry no check digit: a name the page does not confirm, read with low confidence,
    // may be misread, so a human looks rather than the wrong name being accepted silently.
    warnings.push({
      code: 'mrz_name_unconfirmed',
      field: 'last_name',
      message: `The MRZ names were read with low confidence (${mrz.nameConfidence.toFixed(2)}) and the visual zone does not confirm them.`,
    });
  }
  if (!typeOk)
    warnings.push({
      code: 'document_type_mismatch',
      field: 'id_type',
      message: `The MRZ document code ${fields.documentCode || '?'} is not a ${input.idType}.`,
    });
  if (mrz.valid && state.warning) warnings.push(state.warning);
  if (mrz.valid && fields.nationality && classifyStateCode(fields.nationality).kind === 'unknown')
    warnings.push({
      code: 'unknown_nationality',
      field: 'nationality',
      message: `The MRZ nationality ${fields.nationality} is not a known ICAO code.`,
    });

  const code: DocumentResultCode =
    mrzMatch === 'failed'
      ? 'mrz_mismatch'
      : state.code === 'unknown_issuing_state'
        ? 'unknown_issuing_state'
        : !typeOk
          ? 'document_type_mismatch'
          : state.code === 'country_mismatch'
            ? 'country_mismatch'
            : expiryCheck === 'failed'
              ? 'document_expired'
              : nfc.outcome === 'failed'
                ? 'nfc_signature_invalid'
                : vizMismatch
                  ? 'viz_mrz_mismatch'
                  : 'clear';
  // An unknown state with valid check digits is not a broken document, but nothing says which
  // country issued it; a page that disagrees with its MRZ may be forged or misread: a human decides.
  const status: NodeStatus =
    code === 'clear' ? 'passed' : code === 'unknown_issuing_state' || code === 'viz_mrz_mismatch' ? 'review' : 'failed';
  const result = outcome(input, code, status, checks, extracted, warnings);
  result.details.viz = { fields: { ...viz }, zone: vizZone, compared: vizCheck.compared, mismatches: vizCheck.mismatches };
  if (barcodes.found) {
    const front: FrontFields = {
      source: 'mrz',
      last_name: extracted.lastName,
      given_names: extracted.firstName,
      date_of_birth: extracted.dateOfBirth,
      expiry_date: extracted.expiryDate,
      document_number: extracted.documentNumber,
      mrz_lines: mrz.lines,
    };
    applyBarcodeFindings(result, barcodes, front);
  }
  return result;
}

/** Replaces a result's code and status with a worse one (earlier in `DOCUMENT_RESULT_CODES`); a better one leaves it. */
function escalate(result: DocumentOutcome, code: DocumentResultCode, status: NodeStatus): void {
  const current = DOCUMENT_RESULT_CODES.indexOf(result.details.resultCode as DocumentResultCode);
  if (current !== -1 && current <= DOCUMENT_RESULT_CODES.indexOf(code)) return;
  result.details.resultCode = code;
  if (result.status !== 'failed') result.status = status;
}

/**
 * Adds what the barcodes say to a result read from the MRZ: the barcode details, the comparison
 * with the MRZ, and a seal's signature. A seal whose signature fails fails the document; a
 * barcode that disagrees with the front sends it to review.
 */
function applyBarcodeFindings(result: DocumentOutcome, read: BarcodeRead, front: FrontFields): void {
  crossCheckBarcode(read, front);
  result.details.barcode = read.details;
  result.warnings.push(...barcodeWarnings(read));
  if (read.details.vds?.signature === 'invalid') escalate(result, 'vds_signature_invalid', 'failed');
  if (read.details.mismatches.length > 0) escalate(result, 'barcode_front_mismatch', 'review');
}

/** AAMVA country code → the ISO-2 the request names. */
const AAMVA_COUNTRY_ISO2: Record<string, string> = { USA: 'US', CAN: 'CA', MEX: 'MX' };

/**
 * A document without a readable MRZ whose data is, or must be, in an AAMVA barcode (US and
 * Canadian licences and ID cards): the fields come from the barcode and are compared with the
 * printed front. A licence whose barcode cannot be read asks for a retake of the back; a barcode
 * that is not valid AAMVA data goes to a human.
 */
async function barcodeOutcome(
  input: DocumentVerificationInput,
  read: BarcodeRead,
  readFront: () => Promise<PageLine[]>,
  today: Date,
  context: EngineContext | null,
  warnings: Warning[],
  skippedChecks: DocumentChecks,
): Promise<DocumentOutcome> {
  const record = read.aamva;
  if (!record) {
    const invalid = read.details.aamvaError !== undefined;
    warnings.push(...barcodeWarnings(read));
    if (!invalid) warnings.push({ ...BARCODE_UNREADABLE_WARNING });
    // A retake needs no fields; a barcode that is no AAMVA data goes to a human, who gets the printed ones.
    const fromViz = invalid ? (vizExtracted(readVisualZone(await readFront()), today) ?? NOTHING_READ) : NOTHING_READ;
    const result = outcome(
      input,
      invalid ? 'barcode_invalid' : 'barcode_unreadable',
      invalid ? 'review' : 'failed',
      { ...skippedChecks, documentAuthentic: 'failed' },
      fromViz,
      warnings,
    );
    result.details.barcode = read.details;
    return result;
  }
  const fields = extractedFromAamva(record);
  const extracted: DocumentVerificationDetails['extracted'] = {
    ...NOTHING_READ,
    ...fields,
    issuingState: record.fields.state,
    source: 'barcode',
  };
  const printed = readLicenceFront(await readFront(), input.country);
  crossCheckBarcode(read, {
    source: 'viz',
    last_name: printed.last_name,
    given_names: printed.first_name,
    date_of_birth: printed.date_of_birth,
    expiry_date: printed.expiry_date,
    document_number: printed.document_number,
  });
  read.details.front = printed;
  warnings.push(...barcodeWarnings(read));
  const country = record.fields.country ? (AAMVA_COUNTRY_ISO2[record.fields.country] ?? record.fields.country) : null;
  const countryOk = country === null || country === input.country;
  if (!countryOk)
    warnings.push({
      code: 'country_mismatch',
      field: 'country',
      message: `The barcode names country ${record.fields.country}, not ${input.country}.`,
    });
  const typeOk = record.documentType === 'DL' ? input.idType === 'DRIVERS_LICENSE' : input.idType !== 'DRIVERS_LICENSE';
  if (!typeOk)
    warnings.push({
      code: 'document_type_mismatch',
      field: 'id_type',
      message: `The barcode describes ${record.documentType === 'DL' ? 'a driving licence' : 'an ID card'}, not a ${input.idType}.`,
    });
  if (context)
    warnings.push(
      ...expectedDetailsWarnings(
        {
          country: input.country,
          first_name: record.fields.firstName ?? undefined,
          last_name: record.fields.lastName ?? undefined,
          date_of_birth: record.fields.dateOfBirth ?? undefined,
        },
        context.expectedDetails,
      ),
    );
  const todayIso = today.toISOString().slice(0, 10);
  const expiryCheck: CheckOutcome = extracted.expiryDate === null ? 'skipped' : extracted.expiryDate < todayIso ? 'failed' : 'passed';
  const mismatch = read.details.mismatches.length > 0;
  const code: DocumentResultCode = !countryOk
    ? 'country_mismatch'
    : !typeOk
      ? 'document_type_mismatch'
      : expiryCheck === 'failed'
        ? 'document_expired'
        : read.details.vds?.signature === 'invalid'
          ? 'vds_signature_invalid'
          : mismatch
            ? 'barcode_front_mismatch'
            : 'clear';
  const status: NodeStatus = code === 'clear' ? 'passed' : code === 'barcode_front_mismatch' ? 'review' : 'failed';
  const checks: DocumentChecks = {
    // No MRZ: "authentic" here means the barcode is well-formed AAMVA data naming the requested country and type.
    documentAuthentic: countryOk && typeOk ? 'passed' : 'failed',
    mrzMatch: 'skipped',
    expiryCheck,
    nfcSignature: skippedChecks.nfcSignature,
  };
  const result = outcome(input, code, status, checks, extracted, warnings);
  result.details.barcode = read.details;
  return result;
}

/**
 * The extracted fields from the visual zone alone, when it gives a name and a date of birth (the
 * least a human reviewer needs); null otherwise. Names as printed; `source` says `viz`.
 */
function vizExtracted(viz: VizFields, today: Date): DocumentVerificationDetails['extracted'] | null {
  const lastName = viz.last_name ?? viz.full_name;
  if (!lastName || !viz.date_of_birth) return null;
  const dateOfBirth = mrzDate(viz.date_of_birth, 'birth', today);
  return {
    ...NOTHING_READ,
    firstName: viz.first_name,
    lastName,
    dateOfBirth,
    documentNumber: viz.document_number,
    expiryDate: mrzDate(viz.expiry_date, 'expiry', today, dateOfBirth ? Number(dateOfBirth.slice(0, 4)) : undefined),
    lastNameViz: lastName,
    firstNameViz: viz.first_name,
    source: 'viz',
  };
}

/** How the MRZ issuing state stands against the requested country. */
interface StateVerdict {
  /** `document_authentic`'s share: passed, warning (specimen, withdrawn or non-standard code) or failed. */
  outcome: CheckOutcome;
  /** The result code the state alone decides, if any. */
  code: 'country_mismatch' | 'unknown_issuing_state' | null;
  /** The finding to list. */
  warning: Warning | null;
}

/**
 * Judges the issuing state: a country's code must be the requested country; a withdrawn code one
 * of its successors; a specimen code (`UTO`) names no country, so it passes with a warning (and a
 * session then goes to review); an unknown code is its own result, since the check digits hold.
 */
function stateVerdict(issuingState: string | null, country: string): StateVerdict {
  const printed = issuingState ?? '?';
  const finding = (code: string, message: string): Warning => ({ code, field: 'country', message });
  const mismatch = (why: string): StateVerdict => ({
    outcome: 'failed',
    code: 'country_mismatch',
    warning: finding('country_mismatch', `The MRZ issuing state ${printed} ${why} ${country}.`),
  });
  const kind = issuingState ? classifyStateCode(issuingState) : ({ kind: 'unknown' } as const);
  switch (kind.kind) {
    case 'state':
      return kind.iso2 === country ? { outcome: 'passed', code: null, warning: null } : mismatch('is not');
    case 'historic':
      if (!kind.iso2.includes(country)) return mismatch('(a withdrawn code) is not');
      return {
        outcome: 'warning',
        code: null,
        warning: finding('historic_state_code', `The MRZ issuing state ${printed} is a withdrawn code, read as ${country}.`),
      };
    case 'nonstandard':
      if (kind.iso2 !== country) return mismatch('is not');
      return {
        outcome: 'warning',
        code: null,
        warning: finding('nonstandard_state_code', `The MRZ issuing state ${printed} is an ISO-2 code, not ICAO alpha-3.`),
      };
    case 'specimen':
      return {
        outcome: 'warning',
        code: null,
        warning: finding('specimen_state_code', `The MRZ issuing state ${printed} is a specimen code: this is a specimen document.`),
      };
    case 'organisation':
      return mismatch('is an organisation, not');
    case 'unknown':
      return {
        outcome: 'failed',
        code: 'unknown_issuing_state',
        warning: finding('unknown_issuing_state', `The MRZ issuing state ${printed} is not a known ICAO code.`),
      };
  }
}

/** Creates the live `document_verification` engine. */
export function createMrzOcrEngine(options: DocumentEngineOptions = {}): NodeEngine<DocumentVerificationInput> {
  return {
    provider: MRZ_OCR_PROVIDER,
    nodeType: 'document_verification',
    async run(input, context) {
      const result = await verifyDocument(input, context, options);
      // verifyDocument has validated the image: only its bytes are needed, not a second sharp pass.
      const front = decodeDataUri(input.imageFront, 'imageFront', DOCUMENT_IMAGE_TYPES, MAX_DOCUMENT_IMAGE_BYTES);
      return { ...(await withRecapture(result, front.bytes)), provider: NODE_CATALOGUE.document_verification.providers[0] };
    },
  };
}

/** The live engine without test options, as listed in `CPU_ENGINES` (its thread passes the NFC trust: `runEngineTask`). */
export const mrzOcrEngine = createMrzOcrEngine();
