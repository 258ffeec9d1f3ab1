import { Field, ObjectType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** A note on a session, with its author. */
@ObjectType('SessionNote', { description: 'A note on a session by a reviewer (or a key), kept with the author.' })
export class SessionNoteObject {
  @Field(() => String)
  id!: string;

  @Field(() => String)
  sessionId!: string;

  @Field(() => String, { description: "The operator's name at the time, or api_key:<id>." })
  authorName!: string;

  @Field(() => String, { nullable: true })
  authorOperatorId!: string | null;

  @Field(() => String)
  body!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;
}
