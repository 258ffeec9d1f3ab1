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
