import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ApiError } from '../src/errors.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';
import { createOperator, readOperator, type OperatorSummary } from '../src/operators/operator.service.js';
import { unixSeconds } from '../src/time.js';
import { setEvidenceRetention } from '../src/evidence/evidence.service.js';
import { CreateOperatorInput, OperatorObject } from './operator.type.js';

/** Shapes an operator for GraphQL. */
export function toOperatorObject(operator: OperatorSummary): OperatorObject {
  return { id: operator.id, email: operator.email, name: operator.name, role: operator.role, createdAt: unixSeconds(operator.createdAt) };
}

/** Operators: who is signed in, and admins adding colleagues. */
@Resolver()
export class OperatorResolver {
  @Query(() => OperatorObject, { nullable: true, description: 'The operator signed in to the console; null for an API key.' })
  async currentOperator(@Ctx() context: GraphQLContext): Promise<OperatorObject | null> {
    const principal = requireTenant(context);
    if (principal.kind !== 'operator') return null;
    return toOperatorObject(await readOperator(context.em, principal));
  }

  @Mutation(() => OperatorObject, {
    description:
      "Adds an operator to the caller's tenant; only a signed-in admin may (an API key of one environment may not create people who see both).",
  })
  async createOperator(
    @Arg('input', () => CreateOperatorInput) input: CreateOperatorInput,
    @Ctx() context: GraphQLContext,
  ): Promise<OperatorObject> {
    const principal = requireTenant(context);
    // Admins only: the role check (src/graphql/operator-roles.ts) already refused viewers and reviewers.
    if (principal.kind !== 'operator')
      throw new ApiError(
        'forbidden',
        'Operators are added by an admin in the console or with the CLI (operator:create), not with an API key.',
      );
    return toOperatorObject(await createOperator(context.em, { ...input, tenantId: principal.tenantId }));
  }

  @Mutation(() => Int, {
    description:
      "Sets how many days the tenant's evidence is kept (0-3650; 0 keeps nothing); files already kept are shortened to it. Admins in the console only.",
  })
  async setEvidenceRetention(@Arg('days', () => Int) days: number, @Ctx() context: GraphQLContext): Promise<number> {
    const principal = requireTenant(context);
    // A tenant-wide setting (both environments): not for an API key of one environment.
    if (principal.kind !== 'operator') throw new ApiError('forbidden', 'The evidence retention is set by an admin in the console.');
    return setEvidenceRetention(context.em, principal.tenantId, days);
  }
}
