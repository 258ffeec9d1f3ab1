import { Field, Int, ObjectType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** What erasing a session on request did. */
@ObjectType('Erasure', { description: "A session's evidence and personal data erased on request; its decision and audit trail stay." })
export class ErasureObject {
  @Field(() => String)
  sessionId!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds of the first erasure (erasing again changes nothing).' })
  erasedAt!: number;

  @Field(() => Int, { description: 'Evidence files deleted by this call.' })
  evidenceDeleted!: number;
}
