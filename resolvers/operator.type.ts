import { Field, InputType, ObjectType } from 'type-graphql';
import type { OperatorRole } from '../entities/operator.entity.js';
import { OperatorRoleEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

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
}

/** A new operator of the caller's tenant. */
@InputType('CreateOperatorInput')
export class CreateOperatorInput {
  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => OperatorRoleEnum)
  role!: OperatorRole;

  @Field(() => String, { description: 'At least 12 characters; stored as an argon2id hash.' })
  password!: string;
}
