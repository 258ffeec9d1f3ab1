import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';
import { verifyIdDocument, type IdVerificationResult } from '../src/id-verification/id-verification.service.js';
import { VerifyIdDocumentInput } from './id-verification.input.js';
import { IdVerificationResultObject } from './id-verification.type.js';

/** Shapes the service's snake_case result for GraphQL. */
export function toIdVerificationResultObject(result: IdVerificationResult): IdVerificationResultObject {
  return {
    verificationId: result.verification_id,
    status: result.status,
    resultCode: result.result_code,
    checks: {
      documentAuthentic: result.checks.document_authentic,
      mrzMatch: result.checks.mrz_match,
      expiryCheck: result.checks.expiry_check,
      nfcSignature: result.checks.nfc_signature,
    },
    issuingCountry: result.issuing_country,
    documentType: result.document_type,
    extracted: {
      firstName: result.extracted.first_name,
      lastName: result.extracted.last_name,
      dateOfBirth: result.extracted.date_of_birth,
      documentNumber: result.extracted.document_number,
      expiryDate: result.extracted.expiry_date,
      nationality: result.extracted.nationality,
      nationalityCode: result.extracted.nationality_code,
      issuingState: result.extracted.issuing_state,
      sex: result.extracted.sex,
      documentCode: result.extracted.document_code,
      mrzFormat: result.extracted.mrz_format,
    },
    warnings: result.warnings.map((warning) => ({
      code: warning.code,
      message: warning.message,
      ...(warning.field !== undefined ? { field: warning.field } : {}),
    })),
    ...(result.metadata !== undefined ? { metadata: result.metadata } : {}),
  };
}

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
    return toIdVerificationResultObject(await verifyIdDocument(context.em, principal, input));
  }
}
