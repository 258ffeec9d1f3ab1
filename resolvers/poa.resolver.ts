import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';
import { checkProofOfAddress, type PoaResult } from '../src/poa/poa.service.js';
import { CheckProofOfAddressInput } from './poa.input.js';
import { ProofOfAddressResultObject } from './poa.type.js';

/** Shapes the service's snake_case result for GraphQL. */
export function toProofOfAddressResultObject(result: PoaResult): ProofOfAddressResultObject {
  return {
    poaId: result.poa_id,
    status: result.status,
    resultCode: result.result_code,
    extracted: {
      name: result.extracted.name,
      address: result.extracted.address,
      issuer: result.extracted.issuer,
      issuedAt: result.extracted.issued_at,
    },
    checks: {
      nameMatch: result.checks.name_match,
      geocode: result.checks.geocode,
      freshness: result.checks.freshness,
      tamperScore: result.checks.tamper_score,
    },
    ...(result.tamper_method !== undefined ? { tamperMethod: result.tamper_method } : {}),
    warnings: result.warnings.map((warning) => ({
      code: warning.code,
      message: warning.message,
      ...(warning.field !== undefined ? { field: warning.field } : {}),
    })),
  };
}

/** Standalone proof-of-address check. */
@Resolver(() => ProofOfAddressResultObject)
export class ProofOfAddressResolver {
  @Mutation(() => ProofOfAddressResultObject, {
    description:
      'Checks a utility bill, bank statement or government letter and stores the result (never the document). DOCUMENT_TOO_OLD when issued more than maxAgeDays days ago.',
  })
  async checkProofOfAddress(
    @Arg('input', () => CheckProofOfAddressInput) input: CheckProofOfAddressInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ProofOfAddressResultObject> {
    const principal = requireTenant(context);
    // Live keys run the OCR engine: one unit of the tenant's hourly proof-of-address quota.
    if (principal.environment === 'live') await context.services.rateLimits.chargeEngine(principal, 'poa');
    return toProofOfAddressResultObject(await checkProofOfAddress(context.em, principal, input));
  }
}
