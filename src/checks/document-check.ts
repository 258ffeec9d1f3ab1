/**
 * Standalone ID document check (`POST /v1/id-verification`, GraphQL `verifyIdDocument`):
 * validates the body (spec Errors 7: `country`, `id_type`, `image_front`, and `image_back` for
 * two-sided types), runs the engine of the key's environment (the live MRZ engine for live keys,
 * the sandbox engine for sandbox keys, which also accept `sandbox:` tokens), and keeps the result
 * in `check_run` (kind `id_verification`) without the images (src/checks/run-check.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantPrincipal } from '../auth/context.js';
import type { Warning } from '../domain/types.js';
import type { DocumentChecks, DocumentVerificationDetails } from '../engines/details.js';
import { storedDetails, type StoredDetails } from '../engines/stored-details.js';
import type { DocumentBarcodeDetails } from '../engines/document/barcodes.js';
import { TWO_SIDED_ID_TYPES, type DocumentVerificationInput } from '../engines/inputs.js';
import { validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { runStandaloneCheck } from './run-check.js';
import { parseOrThrow } from '../shared/validation.js';
import { CountryCodeAnyCase, definedFields, notGiven } from '../shared/input-rules.js';

/** Longest accepted `id_type`, in characters (the list is open-ended, but not unbounded). */
export const ID_TYPE_MAX_LENGTH = 40;

/** Largest base64 chip data group, in characters (a DG2 portrait is 15–30 KB; EF.SOD a few KB). */
export const NFC_DATA_GROUP_MAX_CHARS = 200_000;

const Base64 = z
  .string()
  .min(1)
  .max(NFC_DATA_GROUP_MAX_CHARS)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');

/**
 * The rule of each field, once: the service's camelCase schema and the REST body's snake_case one
 * (src/rest/routes/id-verification.ts) are built from these.
 */
export const VERIFY_ID_DOCUMENT_FIELDS = {
  country: CountryCodeAnyCase,
  idType: z
    .string()
    .max(ID_TYPE_MAX_LENGTH)
    .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an upper-case word such as PASSPORT, DRIVERS_LICENSE, NATIONAL_ID or RESIDENCE_PERMIT'),
  image: z.string().min(1, 'must not be empty'),
  enableNfc: z.boolean(),
  nfc: z.object({ sod: Base64, dg1: Base64, dg2: Base64.optional() }).strict(),
  metadata: z.record(z.string(), z.unknown()),
} as const;

const fields = VERIFY_ID_DOCUMENT_FIELDS;

/** Input of verifyIdDocument (GraphQL's `VerifyIdDocumentInput`, and `POST /v1/id-verification` once mapped). */
export const VerifyIdDocumentInputSchema = z
  .object({
    country: fields.country,
    idType: fields.idType,
    imageFront: fields.image,
    imageBack: notGiven(fields.image),
    enableNfc: notGiven(fields.enableNfc),
    nfc: notGiven(z.object({ sod: Base64, dg1: Base64, dg2: notGiven(Base64) }).strict()),
    metadata: notGiven(fields.metadata),
  })
  .strict();

/** What verifyIdDocument accepts before validation: GraphQL's `VerifyIdDocumentInput` as is. */
export type VerifyIdDocumentInput = z.input<typeof VerifyIdDocumentInputSchema>;

/** Fields read from the document as the engine returns them, with the visual-zone names null when unread and `source` always given. */
export type IdVerificationExtracted = Omit<DocumentVerificationDetails['extracted'], 'lastNameViz' | 'firstNameViz' | 'source'> & {
  lastNameViz: string | null;
  firstNameViz: string | null;
  source: NonNullable<DocumentVerificationDetails['extracted']['source']>;
};

/** The spec's ID verification result, plus `warnings` and the echoed `metadata`. */
export interface IdVerificationResult {
  /** Id of the stored check. */
  verificationId: string;
  /** `passed`, `review` or `failed`. */
  status: 'passed' | 'review' | 'failed';
  /** Machine-readable summary; catalogue in docs/id-verification.md. */
  resultCode: string;
  /** Per-check outcomes. */
  checks: DocumentChecks;
  /** ISO-2; the requested country (a different MRZ issuing state is `country_mismatch`). */
  issuingCountry: string;
  /** The requested `idType`. */
  documentType: string;
  /** Fields parsed from the MRZ (names, number, dates, nationality, issuing state, sex, document code), so integrators need not retype them; null when unread. */
  extracted: IdVerificationExtracted;
  /** Non-blocking findings and the reasons behind a failure. */
  warnings: Warning[];
  /** The barcodes read and their comparison with the front (`details.barcode` of a session step); absent when the photos carry none. */
  barcode?: StoredDetails<DocumentBarcodeDetails>;
  /** The caller's metadata, as sent; absent when none was sent. */
  metadata?: Record<string, unknown>;
}

