import { z } from 'zod';
import { amlResultJson, SCREEN_AML_FIELDS } from '../../engines/aml/standalone.js';
import type { MatchedField } from '../../engines/aml/score.js';
import { AML_LISTS } from '../../engines/aml/entity.js';
import { ScreenAmlDocument, type AmlResultFieldsFragment } from '../../graphql/generated/operations.js';
import { defineRoute } from '../route.js';

/** How a date of birth or a country moved a hit's score. */
const AmlFieldComparisonJson = z.object({ outcome: z.string(), points: z.number().int(), listed: z.array(z.string()) });

/** Why a hit scored what it did (src/engines/aml/score.ts HitExplanation): added beside the spec's hit fields. */
const AmlHitExplanationJson = z.object({
  matched_name_kind: z.string(),
  query_form: z.string(),
  listed_form: z.string(),
  method: z.string(),
  token_matches: z.array(
    z.object({ query_token: z.string(), listed_token: z.string(), credit: z.number(), weight: z.number(), kind: z.string() }),
  ),
  unmatched_query_tokens: z.array(z.string()),
  unmatched_listed_tokens: z.array(z.string()),
  name_factors: z.array(z.object({ reason: z.string(), factor: z.number() })),
  name_similarity: z.number().min(0).max(1),
  name_points: z.number().int(),
  date_of_birth: AmlFieldComparisonJson,
  country: AmlFieldComparisonJson,
  summary: z.string(),
});

/** The spec's AML result JSON, with the hit shape docs/design.md "Smaller decisions" fixes. */
export const AmlResultJson = z.object({
  aml_id: z.string(),
  risk_band: z.number().int().min(1).max(5),
  hits: z.array(
    z.object({
      entity_id: z.string(),
      list: z.enum(AML_LISTS),
      matched_name: z.string(),
      name: z.string(),
      score: z.number().int().min(0).max(100),
      matched_fields: z.array(z.enum(['name', 'date_of_birth', 'country'])),
      programs: z.array(z.string()),
      topics: z.array(z.string()),
      explanation: AmlHitExplanationJson.nullable(),
    }),
  ),
  score: z.number().int().min(0).max(100),
  checked_lists: z.array(z.enum(AML_LISTS)),
});

/** Body of `POST /v1/aml` (snake_case, strict), from the service's field rules. */
const ScreenAmlBody = z
  .object({
    full_name: SCREEN_AML_FIELDS.fullName,
    date_of_birth: SCREEN_AML_FIELDS.dateOfBirth.optional(),
    country: SCREEN_AML_FIELDS.country.optional(),
    lists: SCREEN_AML_FIELDS.lists.optional(),
  })
  .strict();

/** Shapes an AML result for REST. */
export function presentAmlResult(result: AmlResultFieldsFragment): z.infer<typeof AmlResultJson> {
  return amlResultJson({
    ...result,
    hits: result.hits.map((hit) => ({ ...hit, matchedFields: hit.matchedFields as MatchedField[], explanation: hit.explanation ?? null })),
  });
}

/** AML screening routes. */
export const amlRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/aml',
    operationId: 'screenAml',
    summary: 'Screens a person against sanctions, PEP and adverse-media lists; only full_name is required.',
    tag: 'AML',
    operation: ScreenAmlDocument,
    body: ScreenAmlBody,
    variables: ({ body }) => ({
      input: { fullName: body.full_name, dateOfBirth: body.date_of_birth, country: body.country, lists: body.lists },
    }),
    status: 200,
    present: (data) => presentAmlResult(data.screenAml),
    response: AmlResultJson,
  }),
];
