import { Field, InputType, ObjectType } from 'type-graphql';
import type { OperatorRole } from '../entities/operator.entity.js';
import { OperatorRoleEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** Who a colleague is, as an invitation and a new operator name them: address, name, role (CreateOperatorInput adds the password). */
@InputType('InviteOperatorInput')
export class InviteOperatorInput {
  @Field(() => String, { description: 'Sign-in address.' })
  email!: string;

  @Field(() => String, { description: 'The name the audit trail shows.' })
  name!: string;

  @Field(() => OperatorRoleEnum)
  role!: OperatorRole;
}

/** A pending invitation of a colleague, as admins see it (never its token). */
@ObjectType('OperatorInvitation', { description: 'A colleague invited by one-time link who has not accepted yet.' })
export class OperatorInvitationObject {
  @Field(() => String)
  id!: string;

  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => OperatorRoleEnum)
  role!: OperatorRole;

  @Field(() => String, { description: "The inviting admin's name at the time." })
  invitedByName!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds; the link stops working then.' })
  expiresAt!: number;
}

/** An invitation just made, with its link: shown this once. */
@ObjectType('OperatorInvitationCreated', { description: 'A new invitation and its one-time link, in this answer only.' })
export class OperatorInvitationCreatedObject {
  @Field(() => OperatorInvitationObject)
  invitation!: OperatorInvitationObject;

  @Field(() => String, { description: 'The one-time link to hand to the person (works once, until expiresAt).' })
  link!: string;
}
