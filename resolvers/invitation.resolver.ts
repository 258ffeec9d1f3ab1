import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { inviteOperator, pendingInvitations, revokeInvitation, type Invitation } from '../src/operators/invitation.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { InviteOperatorInput, OperatorInvitationCreatedObject, OperatorInvitationObject } from './invitation.type.js';

/** Shapes an invitation for GraphQL. */
function toInvitationObject(invitation: Invitation): OperatorInvitationObject {
  return {
    id: invitation.id,
    email: invitation.email,
    name: invitation.name,
    role: invitation.role,
    invitedByName: invitation.invitedByName,
    createdAt: unixSeconds(invitation.createdAt),
    expiresAt: unixSeconds(invitation.expiresAt),
  };
}

/** Inviting colleagues by one-time link instead of a password passed on (issue 25, "Team"); signed-in admins only. */
@Resolver()
export class InvitationResolver {
  @Mutation(() => OperatorInvitationCreatedObject, {
    description:
      'Invites a colleague by one-time link (returned here once; only its hash is kept): they choose their own password on it. Admins in the console only; audited.',
  })
  async inviteOperator(
    @Arg('input', () => InviteOperatorInput) input: InviteOperatorInput,
    @Ctx() context: GraphQLContext,
  ): Promise<OperatorInvitationCreatedObject> {
    const { invitation, token } = await inviteOperator(
      context.em,
      requireTenant(context),
      { ...input },
      context.config.INVITATION_TTL_SECONDS,
    );
    // The token rides in the fragment: browsers send neither it to the server in requests nor in Referer headers.
    return { invitation: toInvitationObject(invitation), link: `${context.baseUrl}/console#/invitation/${token}` };
  }

  @Query(() => [OperatorInvitationObject], {
    description: "The tenant's invitations not yet accepted, newest first. Admins in the console only.",
  })
  async operatorInvitations(@Ctx() context: GraphQLContext): Promise<OperatorInvitationObject[]> {
    return (await pendingInvitations(context.em, requireTenant(context))).map(toInvitationObject);
  }

  @Mutation(() => Boolean, { description: 'Revokes a pending invitation: its link stops working. Admins in the console only; audited.' })
  async revokeOperatorInvitation(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await revokeInvitation(context.em, requireTenant(context), id);
    return true;
  }
}
