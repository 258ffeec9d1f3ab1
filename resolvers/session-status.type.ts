import { Field, InputType, ObjectType } from 'type-graphql';
import type { SessionStatus } from '../src/domain/types.js';
import { EnvironmentEnum, SessionStatusEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** One committed status change, pushed to `sessionStatusChanged` subscribers. */
@ObjectType('SessionStatusEvent', {
  description: 'A committed status change of a session. `id` is the same on every instance: dedupe with it.',
})
export class SessionStatusEventObject {
  @Field(() => String, { description: 'Event id (the outbox id, also the webhook-id of the same change).' })
  id!: string;

  @Field(() => String)
  sessionId!: string;

  @Field(() => String)
  workflowId!: string;

  @Field(() => String)
  vendorData!: string;

  @Field(() => EnvironmentEnum)
  environment!: 'live' | 'sandbox';

  @Field(() => SessionStatusEnum, { description: 'The new status.' })
  status!: SessionStatus;

  @Field(() => SessionStatusEnum, { nullable: true, description: 'The status before the change; null when the session was created.' })
  previousStatus?: SessionStatus | null;

  @Field(() => String, { description: 'api, end_user, decision_engine, reviewer, expiry or import.' })
  actor!: string;

  @Field(() => String, { nullable: true, description: "A reviewer's reason, when given." })
  reason?: string | null;

  @Field(() => UnixTimeScalar, { description: 'When the change happened, Unix seconds.' })
  changedAt!: number;
}

/** Narrows a `sessionStatusChanged` subscription; every given field must match. */
@InputType()
export class SessionStatusSubscriptionFilter {
  @Field(() => String, { nullable: true, description: 'Only this session.' })
  sessionId?: string | null;

  @Field(() => String, { nullable: true, description: 'Only sessions of this workflow.' })
  workflowId?: string | null;

  @Field(() => String, { nullable: true, description: 'Only sessions with this vendorData.' })
  vendorData?: string | null;

  @Field(() => [SessionStatusEnum], { nullable: true, description: 'Only changes to one of these statuses.' })
  statuses?: SessionStatus[] | null;
}
