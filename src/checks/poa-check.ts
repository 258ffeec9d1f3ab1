/**
 * Standalone proof-of-address check (`POST /v1/poa`, GraphQL `checkProofOfAddress`): validates
 * the body, runs the engine of the key's environment (live OCR engine for live keys, the sandbox
 * engine for sandbox keys, which also accept `sandbox:` tokens), answers 422 `document_too_old`
 * for a document issued more than `max_age_days` days ago, and otherwise keeps the result in
 * `check_run` (kind `poa`) without the document (src/checks/run-check.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantPrincipal } from '../auth/context.js';
import type { Warning } from '../domain/types.js';
import type { CheckOutcome, ProofOfAddressDetails } from '../engines/details.js';
import { POA_DEFAULT_MAX_AGE_DAYS, type ProofOfAddressInput } from '../engines/inputs.js';
import { ageInDays } from '../engines/poa/dates.js';
import { ApiError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { runStandaloneCheck } from './run-check.js';
import { storedDetails } from '../engines/stored-details.js';
import { parseOrThrow } from '../shared/validation.js';
import { CountryCodeAnyCase, definedFields, notGiven } from '../shared/input-rules.js';

/** Largest accepted `max_age_days`: ten years; an older document proves nothing about today. */
export const POA_MAX_AGE_DAYS_LIMIT = 3650;
/** Longest accepted `expected_name`, in characters. */
export const POA_EXPECTED_NAME_MAX_LENGTH = 300;

/**
 * The rule of each field, once: the service's camelCase schema and the REST body's snake_case one
 * (src/rest/routes/poa.ts) are built from these.
 */
export const CHECK_PROOF_OF_ADDRESS_FIELDS = {
  documentImage: z.string().min(1, 'must not be empty'),
  expectedName: z.string().trim().min(1, 'must not be empty').max(POA_EXPECTED_NAME_MAX_LENGTH),
  country: CountryCodeAnyCase,
  maxAgeDays: z.number().int('must be an integer').min(1, 'must be a positive integer').max(POA_MAX_AGE_DAYS_LIMIT),
} as const;

const fields = CHECK_PROOF_OF_ADDRESS_FIELDS;

/** Input of checkProofOfAddress (GraphQL's `CheckProofOfAddressInput`, and `POST /v1/poa` once mapped). */
export const CheckProofOfAddressInputSchema = z
  .object({
    documentImage: fields.documentImage,
    expectedName: notGiven(fields.expectedName),
    country: notGiven(fields.country),
    maxAgeDays: notGiven(fields.maxAgeDays),
  })
  .strict();

/** What checkProofOfAddress accepts before validation: GraphQL's `CheckProofOfAddressInput` as is. */
export type CheckProofOfAddressInput = z.input<typeof CheckProofOfAddressInputSchema>;

/** The spec's proof-of-address result, plus `resultCode`, `warnings` and how the checks were made; the id and status of the stored check. */
export interface PoaResult {
  /** Id of the stored check. */
  poaId: string;
  /** `passed`, `review` or `failed` (a document too old is a 422, not a result). */
  status: 'passed' | 'review' | 'failed';
  /** Machine-readable summary. */
  resultCode: string;
  /** Fields read from the document; empty strings for fields not found. */
  extracted: { name: string; address: string; issuer: string; issuedAt: string };
  /** Per-check outcomes. */
  checks: { nameMatch: CheckOutcome; geocode: CheckOutcome; freshness: CheckOutcome; tamperScore: number };
  /** How `tamperScore` was computed (live engine only). */
  tamperMethod?: string;
  /** Non-blocking findings (name mismatch, unverifiable address, ...). */
  warnings: Warning[];
}

/** The result as the spec writes it (snake_case, absent fields left out): the REST body and the stored check, from one mapping. */
export function poaResultJson(result: PoaResult) {
  return {
    poa_id: result.poaId,
    status: result.status,
    result_code: result.resultCode,
    // The one case flip of this check: the engine's camelCase fields, copied as they are, become the spec's snake_case.
    extracted: storedDetails(result.extracted),
    checks: storedDetails(result.checks),
    ...definedFields({ tamper_method: result.tamperMethod }),
    warnings: result.warnings.map((warning) => ({
      code: warning.code,
      message: warning.message,
      ...definedFields({ field: warning.field }),
    })),
  };
}

/** Checks one proof-of-address document with the engine of the key's environment and stores the result for the tenant. */
export async function checkProofOfAddress(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  input: CheckProofOfAddressInput,
): Promise<PoaResult> {
  const data = parseOrThrow(CheckProofOfAddressInputSchema, input);
  // The engines read the validated input as it is, less the fields not given.
  const engineInput: ProofOfAddressInput = { ...definedFields(data), documentImage: data.documentImage };
  return runStandaloneCheck(em, services, principal, 'proof_of_address', engineInput, async (engine, context, id) => {
    const analysis = await engine.run(engineInput, context);
    const details = analysis.details as ProofOfAddressDetails;
    if (details.checks.freshness === 'failed') {
      const ageDays = ageInDays(details.extracted.issuedAt, new Date());
      throw new ApiError(
        'document_too_old',
        `The document was issued on ${details.extracted.issuedAt}, ${ageDays ?? '?'} days ago; max_age_days is ${engineInput.maxAgeDays ?? POA_DEFAULT_MAX_AGE_DAYS}.`,
      );
    }
    const result: PoaResult = {
      poaId: id,
      status: analysis.status as PoaResult['status'],
      resultCode: details.resultCode,
      extracted: details.extracted,
      checks: details.checks,
      ...definedFields({ tamperMethod: details.tamperMethod }),
      warnings: analysis.warnings.map((warning) => ({ ...warning })),
    };
    // The result only: the document itself is never stored.
    return { status: result.status, result, stored: poaResultJson(result) };
  });
}
