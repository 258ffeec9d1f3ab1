/**
 * The live proof-of-address engine (`openkyc:poa_ocr`): text from the document, fields from the
 * text, then four checks and a status. Rules (also in docs/poa.md):
 *
 * - name_match: `skipped` without `expected_name`; `passed` when the addressee (or a name line
 *   of the document) is at least `NAME_MATCH_MIN_SIMILARITY` similar to it after the AML name
 *   normalisation (case, diacritics, titles, token order); otherwise `warning` plus a
 *   `name_mismatch` warning. Never fails the document (spec: a mismatch is a warning).
 * - freshness: `passed` when the issue date is at most `max_age_days` days before today (UTC);
 *   `failed` when strictly more (the standalone endpoint answers 422 `document_too_old`);
 *   `review` when no issue date was found or it lies more than `FUTURE_TOLERANCE_DAYS` ahead.
 * - geocode: the offline plausibility check of geocode.ts.
 * - tamper_score: regional ELA for images and scanned PDFs, structure for PDFs (max of both).
 *
 * Status, first rule that applies: freshness failed → `failed` (`document_too_old`);
 * tamper_score ≥ `TAMPER_FAIL_SCORE` → `failed` (`document_tampered`); tamper_score ≥
 * `TAMPER_REVIEW_SCORE` → `review` (`tamper_suspected`); freshness review → `review`
 * (`issue_date_unreadable` / `issue_date_in_future`); geocode review or failed → `review`
 * (`address_unverifiable`); otherwise `passed` (`clear`), with warnings listed. A warning
 * leaves the status `passed`; in a session it sends the decision to review.
 */
