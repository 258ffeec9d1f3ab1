import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { verifyIdDocument } from '../src/checks/document-check.js';
import { VerifyIdDocumentInput } from './id-verification.input.js';
import { IdVerificationResultObject } from './id-verification.type.js';

/** Standalone ID document check. */
@Resolver(() => IdVerificationResultObject)
export class IdVerificationResolver {
  @Mutation(() => IdVerificationResultObject, {
    description:
      'Checks one ID document (image quality, MRZ and check digits, expiry, country and type, NFC) and stores the result, never the images.',
  })
  async verifyIdDocument(
    @Arg('input', () => VerifyIdDocumentInput) input: VerifyIdDocumentInput,
    @Ctx() context: GraphQLContext,
  ): Promise<IdVerificationResultObject> {
    const principal = requireTenant(context);
    // Live keys run the OCR engine: one unit of the tenant's hourly document quota.
    if (principal.environment === 'live') await context.services.rateLimits.chargeEngine(principal, 'document');
    return verifyIdDocument(context.em, context.services, principal, input);
  }
}
