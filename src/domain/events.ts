/**
 * The events the service records (docs/webhooks.md, "Events"): one payload type and one
 * constructor per event type, as the outbox stores them, and the webhook bodies each payload
 * version is built into. The outbox, the live-status hub and the webhook payload builder all read
 * these types; a payload is only ever made by its constructor, so a stored row's `type` names its
 * payload and readers need no guards.
 */
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { TransitionActor } from './session-state.js';
import type { SessionStatus } from './types.js';
import { unixSeconds } from '../shared/time.js';

/** Event kinds the service emits (the spec names the first two). */
export const EVENT_TYPES = ['session.status_changed', 'agent.revoked', 'session.resubmission_requested'] as const;

/** Who changed a session's status: the state machine's actors, plus the API creating it and a list import. */
export type StatusChangeActor = TransitionActor | 'api' | 'import';

/** The stored payload of `session.status_changed`. */
export interface StatusChangedPayload {
  session_id: string;
  status: SessionStatus;
  /** Null when the session was created. */
  previous_status: SessionStatus | null;
  workflow_id: string;
  vendor_data: string;
  environment: ApiKeyEnvironment;
  actor: StatusChangeActor;
  /** A reviewer's or the system's reason, present only when one was given. */
  reason?: string;
  /** Unix seconds. */
  changed_at: number;
}

/** The stored payload of `agent.revoked`: one service token withdrawn. */
export interface AgentRevokedPayload {
  jti: string;
  session_id: string;
  vendor_data: string;
  /** Unix seconds. */
  revoked_at: number;
  reason: string;
}

/** The stored payload of `session.resubmission_requested`: a step the person must provide again. */
export interface ResubmissionRequestedPayload {
  session_id: string;
  workflow_id: string;
  vendor_data: string;
  node_type: string;
  /** The engine's or the reviewer's resubmission reason code. */
  resubmission_reason: string;
  attempts: number;
  attempts_remaining: number;
  /** A reviewer's note, when a reviewer asked. */
  reason?: string;
  /** The catalogue code a reviewer picked, when one did. */
  reason_code?: string;
}

/** Each event type's stored payload. */
export interface EventPayloads {
  'session.status_changed': StatusChangedPayload;
  'agent.revoked': AgentRevokedPayload;
  'session.resubmission_requested': ResubmissionRequestedPayload;
}

/** An event kind. */
export type EventType = keyof EventPayloads;

/** Any stored payload. */
export type EventPayload = EventPayloads[EventType];

/** An event as its type and payload: narrowing on `type` types `payload`. */
export type DomainEvent = { [T in EventType]: { type: T; payload: EventPayloads[T] } }[EventType];

/** The session fields every session event names. */
export interface EventSession {
  id: string;
  workflowId: string;
  vendorData: string;
  environment: ApiKeyEnvironment;
}

/** `session.status_changed`: the session moved from `from` (null at creation) to `to`. */
export function statusChanged(
  session: EventSession,
  from: SessionStatus | null,
  to: SessionStatus,
  actor: StatusChangeActor,
  reason: string | null,
  at: Date,
): { type: 'session.status_changed'; payload: StatusChangedPayload } {
  return {
    type: 'session.status_changed',
    payload: {
      session_id: session.id,
      status: to,
      previous_status: from,
      workflow_id: session.workflowId,
      vendor_data: session.vendorData,
      environment: session.environment,
      actor,
      ...(reason ? { reason } : {}),
      changed_at: unixSeconds(at),
    },
  };
}

/** `agent.revoked`: the service token `jti` of a session was withdrawn at `at`. */
export function agentRevoked(
  token: { jti: string; sessionId: string; vendorData: string },
  reason: string,
  at: Date,
): { type: 'agent.revoked'; payload: AgentRevokedPayload } {
  return {
    type: 'agent.revoked',
    payload: { jti: token.jti, session_id: token.sessionId, vendor_data: token.vendorData, revoked_at: unixSeconds(at), reason },
  };
}

/** `session.resubmission_requested`: the person is asked for a step again (by an engine's retryable result or a reviewer). */
export function resubmissionRequested(
  session: Omit<EventSession, 'environment'>,
  step: {
    nodeType: string;
    resubmissionReason: string;
    attempts: number;
    maxAttempts: number;
    /** The reviewer's note and catalogue code, when a reviewer asked. */
    reviewer?: { note: string; reasonCode: string | null };
  },
): { type: 'session.resubmission_requested'; payload: ResubmissionRequestedPayload } {
  const { reviewer } = step;
  return {
    type: 'session.resubmission_requested',
    payload: {
      session_id: session.id,
      workflow_id: session.workflowId,
      vendor_data: session.vendorData,
      node_type: step.nodeType,
      resubmission_reason: step.resubmissionReason,
      attempts: step.attempts,
      attempts_remaining: Math.max(0, step.maxAttempts - step.attempts),
      ...(reviewer ? { reason: reviewer.note } : {}),
      ...(reviewer?.reasonCode ? { reason_code: reviewer.reasonCode } : {}),
    },
  };
}

/**
 * An event read back from storage (an outbox row, a NOTIFY announcement) as its union member.
 * Every payload the service stores was made by a constructor above for that row's type, so the
 * pair is trusted here, once, instead of being re-checked field by field by every reader.
 */
export function storedEvent(type: EventType, payload: EventPayload): DomainEvent {
  return { type, payload } as DomainEvent;
}

/** Event kind of the message `POST …/test` sends; never recorded in the outbox. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** The payload of a destination's test message. */
export interface TestPayload {
  destination_id: string;
  test: true;
}

/** A webhook body in payload version v1: the event and the session, minimal. */
export interface WebhookBodyV1 {
  event: EventType | typeof TEST_EVENT_TYPE;
  session_id: string | null;
  status?: SessionStatus;
  /** A status change's decision reasons, when it has any. */
  reasons?: unknown[];
}

/** A status change in payload version v2: flat, in the order docs/design.md lists the fields. */
export interface WebhookStatusBodyV2 {
  event: 'session.status_changed';
  created_at: number;
  session_id: string;
  status: SessionStatus;
  previous_status: SessionStatus | null;
  workflow_id: string;
  vendor_data: string;
  reasons?: unknown[];
}

/** Any other event in payload version v2: its payload's fields flat beside the event and time. */
export type WebhookOtherBodyV2 = { event: Exclude<EventType, 'session.status_changed'> | typeof TEST_EVENT_TYPE; created_at: number } & (
  AgentRevokedPayload | ResubmissionRequestedPayload | TestPayload
);

/** A webhook body in payload version v2. */
export type WebhookBodyV2 = WebhookStatusBodyV2 | WebhookOtherBodyV2;

/** A webhook body in payload version v3: `data` is the payload (a status change's with its decision snapshot merged in). */
export interface WebhookBodyV3 {
  /** The event's own id, the same a subscriber receives. */
  id: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  timestamp: number;
  data: EventPayload | TestPayload | (StatusChangedPayload & Record<string, unknown>);
}
