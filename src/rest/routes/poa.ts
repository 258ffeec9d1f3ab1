import { z } from 'zod';
import { CheckProofOfAddressDocument, type ProofOfAddressResultFieldsFragment } from '../../graphql/generated/operations.js';
import { CHECK_PROOF_OF_ADDRESS_FIELDS as fields, poaResultJson, type PoaResult } from '../../checks/poa-check.js';
import { defineRoute } from '../route.js';

const Outcome = z.enum(['passed', 'failed', 'review', 'warning', 'skipped']);

/** The spec's proof-of-address result JSON, plus result_code, tamper_method and warnings. */
export const PoaResultJson = z.object({
  poa_id: z.string(),
  status: z.enum(['passed', 'review', 'failed']),
  result_code: z.string(),
  extracted: z.object({ name: z.string(), address: z.string(), issuer: z.string(), issued_at: z.string() }),
  checks: z.object({ name_match: Outcome, geocode: Outcome, freshness: Outcome, tamper_score: z.number().min(0).max(1) }),
  tamper_method: z.string().optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), field: z.string().optional() })),
});

type PoaResultBody = z.infer<typeof PoaResultJson>;

/** Shapes a proof-of-address result for REST (absent fields left out, not null). */
export function presentPoaResult(result: ProofOfAddressResultFieldsFragment): PoaResultBody {
  return poaResultJson({
    ...result,
    status: result.status as PoaResult['status'],
    checks: result.checks as PoaResult['checks'],
    tamperMethod: result.tamperMethod ?? undefined,
    warnings: result.warnings.map((warning) => ({ ...warning, field: warning.field ?? undefined })),
  });
}

/** Body of `POST /v1/poa` (snake_case, strict: no coercion, unknown fields refused), from the service's field rules. */
const CheckProofOfAddressBody = z
  .object({
    document_image: fields.documentImage,
    expected_name: fields.expectedName.optional(),
    country: fields.country.optional(),
    max_age_days: fields.maxAgeDays.optional(),
  })
  .strict();

/** Proof-of-address routes. */
export const poaRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/poa',
    operationId: 'checkProofOfAddress',
    summary: 'Checks a utility bill, bank statement or government letter; 422 document_too_old past max_age_days (default 90).',
    tag: 'Proof of address',
    operation: CheckProofOfAddressDocument,
    body: CheckProofOfAddressBody,
    variables: ({ body }) => ({
      input: {
        documentImage: body.document_image,
        expectedName: body.expected_name,
        country: body.country,
        maxAgeDays: body.max_age_days,
      },
    }),
    status: 200,
    present: (data) => presentPoaResult(data.checkProofOfAddress),
    response: PoaResultJson,
    problems: ['document_too_old', 'engines_busy', 'engine_timeout'],
  }),
];
