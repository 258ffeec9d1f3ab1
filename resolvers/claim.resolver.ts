import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import type { SessionClaim } from '../src/sessions/claims.js';
import { assignSession, claimSession, releaseSession } from '../src/sessions/claim.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { SessionClaimObject } from './claim.type.js';
import { SessionObject } from './session.type.js';

/** Shapes a claim for GraphQL. */
function toClaimObject(claim: SessionClaim): SessionClaimObject {
  return {
    sessionId: claim.sessionId,
    operatorId: claim.operatorId,
    operatorName: claim.operatorName,
    claimedAt: unixSeconds(claim.claimedAt),
  };
}

/** Claim and assign: one operator at a time works an in-review case, so two reviewers never decide it both. */
@Resolver(() => SessionObject)
export class ClaimResolver {
  @FieldResolver(() => SessionClaimObject, {
    nullable: true,
    description: 'Who is working on the case, while it is in review and claimed.',
  })
  async claim(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<SessionClaimObject | null> {
    const claim = await context.loaders.claimBySessionId.load(session.id);
    return claim ? toClaimObject(claim) : null;
  }

  @Mutation(() => SessionClaimObject, {
    description:
      'Claims an in-review case for the signed-in reviewer or admin; SESSION_CLAIMED when someone else holds it. Audited. Not for API keys.',
  })
  async claimSession(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<SessionClaimObject> {
    return toClaimObject(await claimSession(context.em, context.services, requireTenant(context), id));
  }

  @Mutation(() => Boolean, {
    description: "Releases a case: its holder may, an admin may release anyone's. True once the case is unclaimed. Audited.",
  })
  async releaseSession(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await releaseSession(context.em, context.services, requireTenant(context), id);
    return true;
  }

  @Mutation(() => SessionClaimObject, {
    description: 'An admin hands an in-review case to a reviewer or admin of the organisation, taking it from whoever held it. Audited.',
  })
  async assignSession(
    @Arg('id', () => String) id: string,
    @Arg('operatorId', () => String) operatorId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionClaimObject> {
    return toClaimObject(await assignSession(context.em, context.services, requireTenant(context), id, operatorId));
  }
}
