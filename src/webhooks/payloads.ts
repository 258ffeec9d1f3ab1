import type { WebhookVersion } from '../../entities/webhook.entity.js';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import {
  TEST_EVENT_TYPE,
  type DomainEvent,
  type TestPayload,
  type WebhookBodyV1,
  type WebhookBodyV2,
  type WebhookBodyV3,
} from '../domain/events.js';
import type { DecisionJson } from '../sessions/decision.js';
import { unixSeconds } from '../shared/time.js';

export { TEST_EVENT_TYPE } from '../domain/events.js';

/** An outbox event (or a destination's test message) as the emitter turns it into bodies. */
export type EventForDelivery = {
  id: string;
  tenantId: string;
  /** Only destinations of this environment receive the event. */
  environment: ApiKeyEnvironment;
  sessionId: string | null;
  createdAt: Date;
} & (DomainEvent | { type: typeof TEST_EVENT_TYPE; payload: TestPayload });

export type { DecisionJson } from '../sessions/decision.js';

/** True when a decision names at least one reason (v1 and v2 then carry them; absent means absent). */
function hasReasons(decision: DecisionJson | null): decision is DecisionJson & { reasons: unknown[] } {
  return Array.isArray(decision?.reasons) && decision.reasons.length > 0;
}

/**
 * The JSON body of an event in one payload version (docs/design.md "Events and webhooks"):
 * v3 `{id, type, timestamp, data}` where `data` of a status change is the decision itself as of the
 * event (its snapshot) with the change's own fields beside it (`previous_status`, `changed_at`,
 * `actor`, `environment`, `reason`); v2 flat
 * `{event, created_at, session_id, status, previous_status, workflow_id, vendor_data}`;
 * v1 `{event, session_id, status}`. v2 and v1 status changes also carry the decision's `reasons`
 * when it has any (every version says why; absent means absent, so a change with no reason keeps
 * the spec's exact shape). Timestamps are Unix seconds like the rest of the API.
 */
export function buildWebhookBody(version: WebhookVersion, event: EventForDelivery, decision: DecisionJson | null): string {
  const createdAt = unixSeconds(event.createdAt);
  if (version === 'v3') {
    const data = event.type === 'session.status_changed' && decision ? { ...event.payload, ...decision } : event.payload;
    // `id` is the event's own id, the same a graphql-ws subscriber receives: one key to dedupe
    // across channels (the webhook-id header differs per destination).
    return JSON.stringify({ id: event.id, type: event.type, timestamp: createdAt, data } satisfies WebhookBodyV3);
  }
  if (version === 'v2') {
    if (event.type !== 'session.status_changed')
      return JSON.stringify({ event: event.type, created_at: createdAt, ...event.payload } satisfies WebhookBodyV2);
    const { payload } = event;
    const flat: WebhookBodyV2 = {
      event: event.type,
      created_at: createdAt,
      session_id: payload.session_id,
      status: payload.status,
      previous_status: payload.previous_status,
      workflow_id: payload.workflow_id,
      vendor_data: payload.vendor_data,
      ...(hasReasons(decision) ? { reasons: decision.reasons } : {}),
    };
    return JSON.stringify(flat);
  }
  const v1: WebhookBodyV1 = {
    event: event.type,
    session_id: 'session_id' in event.payload ? event.payload.session_id : event.sessionId,
  };
  if (event.type === 'session.status_changed') {
    v1.status = event.payload.status;
    if (hasReasons(decision)) v1.reasons = decision.reasons;
  }
  return JSON.stringify(v1);
}

/** The body of a test message to a destination, in its version. */
export function buildTestBody(version: WebhookVersion, destinationId: string, environment: ApiKeyEnvironment, now: Date): string {
  return buildWebhookBody(
    version,
    {
      id: destinationId,
      type: TEST_EVENT_TYPE,
      tenantId: '',
      environment,
      sessionId: null,
      payload: { destination_id: destinationId, test: true },
      createdAt: now,
    },
    null,
  );
}