import type { Warning } from '../../domain/types.js';
import { fieldValidationError } from '../../shared/input-rules.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { nameSimilarity } from '../aml/score.js';
import { decodeDataUri, MAX_INPUT_PIXELS, UndecodableImageError } from '../data-uri.js';
import { ENGINE_TIME_BUDGET_MS, withTimeBudget } from '../deadline.js';
import type { CheckOutcome, ProofOfAddressDetails } from '../details.js';
import { POA_DEFAULT_MAX_AGE_DAYS, POA_MIME_TYPES, type ProofOfAddressInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { ageInDays } from './dates.js';
import { extractFields } from './fields.js';
import { checkAddress, type GeocodeReason } from './geocode.js';
import type { DocumentLayout } from './layout.js';
import { recognizeText } from './ocr.js';
import { PdfLimitError, UnreadablePdfError } from './pdf-errors.js';
import { readPdfInWorker } from './pdf-worker.js';
import { elaTamperScore } from './tamper.js';

/** Lowest name similarity (0–1, AML `nameSimilarity`) for `name_match` to pass. */
export const NAME_MATCH_MIN_SIMILARITY = 0.85;
/** Tamper score at or above which the document fails. */
export const TAMPER_FAIL_SCORE = 0.8;
/** Tamper score at or above which a human must look. */
export const TAMPER_REVIEW_SCORE = 0.5;
/** Days an issue date may lie in the future (time zones, post-dated letters) before it is suspicious. */
export const FUTURE_TOLERANCE_DAYS = 1;
/** Fewest letters or digits of text for a document to count as readable. */
export const MIN_READABLE_CHARS = 15;

/** How the tamper score was computed. */
export type TamperMethod = 'ela' | 'pdf_structure' | 'pdf_structure+ela';

/** Where the text came from. */
export type TextSource = 'image_ocr' | 'pdf_text' | 'pdf_scan_ocr';

/** Everything the engine concluded, for the node result and the standalone endpoint. */
export interface PoaAnalysis {
  /** `passed`, `review` or `failed`. */
  status: 'passed' | 'review' | 'failed';
  /** Non-blocking findings. */
  warnings: Warning[];
  /** The node result details. */
  details: ProofOfAddressDetails;
  /** Age of the document in days when an issue date was found (for the 422 message). */
  ageDays?: number;
  /** The limit applied, in days. */
  maxAgeDays: number;
}

/** Options of the engine, for tests. */
export interface PoaEngineOptions {
  /** The clock "today" is taken from (UTC calendar day). @default () => new Date() */
  now?: () => Date;
  /** Time budget of reading the document (PDF text, OCR, ELA), in milliseconds. @default ENGINE_TIME_BUDGET_MS */
  timeBudgetMs?: number;
}

const unreadable = (message: string) => fieldValidationError('documentImage', 'unreadable', message);

const overLimit = (message: string) => fieldValidationError('documentImage', 'limit_exceeded', message);

/** Text and tamper evidence of a decoded document. */
async function readDocument(
  mimeType: string,
  bytes: Buffer,
): Promise<{ text: string; layout?: DocumentLayout; source: TextSource; tamperScore: number; tamperMethod: TamperMethod }> {
  try {
    if (mimeType !== 'application/pdf') {
      const [{ text, layout }, tamperScore] = await Promise.all([recognizeText(bytes), elaTamperScore(bytes)]);
      return { text, layout, source: 'image_ocr', tamperScore, tamperMethod: 'ela' };
    }
    const pdf = await readPdfInWorker(bytes);
    if (pdf.scans.length === 0)
      return { text: pdf.text, layout: pdf.layout, source: 'pdf_text', tamperScore: pdf.structureScore, tamperMethod: 'pdf_structure' };
    const texts: string[] = [];
    const layout: DocumentLayout = { rows: [], blocks: [] };
    let ela = 0;
    for (const [index, scan] of pdf.scans.entries()) {
      const page = await recognizeText(scan, index + 1);
      texts.push(page.text);
      layout.rows.push(...page.layout.rows);
      layout.blocks.push(...page.layout.blocks);
      ela = Math.max(ela, await elaTamperScore(scan));
    }
    return {
      text: texts.join('\n\n'),
      layout,
      source: 'pdf_scan_ocr',
      tamperScore: Math.max(pdf.structureScore, ela),
      tamperMethod: 'pdf_structure+ela',
    };
  } catch (error) {
    if (error instanceof UnreadablePdfError) throw unreadable(`documentImage is not a PDF we can read (${error.message}).`);
    if (error instanceof PdfLimitError) throw overLimit(`documentImage is refused: ${error.message}.`);
    if (error instanceof UndecodableImageError)
      throw error.overPixelLimit
        ? overLimit(`documentImage is refused: it has more than ${MAX_INPUT_PIXELS} pixels.`)
        : unreadable('documentImage could not be decoded as an image.');
    // sharp's decoding errors: the bytes passed the signature check but are not a valid image.
    if (
      error instanceof Error &&
      /Input buffer|Input file|corrupt|Vips|pngload|jpegload|spng|unsupported image format|premature end|end of stream|truncated/i.test(
        error.message,
      )
    ) {
      throw unreadable('documentImage could not be decoded as an image.');
    }
    throw error;
  }
}

const GEOCODE_WARNINGS: Partial<Record<GeocodeReason, string>> = {
  country_mismatch: 'The address names a country other than the one given.',
  postcode_missing: "No postcode of the country's format was found in the address.",
  state_invalid: 'The address has a state code that does not exist.',
  province_postcode_mismatch: 'The postal code does not belong to the province in the address.',
  no_address: 'No address was found on the document.',
};

/** Runs the whole analysis on one input (already validated, or validated here with 400s). */
export async function analyseProofOfAddress(input: ProofOfAddressInput, options: PoaEngineOptions = {}): Promise<PoaAnalysis> {
  const now = (options.now ?? (() => new Date()))();
  const { mimeType, bytes } = decodeDataUri(input.documentImage, 'documentImage', POA_MIME_TYPES);
  const maxAgeDays = input.maxAgeDays ?? POA_DEFAULT_MAX_AGE_DAYS;
  const country = input.country?.toUpperCase();

  const document = await withTimeBudget(
    readDocument(mimeType, bytes),
    options.timeBudgetMs ?? ENGINE_TIME_BUDGET_MS,
    'Reading document_image',
  );
  if (document.text.replace(/[^\p{L}\p{N}]/gu, '').length < MIN_READABLE_CHARS) {
    throw unreadable(
      document.source === 'pdf_text'
        ? 'The PDF has no text layer and no embedded page scan we can read (JPEG, or 8-bit grey/RGB bitmap); send a JPEG or PNG photo of the page.'
        : 'No text could be read from document_image; send a sharper, well-lit JPEG or PNG of the whole page.',
    );
  }

  const fields = extractFields(document.text, {
    country,
    expectedName: input.expectedName,
    similarity: nameSimilarity,
    layout: document.layout,
  });
  const warnings: Warning[] = [];

  let nameMatch: CheckOutcome = 'skipped';
  if (input.expectedName !== undefined) {
    const similarity = fields.name ? nameSimilarity(input.expectedName, fields.name) : 0;
    nameMatch = similarity >= NAME_MATCH_MIN_SIMILARITY ? 'passed' : 'warning';
    if (nameMatch === 'warning') {
      const message = fields.name
        ? `The document is addressed to "${fields.name}", not to the expected name.`
        : 'No addressee name was found on the document.';
      warnings.push({ code: 'name_mismatch', message, field: 'expected_name' });
    }
  }

  let freshness: CheckOutcome = 'review';
  let ageDays: number | undefined;
  let freshnessCode = 'issue_date_unreadable';
  if (fields.issuedAt) {
    ageDays = ageInDays(fields.issuedAt, now);
    if (ageDays > maxAgeDays) freshness = 'failed';
    else if (ageDays < -FUTURE_TOLERANCE_DAYS) freshnessCode = 'issue_date_in_future';
    else freshness = 'passed';
  }
  if (freshness === 'review') {
    warnings.push({
      code: freshnessCode,
      message:
        freshnessCode === 'issue_date_in_future'
          ? `The issue date ${fields.issuedAt} is in the future.`
          : 'No issue date was found on the document.',
      field: 'document_image',
    });
  }

  const geocode = checkAddress(fields.addressLines, country);
  const geocodeWarning = GEOCODE_WARNINGS[geocode.reason];
  if (geocodeWarning) warnings.push({ code: 'address_unverifiable', message: geocodeWarning, field: 'document_image' });
  if (!fields.issuer)
    warnings.push({
      code: 'issuer_not_found',
      message: 'No issuer (utility, bank or authority) was found on the document.',
      field: 'document_image',
    });

  const tamperScore = document.tamperScore;
  let status: PoaAnalysis['status'] = 'passed';
  let resultCode = 'clear';
  if (freshness === 'failed') [status, resultCode] = ['failed', 'document_too_old'];
  else if (tamperScore >= TAMPER_FAIL_SCORE) [status, resultCode] = ['failed', 'document_tampered'];
  else if (tamperScore >= TAMPER_REVIEW_SCORE) [status, resultCode] = ['review', 'tamper_suspected'];
  else if (freshness === 'review') [status, resultCode] = ['review', freshnessCode];
  else if (geocode.outcome === 'review' || geocode.outcome === 'failed') [status, resultCode] = ['review', 'address_unverifiable'];

  const details: ProofOfAddressDetails = {
    resultCode,
    extracted: { name: fields.name, address: fields.addressLines.join(', '), issuer: fields.issuer, issuedAt: fields.issuedAt ?? '' },
    checks: { nameMatch, geocode: geocode.outcome, freshness, tamperScore },
    tamperMethod: document.tamperMethod,
    textSource: document.source,
    geocodeReason: geocode.reason,
  };
  return { status, warnings, details, ageDays, maxAgeDays };
}

/** Creates the live `proof_of_address` engine. */
export function createLivePoaEngine(options: PoaEngineOptions = {}): NodeEngine<ProofOfAddressInput> {
  const provider = NODE_CATALOGUE.proof_of_address.providers[0];
  return {
    provider,
    nodeType: 'proof_of_address',
    async run(input) {
      const analysis = await analyseProofOfAddress(input, options);
      return { status: analysis.status, provider, warnings: analysis.warnings, details: analysis.details };
    },
  };
}

/** The live engine on the real clock, as listed in `CPU_ENGINES`. */
export const livePoaEngine = createLivePoaEngine();
