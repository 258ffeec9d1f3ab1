import { Field, InputType } from 'type-graphql';
import type { ListPolicy, ListType } from '../entities/list.entity.js';
import { ListPolicyEnum, ListTypeEnum } from './list.type.js';

/** Input of createList. */
@InputType()
export class CreateListInput {
  @Field(() => String)
  name!: string;

  @Field(() => ListTypeEnum)
  type!: ListType;

  @Field(() => ListPolicyEnum, { nullable: true, description: 'Default auto_decline for face and document lists, review for name lists.' })
  policy?: ListPolicy;
}

/** Input of updateList: give at least one field. */
@InputType()
export class UpdateListInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => ListTypeEnum, { nullable: true, description: 'Custom lists only, and only while empty.' })
  type?: ListType;

  @Field(() => ListPolicyEnum, { nullable: true })
  policy?: ListPolicy;
}

/** Input of addFaceListEntry: an image, or only a session whose selfie template is taken. */
@InputType()
export class FaceListEntryInput {
  @Field(() => String, { nullable: true, description: 'JPEG, PNG or WebP as a data URI, showing exactly one face.' })
  image?: string;

  @Field(() => String, { nullable: true })
  reason?: string;

  @Field(() => String, { nullable: true, description: 'Session the face came from; alone, its selfie template is listed.' })
  sessionId?: string;
}

/** Input of addNameListEntry. */
@InputType()
export class NameListEntryInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  reason?: string;
}

/** Input of addDocumentListEntry. */
@InputType()
export class DocumentListEntryInput {
  @Field(() => String, { description: 'Issuing country, ISO-2.' })
  country!: string;

  @Field(() => String, { description: 'PASSPORT, DRIVERS_LICENSE, NATIONAL_ID, RESIDENCE_PERMIT, ...' })
  idType!: string;

  @Field(() => String)
  documentNumber!: string;

  @Field(() => String, { nullable: true })
  reason?: string;
}
