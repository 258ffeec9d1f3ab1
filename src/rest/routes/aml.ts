import { z } from 'zod';
import { ScreenAmlInputSchema } from '../../engines/aml/standalone.js';
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

/** Shapes an AML result for REST. */
export function presentAmlResult(result: AmlResultFieldsFragment): z.infer<typeof AmlResultJson> {
  return {
    aml_id: result.amlId,
    risk_band: result.riskBand,
    hits: result.hits.map((hit) => ({
      entity_id: hit.entityId,
      list: hit.list,
      matched_name: hit.matchedName,
      name: hit.name,
      score: hit.score,
      matched_fields: hit.matchedFields as ('name' | 'date_of_birth' | 'country')[],
      programs: hit.programs,
      topics: hit.topics,
    })),
    score: result.score,
    checked_lists: result.checkedLists,
  };
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
    body: ScreenAmlInputSchema,
    variables: ({ body }) => ({
      input: {
        fullName: body.full_name,
        ...(body.date_of_birth !== undefined ? { dateOfBirth: body.date_of_birth } : {}),
        ...(body.country !== undefined ? { country: body.country } : {}),
        ...(body.lists !== undefined ? { lists: body.lists } : {}),
      },
    }),
    status: 200,
    present: (data) => presentAmlResult(data.screenAml),
    response: AmlResultJson,
  }),
];
