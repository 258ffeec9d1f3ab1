import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { screenAml } from '../src/checks/aml-check.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { ScreenAmlInput } from './aml.input.js';
import { AmlResultObject } from './aml.type.js';

/** Standalone AML screening. */
@Resolver(() => AmlResultObject)
export class AmlResolver {
  @Mutation(() => AmlResultObject, {
    description: 'Screens a person against sanctions, PEP and adverse-media lists and stores the result.',
  })
  async screenAml(@Arg('input', () => ScreenAmlInput) input: ScreenAmlInput, @Ctx() context: GraphQLContext): Promise<AmlResultObject> {
    return screenAml(context.em, context.services, requireTenant(context), input);
  }
}
