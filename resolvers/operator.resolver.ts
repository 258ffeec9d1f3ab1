import { REFUSALS, requireOperator } from '../src/auth/authorization.js';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { addOperator, resetOperatorPassword, resetOperatorTotp, updateOperator } from '../src/operators/operator-admin.service.js';
import { readOperator, type OperatorSummary } from '../src/operators/operator.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { setEvidenceRetention } from '../src/evidence/evidence.service.js';
import { CreateOperatorInput, OperatorObject, UpdateOperatorInput } from './operator.type.js';

/** Shapes an operator for GraphQL. */
export function toOperatorObject(operator: OperatorSummary): OperatorObject {
  return {
    id: operator.id,
    email: operator.email,
    name: operator.name,
    role: operator.role,
    createdAt: unixSeconds(operator.createdAt),
    disabled: operator.disabled,
    passwordChangeRequired: operator.passwordChangeRequired,
  };
}

/** Operators: who is signed in, and admins managing colleagues (every change audited with the admin's name; the `operators` connection lists them). */
@Resolver(() => OperatorObject)
export class OperatorResolver {
  @FieldResolver(() => Boolean, { description: 'Whether sign-in asks for a one-time code (TOTP).' })
  async totpEnabled(@Root() operator: OperatorObject, @Ctx() context: GraphQLContext): Promise<boolean> {
    return context.loaders.totpEnabledByOperatorId.load(operator.id);
  }

  @Query(() => OperatorObject, { nullable: true, description: 'The operator signed in to the console; null for an API key.' })
  async currentOperator(@Ctx() context: GraphQLContext): Promise<OperatorObject | null> {
    const principal = requireTenant(context);
    if (principal.kind !== 'operator') return null;
    return toOperatorObject(await readOperator(context.em, principal));
  }

  @Mutation(() => OperatorObject, {
    description:
      "Adds an operator to the caller's tenant with an initial password they replace at first sign-in; only a signed-in admin may (an API key of one environment may not create people who see both). Audited.",
  })
  async createOperator(
    @Arg('input', () => CreateOperatorInput) input: CreateOperatorInput,
    @Ctx() context: GraphQLContext,
  ): Promise<OperatorObject> {
    return toOperatorObject(await addOperator(context.em, requireTenant(context), { ...input }));
  }

  @Mutation(() => OperatorObject, {
    description:
      'Changes a colleague’s role or disables / enables them; LAST_ADMIN when it would leave no active admin. Admins only; audited.',
  })
  async updateOperator(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateOperatorInput) input: UpdateOperatorInput,
    @Ctx() context: GraphQLContext,
  ): Promise<OperatorObject> {
    const changes = {
      ...(input.role != null ? { role: input.role } : {}),
      ...(input.disabled != null ? { disabled: input.disabled } : {}),
    };
    return toOperatorObject(await updateOperator(context.em, requireTenant(context), id, changes));
  }

  @Mutation(() => OperatorObject, {
    description:
      'Sets a temporary password for a colleague, ends their sign-ins and lifts a lock-out; they choose a new one at the next sign-in. Admins only; audited.',
  })
  async resetOperatorPassword(
    @Arg('id', () => String) id: string,
    @Arg('password', () => String) password: string,
    @Ctx() context: GraphQLContext,
  ): Promise<OperatorObject> {
    return toOperatorObject(await resetOperatorPassword(context.em, requireTenant(context), id, password));
  }

  @Mutation(() => Boolean, { description: 'Turns off a colleague’s second factor (a lost phone). Admins only; audited.' })
  async resetOperatorTotp(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await resetOperatorTotp(context.em, requireTenant(context), id);
    return true;
  }

  @Mutation(() => Int, {
    description:
      "Sets how many days the tenant's evidence is kept (0-3650; 0 keeps nothing); files already kept are shortened to it. Admins in the console only.",
  })
  async setEvidenceRetention(@Arg('days', () => Int) days: number, @Ctx() context: GraphQLContext): Promise<number> {
    const principal = requireTenant(context);
    // A tenant-wide setting (both environments): not for an API key of one environment.
    return setEvidenceRetention(context.em, requireOperator(principal, REFUSALS.evidenceRetention).tenantId, days);
  }
}
