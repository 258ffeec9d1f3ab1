import { Field, Float, ObjectType } from 'type-graphql';

/** Fields read from a proof-of-address document. */
@ObjectType('ProofOfAddressExtracted', { description: 'Fields read from the document; empty strings for fields not found.' })
export class ProofOfAddressExtractedObject {
  @Field(() => String, { description: 'Addressee.' })
  name!: string;

  @Field(() => String, { description: 'Address lines as printed, joined with ", ".' })
  address!: string;

  @Field(() => String, { description: 'Utility, bank or authority that issued the document.' })
  issuer!: string;

  @Field(() => String, { description: 'Issue date YYYY-MM-DD; empty when no date was found.' })
  issuedAt!: string;
}

/** Per-check outcomes of a proof-of-address check. */
@ObjectType('ProofOfAddressChecks', { description: 'Outcome of each check: passed, warning, review, failed or skipped.' })
export class ProofOfAddressChecksObject {
  @Field(() => String, { description: 'passed, warning (a different name) or skipped (no expected name).' })
  nameMatch!: string;

  @Field(() => String, {
    description: 'Offline address plausibility for the country (see docs/poa.md): passed, review, failed or skipped.',
  })
  geocode!: string;

  @Field(() => String, { description: 'passed, or review when no issue date was found (a document too old is DOCUMENT_TOO_OLD).' })
  freshness!: string;

  @Field(() => Float, { description: '0 (clean) to 1 (certainly edited).' })
  tamperScore!: number;
}

/** A non-blocking finding on a proof-of-address result. */
@ObjectType('ProofOfAddressWarning', { description: 'A non-blocking finding (name mismatch, unverifiable address, ...).' })
export class ProofOfAddressWarningObject {
  @Field(() => String, { description: 'Machine-readable code, e.g. name_mismatch.' })
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => String, { nullable: true, description: 'The input field the warning is about.' })
  field?: string;
}

/** The spec's proof-of-address result. */
@ObjectType('ProofOfAddressResult', { description: 'Outcome of checking one utility bill, bank statement or government letter.' })
export class ProofOfAddressResultObject {
  @Field(() => String)
  poaId!: string;

  @Field(() => String, { description: 'passed, review or failed.' })
  status!: string;

  @Field(() => String, {
    description:
      'Machine-readable summary: clear, document_tampered, tamper_suspected, address_unverifiable, issue_date_unreadable, issue_date_in_future.',
  })
  resultCode!: string;

  @Field(() => ProofOfAddressExtractedObject)
  extracted!: ProofOfAddressExtractedObject;

  @Field(() => ProofOfAddressChecksObject)
  checks!: ProofOfAddressChecksObject;

  @Field(() => String, {
    nullable: true,
    description: 'How tamperScore was computed: ela, pdf_structure or pdf_structure+ela; null for sandbox keys.',
  })
  tamperMethod?: string;

  @Field(() => [ProofOfAddressWarningObject])
  warnings!: ProofOfAddressWarningObject[];
}
