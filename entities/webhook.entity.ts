import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { TenantSchema } from './tenant.entity.js';

/** Webhook payload versions a destination can choose (docs/design.md "Events and webhooks"). */
export const WEBHOOK_VERSIONS = ['v1', 'v2', 'v3'] as const;
/** A payload version. */
export type WebhookVersion = (typeof WEBHOOK_VERSIONS)[number];

/** Where a delivery stands: `pending` will be tried (again), `succeeded` got a 2xx, `failed` used up the schedule, `dead` can never be delivered (destination gone, inactive or answered 410, URL refused). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;
/** A delivery status. */
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Outcome of one HTTP attempt. */
export const WEBHOOK_ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;
/** An attempt outcome. */
export type WebhookAttemptStatus = (typeof WEBHOOK_ATTEMPT_STATUSES)[number];

/** An endpoint a tenant registered to receive events. The secret is stored encrypted because signing needs it back. */
export const WebhookDestinationSchema = defineEntity({
  name: 'WebhookDestination',
  tableName: 'webhook_destination',
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    /** Receives only events of this environment; managed only by keys of it. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    url: p.text(),
    version: p.enum(WEBHOOK_VERSIONS),
    /** Event kinds received; null receives every kind. */
    events: p.json<string[]>().nullable(),
    active: p.boolean().default(true),
    /** `whsec_…` sealed with `services.secrets.encrypt`. */
    secretEncrypted: p.text().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
/** A destination row. */
export type WebhookDestination = InferEntity<typeof WebhookDestinationSchema>;

/**
 * One message to one target (a destination or a session's callback URL). Its id is the
 * Standard Webhooks `webhook-id`, so it stays the same across retries and replays.
 */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** The environment of the event (and of its destination). */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    /** The outbox event delivered; null for test events. */
    eventId: p.uuid().nullable(),
    eventType: p.text(),
    sessionId: p.uuid().nullable(),
    /** The destination; null for a session callback. */
    destinationId: p.uuid().nullable(),
    /** The session's `callback` URL when this is a callback delivery. */
    callbackUrl: p.text().nullable(),
    /** Destination id or `callback`: with the event id, it makes fan-out idempotent. */
    target: p.text(),
    /** The exact JSON body sent (fixed at fan-out so every attempt signs the same bytes). */
    body: p.text().lazy(),
    status: p.enum(WEBHOOK_DELIVERY_STATUSES),
    /** Attempts made in total. */
    attemptCount: p.integer().default(0),
    /** Attempts made since creation or the last replay: the position in the retry schedule. */
    schedulePosition: p.integer().default(0),
    /** When the delivery is due (again); a claim leaves it as it is and leases the row in {@link claimedUntil}. */
    nextAttemptAt: p.datetime().nullable(),
    /**
     * Until when an emitter holds the delivery for its try; null when none does. Outside every
     * index, so a claim is a HOT update; a lease that ran out (its emitter died) can be claimed again.
     */
    claimedUntil: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    /** Who replayed it last: the operator's name, or `api_key:<key id>`; null when never replayed. */
    replayedBy: p.text().nullable(),
    replayedAt: p.datetime().nullable(),
    /** The W3C trace context of the event's request, copied from the outbox: its POSTs continue that trace. */
    traceContext: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
/** A delivery row. */
export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;

/** One HTTP try of a delivery: outcome, response code, duration and when the next try is due. */
export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    id: p.uuid().primary(),
    deliveryId: p.uuid(),
    tenantId: p.uuid(),
    /** The delivery's environment. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    attemptedAt: p.datetime(),
    status: p.enum(WEBHOOK_ATTEMPT_STATUSES),
    /** HTTP status of the response; null when no response came (refused, timeout, network). */
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    error: p.text().nullable(),
    /** The first bytes of the response body (capped), for debugging the receiver. */
    responseBody: p.text().nullable(),
    /** When the delivery is tried next; null when this was the last try. */
    nextAttemptAt: p.datetime().nullable(),
  },
});
/** An attempt row. */
export type WebhookAttempt = InferEntity<typeof WebhookAttemptSchema>;

/** A marker per outbox event already turned into deliveries: fan-out runs once per event, whichever server does it. */
export const WebhookFanoutSchema = defineEntity({
  name: 'WebhookFanout',
  tableName: 'webhook_fanout',
  properties: {
    eventSeq: p.bigint('number').primary(),
    processedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A fan-out marker row. */
export type WebhookFanout = InferEntity<typeof WebhookFanoutSchema>;

/** The watermark below which every outbox event is known to be fanned out, so markers below it can be pruned (one row, id 1). */
export const WebhookCursorSchema = defineEntity({
  name: 'WebhookCursor',
  tableName: 'webhook_cursor',
  properties: {
    id: p.integer().primary(),
    seq: p.bigint('number'),
  },
});
/** The fan-out cursor row. */
export type WebhookCursor = InferEntity<typeof WebhookCursorSchema>;
