import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LIST_POLICIES, LIST_TYPES, type ListPolicy, type ListType } from '../entities/list.entity.js';
import { UnixTimeScalar } from './scalars.js';

/** List types as a GraphQL enum whose values are the wire strings. */
export const ListTypeEnum = Object.fromEntries(LIST_TYPES.map((value) => [value, value])) as { [K in ListType]: K };
registerEnumType(ListTypeEnum, { name: 'ListType', description: 'What a list holds: document fingerprints, names or face templates.' });

/** List policies as a GraphQL enum whose values are the wire strings. */
export const ListPolicyEnum = Object.fromEntries(LIST_POLICIES.map((value) => [value, value])) as { [K in ListPolicy]: K };
registerEnumType(ListPolicyEnum, { name: 'ListPolicy', description: 'What a match does: decline the session, or send it to review.' });

/** A list as clients see it (spec "List"). */
@ObjectType('List', { description: 'A built-in or custom list whose entries gate future verifications.' })
export class ListObject {
  @Field(() => String, { description: 'List UUID.' })
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => ListTypeEnum)
  type!: ListType;

  @Field(() => ListPolicyEnum)
  policy!: ListPolicy;

  @Field(() => Int, { description: 'Number of entries.' })
  entries!: number;

  @Field(() => Boolean, { description: 'Built-in lists cannot be deleted or retyped.' })
  builtIn!: boolean;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  updatedAt!: number;
}

/** One entry of a list (spec "List entry"). */
@ObjectType('ListEntry', {
  description: 'One entry of a list: a fingerprint (what gates match) and, for people, a label sealed at rest; never a raw image.',
})
export class ListEntryObject {
  @Field(() => String, { description: 'Entry UUID.' })
  id!: string;

  @Field(() => ListTypeEnum)
  entryType!: ListType;

  @Field(() => String, { description: '`sha256:<hex>`.' })
  fingerprint!: string;

  @Field(() => String, { nullable: true, description: 'Why the entry was added.' })
  reason!: string | null;

  @Field(() => String, { description: 'Who added it: `api_key:<key id>` or `operator:<operator id>`.' })
  addedBy!: string;

  @Field(() => String, { nullable: true, description: "The operator's name when a person in the console added it; null for a key." })
  addedByName!: string | null;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  addedAt!: number;

  /** The sealed label, opened by the `label` field resolver; never a field itself. */
  labelSealed?: string | null;
}

/** A page of entries. */
@ObjectType('ListEntryPage', { description: 'A page of entries and the total count of the list.' })
export class ListEntryPageObject {
  @Field(() => Int, { description: 'Entries in the list, all pages together.' })
  count!: number;

  @Field(() => [ListEntryObject])
  results!: ListEntryObject[];
}

/** Result of adding a face (spec "Face entry creation result"). */
@ObjectType('FaceEntryCreated', { description: 'A face added to a list; only its template hash is kept.' })
export class FaceEntryCreatedObject {
  @Field(() => String, { description: 'Entry UUID.' })
  id!: string;

  @Field(() => String, { description: '`sha256:<hex>` of the stored template.' })
  fingerprint!: string;

  @Field(() => Boolean, { description: 'Always false.' })
  rawImageStored!: boolean;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  addedAt!: number;
}
