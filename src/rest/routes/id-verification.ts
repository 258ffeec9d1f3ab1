import { z } from 'zod';
import { DOCUMENT_RESULT_CODES } from '../../engines/document/result-codes.js';
import { SANDBOX_CATALOGUE } from '../../engines/sandbox/catalogue.js';
import { VerifyIdDocumentDocument, type IdVerificationResultFieldsFragment } from '../../graphql/generated/operations.js';
import { idVerificationResultJson, VERIFY_ID_DOCUMENT_FIELDS as fields, type IdVerificationResult } from '../../checks/document-check.js';
import { defineRoute } from '../route.js';

const Outcome = z.enum(['passed', 'failed', 'review', 'warning', 'skipped']);

/** Every `result_code` a check can carry: the live engine's and the sandbox's, so the document lists each. */
const ResultCode = z.enum([
  ...new Set([
    ...DOCUMENT_RESULT_CODES,
    SANDBOX_CATALOGUE.document_verification.otherwise.resultCode,
    ...SANDBOX_CATALOGUE.document_verification.values.map((value) => value.resultCode),
  ]),
]);

/** AAMVA DL/ID fields of a US or Canadian licence or ID card (src/engines/document/aamva.ts); null when the card does not print one. */
const AamvaFieldsJson = z.object(
  Object.fromEntries(
    [
      'last_name',
      'first_name',
      'middle_name',
      'date_of_birth',
      'expiry_date',
      'issue_date',
      'document_number',
      'sex',
      'country',
      'state',
      'address_street',
      'address_city',
      'address_postal_code',
      'document_discriminator',
    ].map((field) => [field, z.string().nullable()]),
  ),
);

/** `barcode`: the barcodes read (the same shape as a session step's `details.barcode`). */
const BarcodeJson = z
  .object({
    symbols: z.array(
      z.object({
        format: z.enum(['PDF417', 'QRCode', 'DataMatrix']),
        side: z.enum(['image_front', 'image_back']),
        kind: z.enum(['aamva', 'vds', 'other']),
      }),
    ),
    aamva: z
      .object({
        version: z.number().int(),
        jurisdiction_version: z.number().int().nullable(),
        issuer_id: z.string(),
        issuer: z.string().nullable(),
        document_type: z.enum(['DL', 'ID']),
        subfiles: z.array(z.string()),
        fields: AamvaFieldsJson,
      })
      .optional(),
    aamva_error: z.string().optional(),
    vds: z
      .object({
        version: z.number().int(),
        issuing_country: z.string(),
        signer_reference: z.string(),
        issue_date: z.string().nullable(),
        signature_date: z.string().nullable(),
        document_type: z.string().nullable(),
        document_type_ref: z.string(),
        mrz: z.string().nullable(),
        features: z.array(z.object({ tag: z.number().int(), hex: z.string(), text: z.string().optional() })),
        signature: z.enum(['verified', 'invalid', 'not_verified']),
        signature_reason: z.string(),
      })
      .optional(),
    vds_error: z.string().optional(),
    front: z
      .object({
        last_name: z.string().nullable(),
        first_name: z.string().nullable(),
        document_number: z.string().nullable(),
        date_of_birth: z.string().nullable(),
        expiry_date: z.string().nullable(),
      })
      .optional(),
    compared: z.array(z.string()),
    mismatches: z.array(z.object({ field: z.string(), barcode: z.string(), front: z.string(), source: z.enum(['mrz', 'viz']) })),
  })
  .describe(
    'The barcodes read on the photos (docs/id-verification.md, "Barcodes"): each symbol, the AAMVA data of a US or Canadian licence or ID card, an ICAO visible digital seal (signature verified only with a configured signer certificate, otherwise not_verified), the licence front read for comparison, and the fields compared with the front and those that differ. Absent when the photos carry none.',
  );

/** The spec's ID verification result JSON, plus warnings and the echoed metadata. */
export const IdVerificationResultJson = z.object({
  verification_id: z.string(),
  status: z.enum(['passed', 'review', 'failed']),
  result_code: ResultCode,
  checks: z.object({ document_authentic: Outcome, mrz_match: Outcome, expiry_check: Outcome, nfc_signature: Outcome }),
  issuing_country: z.string().length(2),
  document_type: z.string(),
  extracted: z.object({
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    date_of_birth: z.string().nullable(),
    document_number: z.string().nullable(),
    expiry_date: z.string().nullable(),
    nationality: z.string().nullable(),
    nationality_code: z.string().nullable(),
    issuing_state: z.string().nullable(),
    sex: z.string().nullable(),
    document_code: z.string().nullable(),
    mrz_format: z.string().nullable(),
    last_name_viz: z.string().nullable().optional(),
    first_name_viz: z.string().nullable().optional(),
    source: z.enum(['mrz', 'viz', 'barcode']).optional(),
  }),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), field: z.string().optional() })),
  barcode: BarcodeJson.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

type IdVerificationResultBody = z.infer<typeof IdVerificationResultJson>;

/** Shapes an ID verification result for REST (absent fields left out, not null). */
export function presentIdVerificationResult(result: IdVerificationResultFieldsFragment): IdVerificationResultBody {
  return idVerificationResultJson({
    ...result,
    status: result.status as IdVerificationResult['status'],
    checks: result.checks as IdVerificationResult['checks'],
    // The fragment selects every extracted field; codegen types each as optional all the same.
    extracted: result.extracted as IdVerificationResult['extracted'],
    warnings: result.warnings.map((warning) => ({ ...warning, field: warning.field ?? undefined })),
    barcode: (result.barcode ?? undefined) as IdVerificationResult['barcode'],
    metadata: result.metadata ?? undefined,
  }) as IdVerificationResultBody;
}

/** Body of `POST /v1/id-verification` (snake_case, strict: no coercion, unknown fields refused), from the service's field rules. */
const VerifyIdDocumentBody = z
  .object({
    country: fields.country,
    id_type: fields.idType,
    image_front: fields.image,
    image_back: fields.image.nullable().optional(),
    enable_nfc: fields.enableNfc.optional(),
    nfc: fields.nfc.optional(),
    metadata: fields.metadata.optional(),
  })
  .strict();

/** ID verification routes. */
export const idVerificationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/id-verification',
    operationId: 'verifyIdDocument',
    summary: 'Checks one ID document: image quality, MRZ and ICAO check digits, expiry, country and type, optional NFC.',
    tag: 'ID verification',
    operation: VerifyIdDocumentDocument,
    body: VerifyIdDocumentBody,
    variables: ({ body }) => ({
      input: {
        country: body.country,
        idType: body.id_type,
        imageFront: body.image_front,
        imageBack: body.image_back,
        enableNfc: body.enable_nfc,
        nfc: body.nfc,
        metadata: body.metadata,
      },
    }),
    status: 200,
    present: (data) => presentIdVerificationResult(data.verifyIdDocument),
    response: IdVerificationResultJson,
    problems: ['engines_busy', 'engine_timeout'],
  }),
];
