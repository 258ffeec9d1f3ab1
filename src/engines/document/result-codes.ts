/**
 * The document engine's result codes, apart from the engine itself: the GraphQL types and the
 * REST facade describe them at start, and importing them from engine.ts would load the OCR, image
 * and NFC modules into every process that serves the API (the engine runs on pool threads).
 */

/**
 * Every `result_code` this engine returns, first match wins in this order (documented with
 * meanings in docs/id-verification.md).
 */
export const DOCUMENT_RESULT_CODES = [
  'image_too_small',
  'image_blurry',
  'mrz_not_found',
  'barcode_unreadable',
  'barcode_invalid',
  'mrz_mismatch',
  'unknown_issuing_state',
  'document_type_mismatch',
  'country_mismatch',
  'document_expired',
  'nfc_signature_invalid',
  'vds_signature_invalid',
  'viz_mrz_mismatch',
  'barcode_front_mismatch',
  'clear',
] as const;
/** One result code of this engine. */
export type DocumentResultCode = (typeof DOCUMENT_RESULT_CODES)[number];

/**
 * The `result_code` catalogue as the GraphQL schema describes it, built from
 * `DOCUMENT_RESULT_CODES` so that a new code cannot be left out (OpenAPI lists them as an enum).
 */
export const DOCUMENT_RESULT_CODES_DESCRIPTION = `Machine-readable summary, one of ${DOCUMENT_RESULT_CODES.map((code) => `\`${code}\``).join(', ')} (first match wins, in this order; meanings in docs/id-verification.md). Sandbox keys may also get \`document_tampered\` and \`manual_review_required\` (docs/sandbox.md).`;
