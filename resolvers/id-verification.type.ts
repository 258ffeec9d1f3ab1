import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';
import { DOCUMENT_RESULT_CODES_DESCRIPTION } from '../src/engines/document/result-codes.js';

/** Per-check outcomes of an ID document check. */
@ObjectType('IdVerificationChecks', { description: 'Outcome of each check: passed, failed, review or skipped.' })
export class IdVerificationChecksObject {
  @Field(() => String, {
    description: 'The MRZ is well-formed, its check digits hold and it names the requested country and type (no print-feature analysis).',
  })
  documentAuthentic!: string;

  @Field(() => String, { description: 'Every ICAO 9303 check digit of the MRZ holds.' })
  mrzMatch!: string;

  @Field(() => String, { description: 'The document is not expired.' })
  expiryCheck!: string;

  @Field(() => String, { description: 'NFC passive authentication of the chip; skipped unless chip data was sent and verified.' })
  nfcSignature!: string;
}

/** A non-blocking finding, or the reason behind a failure, on an ID document check. */
@ObjectType('IdVerificationWarning', {
  description: 'A finding on the document (country_mismatch, image_blurry, csca_not_configured, ...).',
})
export class IdVerificationWarningObject {
  @Field(() => String, { description: 'Machine-readable code.' })
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => String, { nullable: true, description: 'The input field the warning is about.' })
  field?: string;
}

/** Fields parsed from the document's MRZ. */
@ObjectType('IdVerificationExtracted', { description: 'Fields parsed from the MRZ; each null when it could not be read.' })
export class IdVerificationExtractedObject {
  @Field(() => String, { nullable: true, description: 'Given names, words separated by spaces.' })
  firstName!: string | null;

  @Field(() => String, { nullable: true, description: 'Family name, words separated by spaces.' })
  lastName!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD.' })
  dateOfBirth!: string | null;

  @Field(() => String, { nullable: true })
  documentNumber!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD; century chosen as docs/id-verification.md says.' })
  expiryDate!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Nationality as ISO 3166-1 alpha-2; null when the printed code names no country (XXA, UTO).',
  })
  nationality!: string | null;

  @Field(() => String, { nullable: true, description: 'Nationality code as printed (ICAO alpha-3, e.g. FRA, D, XXA).' })
  nationalityCode!: string | null;

  @Field(() => String, { nullable: true, description: 'Issuing state code as printed (ICAO alpha-3).' })
  issuingState!: string | null;

  @Field(() => String, { nullable: true, description: 'M, F or X; null when unspecified.' })
  sex!: string | null;

  @Field(() => String, { nullable: true, description: 'MRZ document code: P, I, ID, A, C, V, ...' })
  documentCode!: string | null;

  @Field(() => String, { nullable: true, description: 'MRZ layout: TD1, TD2, TD3, MRVA or MRVB.' })
  mrzFormat!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Family name as the printed page (visual zone) shows it, accents kept (MÜLLER beside the MRZ MUELLER); null when not read.',
  })
  lastNameViz?: string | null;

  @Field(() => String, { nullable: true, description: 'Given names as the printed page shows them, accents kept; null when not read.' })
  firstNameViz?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where the fields come from: mrz, or viz when no MRZ was read and the printed page was (lower confidence, for review).',
  })
  source?: string | null;
}

/** The spec's ID verification result. */
@ObjectType('IdVerificationResult', { description: 'Outcome of checking one ID document.' })
export class IdVerificationResultObject {
  @Field(() => String)
  verificationId!: string;

  @Field(() => String, { description: 'passed, review or failed.' })
  status!: string;

  @Field(() => String, { description: DOCUMENT_RESULT_CODES_DESCRIPTION })
  resultCode!: string;

  @Field(() => IdVerificationChecksObject)
  checks!: IdVerificationChecksObject;

  @Field(() => String, { description: 'ISO 3166-1 alpha-2.' })
  issuingCountry!: string;

  @Field(() => String, { description: 'Same values as idType.' })
  documentType!: string;

  @Field(() => IdVerificationExtractedObject, { description: 'Fields parsed from the MRZ.' })
  extracted!: IdVerificationExtractedObject;

  @Field(() => [IdVerificationWarningObject])
  warnings!: IdVerificationWarningObject[];

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'The barcodes read (snake_case, as in a session step\'s details): symbols, the AAMVA data of a US or Canadian licence or ID card (aamva), an ICAO visible digital seal (vds, with signature verified, invalid or not_verified), and the comparison with the front (compared, mismatches). Null when the photos carry none. docs/id-verification.md "Barcodes".',
  })
  barcode?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The metadata sent with the request, echoed back.' })
  metadata?: Record<string, unknown>;
}
