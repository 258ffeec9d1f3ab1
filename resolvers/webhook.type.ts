import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import {
  WEBHOOK_ATTEMPT_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_VERSIONS,
  type WebhookAttemptStatus,
  type WebhookDeliveryStatus,
  type WebhookVersion,
} from '../entities/webhook.entity.js';
import { UnixTimeScalar } from './scalars.js';

/** Builds a GraphQL enum whose values are the wire strings themselves. */
function enumOf<const T extends readonly string[]>(values: T): { [K in T[number]]: K } {
  return Object.fromEntries(values.map((value) => [value, value])) as { [K in T[number]]: K };
}

/** Payload versions as a GraphQL enum. */
export const WebhookVersionEnum = enumOf(WEBHOOK_VERSIONS);
registerEnumType(WebhookVersionEnum, {
  name: 'WebhookVersion',
  description: 'Webhook payload version: v3 `{type, timestamp, data}` (recommended), v2 flat, v1 minimal.',
});

/** Delivery statuses as a GraphQL enum. */
export const WebhookDeliveryStatusEnum = enumOf(WEBHOOK_DELIVERY_STATUSES);
registerEnumType(WebhookDeliveryStatusEnum, {
  name: 'WebhookDeliveryStatus',
  description:
    'pending (will be tried), succeeded (2xx), failed (schedule used up), dead (destination gone, inactive, 410, or address refused).',
});

/** Attempt outcomes as a GraphQL enum. */
export const WebhookAttemptStatusEnum = enumOf(WEBHOOK_ATTEMPT_STATUSES);
registerEnumType(WebhookAttemptStatusEnum, { name: 'WebhookAttemptStatus', description: 'Outcome of one HTTP try.' });

/** A webhook destination; the secret is never part of it. */
@ObjectType('WebhookDestination', { description: 'An endpoint receiving signed event POSTs.' })
export class WebhookDestinationObject {
  @Field(() => ID, { description: 'The destination uuid.' })
  id!: string;

  @Field(() => String)
  url!: string;

  @Field(() => WebhookVersionEnum)
  version!: WebhookVersion;

  @Field(() => [String], { nullable: true, description: 'Event kinds received; null receives all.' })
  events!: string[] | null;

  @Field(() => Boolean)
  active!: boolean;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  updatedAt!: number;
}

/** A destination with its signing secret, which is shown only here. */
@ObjectType({ description: 'A destination and its signing secret (`whsec_…`), shown only at creation and rotation.' })
export class WebhookDestinationSecretPayload {
  @Field(() => WebhookDestinationObject)
  destination!: WebhookDestinationObject;

  @Field(() => String, { nullable: true, description: 'The new secret; null when it did not change.' })
  secret!: string | null;
}

/** One HTTP try of a delivery. */
@ObjectType('WebhookAttempt', { description: 'One HTTP try: outcome, response code, duration and the next try.' })
export class WebhookAttemptObject {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  deliveryId!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  attemptedAt!: number;

  @Field(() => WebhookAttemptStatusEnum)
  status!: WebhookAttemptStatus;

  @Field(() => Int, { nullable: true, description: 'HTTP status; null when no response came.' })
  responseStatusCode!: number | null;

  @Field(() => Int, { description: 'Milliseconds.' })
  durationMs!: number;

  @Field(() => String, { nullable: true, description: 'Why no response came (timeout, network, refused address).' })
  error!: string | null;

  @Field(() => String, { nullable: true, description: 'The first 4 KB of the response body.' })
  responseBody!: string | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds of the next try; null when this was the last.' })
  nextAttemptAt!: number | null;
}

/** One message to one target. */
@ObjectType('WebhookDelivery', { description: 'One event sent to one destination or session callback; its id is the `webhook-id` header.' })
export class WebhookDeliveryObject {
  @Field(() => ID, { description: 'Also the `webhook-id` header, stable across retries and replays.' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'The event; null for test messages.' })
  eventId!: string | null;

  @Field(() => String)
  eventType!: string;

  @Field(() => String, { nullable: true })
  sessionId!: string | null;

  @Field(() => String, { nullable: true, description: 'The destination; null for a session callback.' })
  destinationId!: string | null;

  @Field(() => String, { nullable: true, description: 'The session callback URL, for callback deliveries.' })
  callbackUrl!: string | null;

  @Field(() => WebhookDeliveryStatusEnum)
  status!: WebhookDeliveryStatus;

  @Field(() => Int, { description: 'HTTP tries made so far.' })
  attemptCount!: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds of the next try while pending.' })
  nextAttemptAt!: number | null;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the latest try.' })
  lastStatusCode!: number | null;

  @Field(() => String, {
    nullable: true,
    description: "Who replayed it last: the operator's name or `api_key:<key id>`; null when never replayed.",
  })
  replayedBy!: string | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds of the last replay; null when never replayed.' })
  replayedAt!: number | null;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  updatedAt!: number;
}

/** A page of deliveries. */
@ObjectType({ description: 'Deliveries, newest first.' })
export class WebhookDeliveryPage {
  @Field(() => [WebhookDeliveryObject])
  deliveries!: WebhookDeliveryObject[];

  @Field(() => String, { nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor!: string | null;
}
