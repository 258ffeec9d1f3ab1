import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** What a reviewer says of an AML hit, as a GraphQL enum whose values are the wire strings. */
export const AmlHitDispositionEnum = { true_match: 'true_match', false_positive: 'false_positive' } as const;
registerEnumType(AmlHitDispositionEnum, {
  name: 'AmlHitDisposition',
  description: 'true_match: the screened person is the listed entity; false_positive: they are not.',
});

/** The listed entity behind a hit, as its list publishes it. */
@ObjectType('AmlListedEntity', { description: 'The listed entity behind a hit, from the imported list.' })
export class AmlListedEntityObject {
  @Field(() => String, { description: 'person, organization, vessel or aircraft.' })
  kind!: string;

  @Field(() => String, { description: 'The name as listed first.' })
  primaryName!: string;

  @Field(() => [String])
  aliases!: string[];

  @Field(() => [String], { description: '`YYYY` or `YYYY-MM-DD` each.' })
  datesOfBirth!: string[];

  @Field(() => [String], { description: 'Nationalities and countries, ISO-2.' })
  countries!: string[];

  @Field(() => [String], { description: 'Sanctions programmes.' })
  programs!: string[];

  @Field(() => [String], { description: 'Risk topics (sanction, role.pep, ...).' })
  topics!: string[];

  @Field(() => String, { description: "The publisher's own id (OFAC uid, EU logicalId, UN DATAID, OpenSanctions id)." })
  sourceId!: string;

  @Field(() => UnixTimeScalar, { description: 'When the import that wrote this record ran (Unix seconds).' })
  importedAt!: number;

  @Field(() => String, { description: 'Digest of the record: a false positive holds while it stays the same.' })
  version!: string;
}

/** A reviewer's disposition of a hit. */
@ObjectType('AmlHitDispositionRecord', { description: "A reviewer's true match or false positive on one hit, with the reason; audited." })
export class AmlHitDispositionObject {
  @Field(() => String)
  id!: string;

  @Field(() => String)
  sessionId!: string;

  @Field(() => String)
  entityId!: string;

  @Field(() => AmlHitDispositionEnum)
  disposition!: keyof typeof AmlHitDispositionEnum;

  @Field(() => String)
  reason!: string;

  @Field(() => String, { description: '`operator:<name>` or `api_key:<id>`.' })
  actor!: string;

  @Field(() => String, { nullable: true, description: "The operator's name, when a person in the console marked it." })
  actorName!: string | null;

  @Field(() => UnixTimeScalar)
  createdAt!: number;

  @Field(() => Boolean, {
    description: "For a false positive: the entity's record changed since, so re-screens raise the hit again. False otherwise.",
  })
  entityChanged!: boolean;
}

/** One hit of a session's AML screening, with the listed entity and the reviewer's disposition. */
@ObjectType('SessionAmlHit', { description: "One hit of the session's AML screening with the listed entity and its disposition." })
export class SessionAmlHitObject {
  @Field(() => String, { description: '`SOURCE_LIST:source_id`.' })
  entityId!: string;

  @Field(() => String, { description: 'The list (the source), e.g. OFAC_SDN.' })
  list!: string;

  @Field(() => String, { description: 'sanctions, pep or adverse_media.' })
  category!: string;

  @Field(() => String, { description: 'The listed name or alias that matched best.' })
  matchedName!: string;

  @Field(() => Int, { description: '0–100.' })
  score!: number;

  @Field(() => String, { description: 'screening (when the session was screened) or monitoring (found by a later re-screen).' })
  foundBy!: string;

  @Field(() => Boolean, { description: "True when a standing false positive took the hit out of this session's screening." })
  suppressed!: boolean;

  @Field(() => AmlListedEntityObject, { nullable: true, description: 'Null when no imported list holds it (sandbox hits).' })
  entity!: AmlListedEntityObject | null;

  @Field(() => AmlHitDispositionObject, { nullable: true, description: 'The latest disposition; null while nobody marked the hit.' })
  disposition!: AmlHitDispositionObject | null;
}
