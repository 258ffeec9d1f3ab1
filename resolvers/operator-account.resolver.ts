import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { changeOwnPassword } from '../src/operators/operator-admin.service.js';
import { signInBrakeOf } from '../src/operators/operator.service.js';
import { confirmTotpEnrolment, disableOwnTotp, startTotpEnrolment } from '../src/operators/totp.service.js';
import { TotpEnrolmentObject } from './operator.type.js';

/** The signed-in operator's own account: password and optional second factor, whatever their role. */
@Resolver()
export class OperatorAccountResolver {
  @Mutation(() => Boolean, {
    description: 'Replaces the signed-in operator’s password; a wrong current password counts towards the sign-in lock-out. Audited.',
  })
  async changeOwnPassword(
    @Arg('currentPassword', () => String) currentPassword: string,
    @Arg('newPassword', () => String) newPassword: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    await changeOwnPassword(context.em, requireTenant(context), currentPassword, newPassword, signInBrakeOf(context.config));
    return true;
  }

  @Mutation(() => TotpEnrolmentObject, {
    description: 'Starts enrolling an authenticator app (TOTP, RFC 6238): the secret and its QR code are shown this once.',
  })
  async startTotpEnrolment(@Ctx() context: GraphQLContext): Promise<TotpEnrolmentObject> {
    return startTotpEnrolment(context.em, context.services.secrets, requireTenant(context));
  }

  @Mutation(() => Boolean, { description: 'Confirms the enrolment with a first code; from then on sign-in asks for a code. Audited.' })
  async confirmTotpEnrolment(@Arg('code', () => String) code: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await confirmTotpEnrolment(context.em, context.services.secrets, requireTenant(context), code);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Turns off the signed-in operator’s second factor; it takes a current code. Audited.' })
  async disableOwnTotp(@Arg('code', () => String) code: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await disableOwnTotp(context.em, context.services.secrets, requireTenant(context), code);
    return true;
  }
}
