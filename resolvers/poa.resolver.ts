import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { checkProofOfAddress } from '../src/checks/poa-check.js';
import { CheckProofOfAddressInput } from './poa.input.js';
import { ProofOfAddressResultObject } from './poa.type.js';

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
    return checkProofOfAddress(context.em, context.services, principal, input);
  }
}
