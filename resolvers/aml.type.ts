import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { AML_LISTS, type AmlList } from '../src/engines/aml/entity.js';

/** AML lists as a GraphQL enum whose values are the wire strings (`OFAC_SDN`, ...). */
export const AmlListEnum = Object.fromEntries(AML_LISTS.map((list) => [list, list])) as { [K in AmlList]: K };
registerEnumType(AmlListEnum, { name: 'AmlList', description: 'A sanctions, PEP or adverse-media list the service screens against.' });

/** One potential match of an AML screening. */
@ObjectType('AmlHit', { description: 'One listed entity that resembles the screened person.' })
export class AmlHitObject {
  @Field(() => String, { description: '`SOURCE_LIST:source_id`, stable across re-imports of the list.' })
  entityId!: string;

  @Field(() => AmlListEnum)
  list!: AmlList;

  @Field(() => String, { description: 'The listed name or alias that matched best.' })
  matchedName!: string;

  @Field(() => String, { description: "The entity's primary name." })
  name!: string;

  @Field(() => Int, { description: '0–100.' })
  score!: number;

  @Field(() => [String], { description: 'Query fields that agreed: name, date_of_birth, country.' })
  matchedFields!: string[];

  @Field(() => [String], { description: 'Sanctions programmes of the entity.' })
  programs!: string[];

  @Field(() => [String], { description: 'Risk topics of the entity (sanction, role.pep, ...).' })
  topics!: string[];
}

/** The spec's AML result. */
@ObjectType('AmlResult', { description: 'Outcome of screening one person against sanctions, PEP and adverse-media lists.' })
export class AmlResultObject {
  @Field(() => String)
  amlId!: string;

  @Field(() => Int, { description: '1 (low) to 5 (high).' })
  riskBand!: number;

  @Field(() => [AmlHitObject], { description: 'Potential matches, best first.' })
  hits!: AmlHitObject[];

  @Field(() => Int, { description: "0–100; at or above a workflow's threshold (default 80) a session declines." })
  score!: number;

  @Field(() => [AmlListEnum], { description: 'Exactly the lists screened.' })
  checkedLists!: AmlList[];
}
