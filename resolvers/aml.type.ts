import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { AML_LISTS, type AmlList } from '../src/engines/aml/entity.js';

/** AML lists as a GraphQL enum whose values are the wire strings (`OFAC_SDN`, ...). */
export const AmlListEnum = Object.fromEntries(AML_LISTS.map((list) => [list, list])) as { [K in AmlList]: K };
registerEnumType(AmlListEnum, { name: 'AmlList', description: 'A sanctions, PEP or adverse-media list the service screens against.' });

/** One query token paired with one listed token in a hit's explanation. */
@ObjectType('AmlTokenMatch', { description: 'A query token paired with a token of the listed name.' })
export class AmlTokenMatchObject {
  @Field(() => String, { description: "The query's token, normalised (its consonants for consonant_skeleton)." })
  queryToken!: string;

  @Field(() => String, { description: "The listed name's token, likewise." })
  listedToken!: string;

  @Field(() => Float, { description: 'Credit of the pair, 0–1 (1: the same word).' })
  credit!: number;

  @Field(() => Float, { description: "Weight of the pair in the name similarity (1, or 0.6 for an organisation's generic word)." })
  weight!: number;

  @Field(() => String, { description: 'exact, initial, fused_article, spelling, same_consonants or consonant_skeleton.' })
  kind!: string;
}

/** A factor applied to a hit's name similarity. */
@ObjectType('AmlNameFactor', { description: 'A factor applied to the name similarity, and why.' })
export class AmlNameFactorObject {
  @Field(() => String, { description: 'one_word_name or person_query_vs_organization.' })
  reason!: string;

  @Field(() => Float)
  factor!: number;
}

/** What the date of birth or the country did to a hit's score. */
@ObjectType('AmlFieldComparison', { description: 'How a date of birth or a country moved the score.' })
export class AmlFieldComparisonObject {
  @Field(() => String, {
    description: 'Date of birth: exact, same_year, one_year_off, conflict or not_compared. Country: match, conflict or not_compared.',
  })
  outcome!: string;

  @Field(() => Int, { description: 'Points added to (or, negative, removed from) the score.' })
  points!: number;

  @Field(() => [String], { description: "The entity's listed values." })
  listed!: string[];
}

/** Why a hit scored what it did. */
@ObjectType('AmlHitExplanation', {
  description: 'Why a hit scored what it did: score = namePoints + dateOfBirth.points + country.points, clamped to 0–100.',
})
export class AmlHitExplanationObject {
  @Field(() => String, { description: 'primary_name or alias: which listed form matched best.' })
  matchedNameKind!: string;

  @Field(() => String, { description: 'The query as compared (normalised).' })
  queryForm!: string;

  @Field(() => String, { description: 'The listed name as compared (normalised).' })
  listedForm!: string;

  @Field(() => String, { description: 'tokens (word by word, any order), compact (spaces ignored) or consonant_skeleton (Arabic script).' })
  method!: string;

  @Field(() => [AmlTokenMatchObject], { description: 'Token pairs, in query order.' })
  tokenMatches!: AmlTokenMatchObject[];

  @Field(() => [String], { description: 'Query tokens paired with nothing.' })
  unmatchedQueryTokens!: string[];

  @Field(() => [String], { description: 'Listed tokens paired with nothing (a middle name the query left out).' })
  unmatchedListedTokens!: string[];

  @Field(() => [AmlNameFactorObject])
  nameFactors!: AmlNameFactorObject[];

  @Field(() => Float, { description: 'Name similarity 0–1 after the factors.' })
  nameSimilarity!: number;

  @Field(() => Int, { description: 'The score before date of birth and country.' })
  namePoints!: number;

  @Field(() => AmlFieldComparisonObject)
  dateOfBirth!: AmlFieldComparisonObject;

  @Field(() => AmlFieldComparisonObject)
  country!: AmlFieldComparisonObject;

  @Field(() => String, { description: 'The explanation in one sentence.' })
  summary!: string;
}

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

  @Field(() => AmlHitExplanationObject, {
    nullable: true,
    description: 'Why the hit scored so; null for sandbox hits, which come from magic names, not from matching.',
  })
  explanation!: AmlHitExplanationObject | null;
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
