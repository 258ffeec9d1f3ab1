/**
 * Standalone ID document check (`POST /v1/id-verification`, GraphQL `verifyIdDocument`):
 * validates the body (spec Errors 7: `country`, `id_type`, `image_front`, and `image_back` for
 * two-sided types), runs the engine of the key's environment (the live MRZ engine for live keys,
 * the sandbox engine for sandbox keys, which also accept `sandbox:` tokens), and keeps the result
 * in `check_run` (kind `id_verification`) without the images (src/engines/standalone.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantPrincipal } from '../../auth/context.js';
import type { Warning } from '../../domain/types.js';
import type { DocumentChecks, DocumentVerificationDetails } from '../details.js';
import { TWO_SIDED_ID_TYPES, type DocumentVerificationInput } from '../inputs.js';
import { validationError } from '../../errors.js';
import type { Services } from '../../services.js';
import { runStandaloneCheck } from '../standalone.js';
import { parseOrThrow } from '../../validation.js';
import { CountryCodeAnyCase } from '../../sessions/node-inputs.js';

/** Longest accepted `id_type`, in characters (the list is open-ended, but not unbounded). */
export const ID_TYPE_MAX_LENGTH = 40;

/** Largest base64 chip data group, in characters (a DG2 portrait is 15–30 KB; EF.SOD a few KB). */
export const NFC_DATA_GROUP_MAX_CHARS = 200_000;

const Base64 = z
  .string()
  .min(1)
  .max(NFC_DATA_GROUP_MAX_CHARS)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');

/** Body of `POST /v1/id-verification` (snake_case, strict: no coercion, unknown fields refused). */
export const VerifyIdDocumentInputSchema = z
  .object({
    country: CountryCodeAnyCase,
    id_type: z
      .string()
      .max(ID_TYPE_MAX_LENGTH)
      .regex(/^[A-Z][A-Z0-9_]*$/, 'id_type must be an upper-case word such as PASSPORT, DRIVERS_LICENSE, NATIONAL_ID or RESIDENCE_PERMIT'),
    image_front: z.string().min(1, 'image_front must not be empty'),
    image_back: z.string().min(1, 'image_back must not be empty').nullable().optional(),
    enable_nfc: z.boolean().optional(),
    nfc: z.object({ sod: Base64, dg1: Base64, dg2: Base64.optional() }).strict().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** Accepted input of verifyIdDocument. */
export type VerifyIdDocumentInput = z.input<typeof VerifyIdDocumentInputSchema>;

/** The spec's ID verification result, plus `warnings` and the echoed `metadata`. */
export interface IdVerificationResult {
  /** Id of the stored check. */
  verification_id: string;
  /** `passed`, `review` or `failed`. */
  status: 'passed' | 'review' | 'failed';
  /** Machine-readable summary; catalogue in docs/id-verification.md. */
  result_code: string;
  /** Per-check outcomes. */
  checks: DocumentChecks;
  /** ISO-2; the requested country (a different MRZ issuing state is `country_mismatch`). */
  issuing_country: string;
  /** The requested `id_type`. */
  document_type: string;
  /** Fields parsed from the MRZ (names, number, dates, nationality, issuing state, sex, document code), so integrators need not retype them; null when unread. */
  extracted: DocumentVerificationDetails['extracted'];
  /** Non-blocking findings and the reasons behind a failure. */
  warnings: Warning[];
  /** The caller's metadata, as sent; absent when none was sent. */
  metadata?: Record<string, unknown>;
}

/** Checks one ID document and stores the result (never the images) for the tenant. */
export async function verifyIdDocument(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  input: unknown,
): Promise<IdVerificationResult> {
  const data = parseOrThrow(VerifyIdDocumentInputSchema, input);
  if (TWO_SIDED_ID_TYPES.includes(data.id_type) && (data.image_back === undefined || data.image_back === null)) {
    throw validationError([
      { field: 'image_back', code: 'required', message: `image_back is required for ${data.id_type} (a two-sided document)` },
    ]);
  }
  const engineInput: DocumentVerificationInput = {
    country: data.country,
    id_type: data.id_type,
    image_front: data.image_front,
    ...(data.image_back != null ? { image_back: data.image_back } : {}),
    ...(data.enable_nfc !== undefined ? { enable_nfc: data.enable_nfc } : {}),
    ...(data.nfc !== undefined ? { nfc: data.nfc } : {}),
  };
  return runStandaloneCheck(em, services, principal, 'document_verification', engineInput, async (engine, context, id) => {
    const analysis = await engine.run(engineInput, context);
    const details = analysis.details as DocumentVerificationDetails;
    const result: IdVerificationResult = {
      verification_id: id,
      status: analysis.status as IdVerificationResult['status'],
      result_code: details.result_code,
      checks: { ...details.checks },
      issuing_country: details.issuing_country,
      document_type: details.document_type,
      extracted: { ...details.extracted },
      warnings: analysis.warnings.map((warning) => ({ ...warning })),
      ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
    };
    // The result only: the images and chip data are never stored.
    return { status: result.status, result, stored: { ...result, metadata: undefined }, metadata: data.metadata ?? null };
  });
}
