import { Field, ObjectType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** Who holds an in-review case. */
@ObjectType('SessionClaim', { description: 'The operator working on an in-review case; others cannot decide it until it is released.' })
export class SessionClaimObject {
  @Field(() => String)
  sessionId!: string;

  @Field(() => String)
  operatorId!: string;

  @Field(() => String, { description: "The holder's name, as the console shows it." })
  operatorName!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  claimedAt!: number;
}
