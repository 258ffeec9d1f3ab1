import { z } from 'zod';
import { amlResultJson, SCREEN_AML_FIELDS } from '../../engines/aml/standalone.js';
import type { MatchedField } from '../../engines/aml/score.js';
import { AML_LISTS } from '../../engines/aml/entity.js';
import { ScreenAmlDocument, type AmlResultFieldsFragment } from '../../graphql/generated/operations.js';
import { defineRoute } from '../route.js';

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
  return amlResultJson({ ...result, hits: result.hits.map((hit) => ({ ...hit, matchedFields: hit.matchedFields as MatchedField[] })) });
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
