import { Field, InputType } from 'type-graphql';
import type { AmlList } from '../src/engines/aml/entity.js';
import { AmlListEnum } from './aml.type.js';

/** Input of screenAml; only fullName is required. */
@InputType()
export class ScreenAmlInput {
  @Field(() => String, { description: 'Name to screen, any script and token order.' })
  fullName!: string;

  @Field(() => String, { nullable: true, description: 'Date of birth YYYY-MM-DD; confirms or refutes name matches.' })
  dateOfBirth?: string;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country (nationality or residence).' })
  country?: string;

  @Field(() => [AmlListEnum], { nullable: true, description: 'Lists to screen; every list when omitted.' })
  lists?: AmlList[];
}
