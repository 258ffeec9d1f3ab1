import { Field, InputType, ObjectType } from 'type-graphql';
import type { OperatorRole } from '../entities/operator.entity.js';
import { OperatorRoleEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';
import { InviteOperatorInput } from './invitation.type.js';

/** A person who signs in to the console for the tenant. */
@ObjectType('Operator', { description: 'A person who signs in to the console for the tenant, with a role.' })
export class OperatorObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, { description: 'Sign-in address, lower-case.' })
  email!: string;

  @Field(() => String, { description: 'The name the audit trail shows.' })
  name!: string;

  @Field(() => OperatorRoleEnum)
  role!: OperatorRole;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => Boolean, { description: 'A disabled operator cannot sign in.' })
  disabled!: boolean;

  @Field(() => Boolean, { description: 'An admin chose the password: the operator must set their own at the next sign-in.' })
  passwordChangeRequired!: boolean;
}

/** A new operator of the caller's tenant. */
@InputType('CreateOperatorInput')
export class CreateOperatorInput extends InviteOperatorInput {
  @Field(() => String, { description: 'At least 12 characters; stored as an argon2id hash.' })
  password!: string;
}

/** What an admin changes of a colleague; absent fields stay. */
@InputType('UpdateOperatorInput')
export class UpdateOperatorInput {
  @Field(() => OperatorRoleEnum, { nullable: true })
  role?: OperatorRole | null;

  @Field(() => Boolean, { nullable: true, description: 'True disables the account (its sign-ins end at once); false enables it again.' })
  disabled?: boolean | null;
}

/** The secret of a second factor being enrolled, shown once. */
@ObjectType('TotpEnrolment', { description: 'A second factor being enrolled: shown once; confirm it with a first code.' })
export class TotpEnrolmentObject {
  @Field(() => String, { description: 'Base32 secret, for typing into an authenticator app by hand.' })
  secret!: string;

  @Field(() => String, { description: 'The otpauth:// URI the QR code carries.' })
  otpauthUri!: string;

  @Field(() => String, { description: 'The QR code of the URI as an SVG document.' })
  qrSvg!: string;
}