/** The engine's fields as the result gives them: every field present, unread ones null. */
function extractedOf(extracted: DocumentVerificationDetails['extracted']): IdVerificationExtracted {
  return {
    ...extracted,
    lastNameViz: extracted.lastNameViz ?? null,
    firstNameViz: extracted.firstNameViz ?? null,
    source: extracted.source ?? 'mrz',
  };
}

/** The result as the spec writes it (snake_case, absent fields left out): the REST body and the stored check, from one mapping. */
export function idVerificationResultJson(result: IdVerificationResult) {
  const { extracted } = result;
  return {
    verification_id: result.verificationId,
    status: result.status,
    result_code: result.resultCode,
    checks: {
      document_authentic: result.checks.documentAuthentic,
      mrz_match: result.checks.mrzMatch,
      expiry_check: result.checks.expiryCheck,
      nfc_signature: result.checks.nfcSignature,
    },
    issuing_country: result.issuingCountry,
    document_type: result.documentType,
    extracted: {
      first_name: extracted.firstName,
      last_name: extracted.lastName,
      date_of_birth: extracted.dateOfBirth,
      document_number: extracted.documentNumber,
      expiry_date: extracted.expiryDate,
      nationality: extracted.nationality,
      nationality_code: extracted.nationalityCode,
      issuing_state: extracted.issuingState,
      sex: extracted.sex,
      document_code: extracted.documentCode,
      mrz_format: extracted.mrzFormat,
      ...definedFields({
        last_name_viz: extracted.lastNameViz ?? undefined,
        first_name_viz: extracted.firstNameViz ?? undefined,
        source: extracted.source,
      }),
    },
    warnings: result.warnings.map((warning) => ({
      code: warning.code,
      message: warning.message,
      ...definedFields({ field: warning.field }),
    })),
    ...definedFields({ barcode: result.barcode, metadata: result.metadata }),
  };
}

/** Checks one ID document and stores the result (never the images) for the tenant. */
export async function verifyIdDocument(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  input: VerifyIdDocumentInput,
): Promise<IdVerificationResult> {
  const data = parseOrThrow(VerifyIdDocumentInputSchema, input);
  if (TWO_SIDED_ID_TYPES.includes(data.idType) && data.imageBack === undefined) {
    throw validationError([
      { field: 'imageBack', code: 'required', message: `the back image is required for ${data.idType} (a two-sided document)` },
    ]);
  }
  // The engines read the validated input as it is, less the caller's metadata and the fields not given.
  const { metadata, nfc, ...given } = data;
  const engineInput: DocumentVerificationInput = {
    ...definedFields(given),
    country: given.country,
    idType: given.idType,
    imageFront: given.imageFront,
    ...(nfc ? { nfc: { sod: nfc.sod, dg1: nfc.dg1, ...definedFields({ dg2: nfc.dg2 }) } } : {}),
  };
  return runStandaloneCheck(em, services, principal, 'document_verification', engineInput, async (engine, context, id) => {
    const analysis = await engine.run(engineInput, context);
    const details = analysis.details as DocumentVerificationDetails;
    const result: IdVerificationResult = {
      verificationId: id,
      status: analysis.status as IdVerificationResult['status'],
      resultCode: details.resultCode,
      checks: details.checks,
      issuingCountry: details.issuingCountry,
      documentType: details.documentType,
      extracted: extractedOf(details.extracted),
      warnings: analysis.warnings.map((warning) => ({ ...warning })),
      // GraphQL documents `barcode` as the spec's snake_case JSON, as a session step keeps it.
      ...definedFields({ barcode: details.barcode && storedDetails(details.barcode), metadata }),
    };
    // The result only: the images and chip data are never stored.
    return {
      status: result.status,
      result,
      stored: idVerificationResultJson({ ...result, metadata: undefined }),
      metadata: metadata ?? null,
    };
  });
}
