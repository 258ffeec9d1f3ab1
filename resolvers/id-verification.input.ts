import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType } from 'type-graphql';

/** Chip data for NFC passive authentication, each base64 as read from the chip. */
@InputType()
export class IdVerificationNfcInput {
  @Field(() => String, { description: 'EF.SOD, the Document Security Object.' })
  sod!: string;

  @Field(() => String, { description: 'EF.DG1, the MRZ stored on the chip.' })
  dg1!: string;

  @Field(() => String, { nullable: true, description: 'EF.DG2, the portrait.' })
  dg2?: string;
}

/** Input of verifyIdDocument. */
@InputType()
export class VerifyIdDocumentInput {
  @Field(() => String, { description: 'Issuing country, ISO 3166-1 alpha-2.' })
  country!: string;

  @Field(() => String, { description: 'PASSPORT, DRIVERS_LICENSE, NATIONAL_ID, RESIDENCE_PERMIT; the list is open-ended.' })
  idType!: string;

  @Field(() => String, { description: 'data: URI of a JPEG or PNG of the front (a sandbox: token with sandbox keys).' })
  imageFront!: string;

  @Field(() => String, {
    nullable: true,
    description: 'data: URI of the back; required for DRIVERS_LICENSE, NATIONAL_ID and RESIDENCE_PERMIT.',
  })
  imageBack?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Read the NFC chip if available (mobile ePassports).' })
  enableNfc?: boolean;

  @Field(() => IdVerificationNfcInput, { nullable: true, description: 'Chip data read by the client, for passive authentication.' })
  nfc?: IdVerificationNfcInput;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Echoed back on the result.' })
  metadata?: Record<string, unknown>;
}
