import { Arg, Ctx, Field, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { createReasonCode, deleteReasonCode, listReasonCodes, type ReasonCodeRecord } from '../src/reasons/reason-codes.service.js';

/** One code reviewers may pick: built in (src/domain/reasons.ts) or the tenant's own. */
@ObjectType('ReasonCode', { description: 'A reason code of the catalogue (built in) or of your own, in this environment.' })
export class ReasonCodeObject {
  @Field(() => String)
  code!: string;

  @Field(() => String, { description: 'document, face, fraud, screening, data or technical.' })
  category!: string;

  @Field(() => String, { description: 'low, medium, high or critical.' })
  severity!: string;

  @Field(() => Boolean, { description: 'true when the person can fix it by doing the step again (RETRY); false when final.' })
  retryable!: boolean;

  @Field(() => String, { description: 'The sentence reviewers read.' })
  reviewerText!: string;

  @Field(() => String, {
    description:
      'The theme of what the person reads, one of the catalogue\'s honest sentences (docs/webhooks.md "Reasons"), in every language of the hosted flow.',
  })
  endUserMessage!: string;

  @Field(() => Boolean)
  builtIn!: boolean;
}

/** A code of the tenant's own. */
@InputType()
export class ReasonCodeInput {
  @Field(() => String, { description: 'snake_case, 3–64 characters, not a built-in code.' })
  code!: string;

  @Field(() => String)
  category!: string;

  @Field(() => String)
  severity!: string;

  @Field(() => Boolean)
  retryable!: boolean;

  @Field(() => String)
  reviewerText!: string;

  @Field(() => String)
  endUserMessage!: string;
}

/** Shapes a code for GraphQL. */
function toReasonCodeObject(record: ReasonCodeRecord): ReasonCodeObject {
  return {
    code: record.code,
    category: record.category,
    severity: record.severity,
    retryable: record.retryable,
    reviewerText: record.reviewer,
    endUserMessage: record.endUser,
    builtIn: record.builtIn,
  };
}

/** The reason catalogue and a tenant's own codes (issue 24). */
@Resolver()
export class ReasonCodeResolver {
  @Query(() => [ReasonCodeObject], {
    description: "Every reason code reviewers may pick in the key's environment: the built-in catalogue, then your own.",
  })
  async reasonCodes(@Ctx() context: GraphQLContext): Promise<ReasonCodeObject[]> {
    return (await listReasonCodes(context.em, requireTenant(context))).map(toReasonCodeObject);
  }

  @Mutation(() => ReasonCodeObject, { description: "Adds a reason code of your own in the key's environment." })
  async createReasonCode(
    @Arg('input', () => ReasonCodeInput) input: ReasonCodeInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ReasonCodeObject> {
    return toReasonCodeObject(await createReasonCode(context.em, requireTenant(context), input));
  }

  @Mutation(() => Boolean, { description: 'Removes a reason code of your own; decisions that used it keep its category and retryable.' })
  async deleteReasonCode(@Arg('code', () => String) code: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await deleteReasonCode(context.em, requireTenant(context), code);
    return true;
  }
}
