import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { EVENT_TYPES, type EventPayload } from '../src/domain/events.js';

/**
 * The transactional outbox: one row per event, written in the same transaction as the change
 * that caused it; subscriptions and the webhook emitter read from here.
 */
export const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_event',
  properties: {
    /** Delivery order across the whole service. */
    seq: p.bigint('number').primary().autoincrement(),
    /** Stable id for dedupe (`webhook-id`, subscription event id). */
    id: p.uuid().unique(),
    tenantId: p.uuid(),
    /** The environment of the object the event is about: only that environment's subscribers and destinations get it. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    type: p.enum(EVENT_TYPES),
    sessionId: p.uuid().nullable(),
    /** Made by the constructor of `type` in src/domain/events.ts. */
    payload: p.json<EventPayload>(),
    /**
     * For `session.status_changed`: the session's decision as it was when the event happened
     * (sealed: it can hold a service token), so a webhook sent later carries that moment's state.
     */
    snapshot: p.text().nullable(),
    /** The W3C trace context of the request that recorded it (src/observability/tracing.ts); its webhook POSTs continue that trace. */
    traceContext: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime(),
  },
});
/** An outbox row. */
export type OutboxEvent = InferEntity<typeof OutboxEventSchema>;
