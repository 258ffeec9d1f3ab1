import { Field, ObjectType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** A capture nonce the page sends back with the photo it is taking. */
@ObjectType('CaptureNonce', { description: 'A signed, single-use nonce binding one capture to this session, step and moment.' })
export class CaptureNonceObject {
  @Field(() => String)
  nonce!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds; a later submission is a capture_integrity signal.' })
  expiresAt!: number;
}

/** A head-turn challenge for the selfie step of a workflow with active liveness. */
@ObjectType('LivenessChallenge', { description: 'A single-use head-turn challenge: the moves in the order to make them.' })
export class LivenessChallengeObject {
  @Field(() => String, { description: 'Send it back in the selfie step input liveness.nonce.' })
  nonce!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  expiresAt!: number;

  @Field(() => [String], { description: "left, right and up (the person's own left and right) in a random order." })
  moves!: string[];
}
