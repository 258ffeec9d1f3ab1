import { Field, InputType, Int } from 'type-graphql';

/** Input of checkProofOfAddress; only documentImage is required. */
@InputType()
export class CheckProofOfAddressInput {
  @Field(() => String, { description: 'data: URI of a JPEG, PNG or PDF (a sandbox: token with sandbox keys).' })
  documentImage!: string;

  @Field(() => String, { nullable: true, description: 'Name the document should carry; a different name is a name_mismatch warning.' })
  expectedName?: string;

  @Field(() => String, {
    nullable: true,
    description: 'ISO 3166-1 alpha-2 country of the address; used for the address check and date order.',
  })
  country?: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Documents issued more than this many days ago are refused (DOCUMENT_TOO_OLD); default 90.',
  })
  maxAgeDays?: number;
}
