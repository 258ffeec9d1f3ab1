import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { screenAml, type AmlResult } from '../src/engines/aml/standalone.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';
import { ScreenAmlInput } from './aml.input.js';
import { AmlResultObject } from './aml.type.js';

/** Shapes the service's snake_case result for GraphQL. */
export function toAmlResultObject(result: AmlResult): AmlResultObject {
  return {
    amlId: result.aml_id,
    riskBand: result.risk_band,
    hits: result.hits.map((hit) => ({
      entityId: hit.entity_id,
      list: hit.list,
      matchedName: hit.matched_name,
      name: hit.name,
      score: hit.score,
      matchedFields: hit.matched_fields,
      programs: hit.programs,
      topics: hit.topics,
    })),
    score: result.score,
    checkedLists: result.checked_lists,
  };
}

/** Standalone AML screening. */
@Resolver(() => AmlResultObject)
export class AmlResolver {
  @Mutation(() => AmlResultObject, {
    description: 'Screens a person against sanctions, PEP and adverse-media lists and stores the result.',
  })
  async screenAml(@Arg('input', () => ScreenAmlInput) input: ScreenAmlInput, @Ctx() context: GraphQLContext): Promise<AmlResultObject> {
    const scope = requireTenant(context);
    // GraphQL null means "not given", as in the REST body.
    const body = {
      full_name: input.fullName,
      ...(input.dateOfBirth != null ? { date_of_birth: input.dateOfBirth } : {}),
      ...(input.country != null ? { country: input.country } : {}),
      ...(input.lists != null ? { lists: input.lists } : {}),
    };
    return toAmlResultObject(await screenAml(context.em, context.services, scope, body));
  }
}
