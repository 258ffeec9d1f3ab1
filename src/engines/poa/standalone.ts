/**
 * Standalone proof-of-address check (`POST /v1/poa`, GraphQL `checkProofOfAddress`): validates
 * the body, runs the engine of the key's environment (live OCR engine for live keys, the sandbox
 * engine for sandbox keys, which also accept `sandbox:` tokens), answers 422 `document_too_old`
 * for a document issued more than `max_age_days` days ago, and otherwise keeps the result in
 * `check_run` (kind `poa`) without the document (src/engines/standalone.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantPrincipal } from '../../auth/context.js';
import type { Warning } from '../../domain/types.js';
import type { ProofOfAddressDetails } from '../details.js';
import { POA_DEFAULT_MAX_AGE_DAYS, type ProofOfAddressInput } from '../inputs.js';
import { ageInDays } from './dates.js';
import { ApiError } from '../../errors.js';
import type { Services } from '../../services.js';
import { runStandaloneCheck } from '../standalone.js';
import { parseOrThrow } from '../../validation.js';
import { CountryCodeAnyCase } from '../../sessions/node-inputs.js';

/** Largest accepted `max_age_days`: ten years; an older document proves nothing about today. */
export const POA_MAX_AGE_DAYS_LIMIT = 3650;
/** Longest accepted `expected_name`, in characters. */
export const POA_EXPECTED_NAME_MAX_LENGTH = 300;

/** Body of `POST /v1/poa` (snake_case, strict: no coercion, unknown fields refused). */
export const CheckProofOfAddressInputSchema = z
  .object({
    document_image: z.string().min(1, 'document_image must not be empty'),
    expected_name: z.string().trim().min(1, 'expected_name must not be empty').max(POA_EXPECTED_NAME_MAX_LENGTH).optional(),
    country: CountryCodeAnyCase.optional(),
    max_age_days: z
      .number()
      .int('max_age_days must be an integer')
      .min(1, 'max_age_days must be a positive integer')
      .max(POA_MAX_AGE_DAYS_LIMIT)
      .optional(),
  })
  .strict();

/** Accepted input of checkProofOfAddress. */
export type CheckProofOfAddressInput = z.input<typeof CheckProofOfAddressInputSchema>;

/**
 * The spec's proof-of-address result, plus `result_code`, `warnings` and how the checks were made:
 * the node details' shape (one definition), with the id and status of the stored check.
 */
export type PoaResult = Pick<ProofOfAddressDetails, 'result_code' | 'extracted' | 'checks' | 'tamper_method'> & {
  /** Id of the stored check. */
  poa_id: string;
  /** `passed`, `review` or `failed` (a document too old is a 422, not a result). */
  status: 'passed' | 'review' | 'failed';
  /** Non-blocking findings (name mismatch, unverifiable address, ...). */
  warnings: Warning[];
};

/** Checks one proof-of-address document with the engine of the key's environment and stores the result for the tenant. */
export async function checkProofOfAddress(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  input: unknown,
): Promise<PoaResult> {
  const data = parseOrThrow(CheckProofOfAddressInputSchema, input);
  const engineInput: ProofOfAddressInput = {
    document_image: data.document_image,
    ...(data.expected_name !== undefined ? { expected_name: data.expected_name } : {}),
    ...(data.country !== undefined ? { country: data.country } : {}),
    ...(data.max_age_days !== undefined ? { max_age_days: data.max_age_days } : {}),
  };
  return runStandaloneCheck(em, services, principal, 'proof_of_address', engineInput, async (engine, context, id) => {
    const analysis = await engine.run(engineInput, context);
    const details = analysis.details as ProofOfAddressDetails;
    if (details.checks.freshness === 'failed') {
      const ageDays = ageInDays(details.extracted.issued_at, new Date());
      throw new ApiError(
        'document_too_old',
        `The document was issued on ${details.extracted.issued_at}, ${ageDays ?? '?'} days ago; max_age_days is ${data.max_age_days ?? POA_DEFAULT_MAX_AGE_DAYS}.`,
      );
    }
    const result: PoaResult = {
      poa_id: id,
      status: analysis.status as PoaResult['status'],
      result_code: details.result_code,
      extracted: { ...details.extracted },
      checks: { ...details.checks },
      ...(details.tamper_method !== undefined ? { tamper_method: details.tamper_method } : {}),
      warnings: analysis.warnings.map((warning) => ({ ...warning })),
    };
    // The result only: the document itself is never stored.
    return { status: result.status, result, stored: { ...result } };
  });
}
