import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { NodeStatus, NodeType, SessionStatus } from '../src/domain/types.js';
import { EnvironmentEnum, NodeStatusEnum, NodeTypeEnum, SessionStatusEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';
import { Connection, type ConnectionPage } from './connection.js';

/** A non-blocking finding listed beside a result. */
@ObjectType('Warning', { description: 'A non-blocking finding (name or details mismatch); it sends the session to review.' })
export class WarningObject {
  @Field(() => String)
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => String, { nullable: true })
  field?: string | null;
}

/** The result of one workflow node. */
@ObjectType('NodeResult', { description: 'The result of one workflow node of a session.' })
export class NodeResultObject {
  @Field(() => NodeTypeEnum)
  nodeType!: NodeType;

  @Field(() => NodeStatusEnum)
  status!: NodeStatus;

  @Field(() => Boolean)
  required!: boolean;

  @Field(() => String, { description: '`<provider_name>:<job>` that produced the result.' })
  provider!: string;

  @Field(() => [WarningObject])
  warnings!: WarningObject[];

  @Field(() => GraphQLJSONObject, { description: 'Check-specific details (extracted fields, scores, reason codes).' })
  details!: Record<string, unknown>;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  updatedAt!: number;
}

/** Why a decision came out as it did. */
@ObjectType('DecisionReason')
export class DecisionReasonObject {
  @Field(() => String)
  code!: string;

  @Field(() => String)
  message!: string;

  @Field(() => NodeTypeEnum, { nullable: true })
  nodeType?: NodeType | null;

  @Field(() => String, { nullable: true })
  listId?: string | null;

  @Field(() => String, { nullable: true })
  entryId?: string | null;

  @Field(() => String, {
    description:
      "The reason catalogue code of what happened (document_expired, face_mismatch, name_mismatch, …; docs/webhooks.md \"Reasons\"): the node's result or warning code, else the rule's own code, or a tenant's own code a reviewer chose.",
  })
  cause!: string;

  @Field(() => String, { description: 'document, face, fraud, screening, data or technical.' })
  category!: string;

  @Field(() => String, { description: 'low, medium, high or critical.' })
  severity!: string;

  @Field(() => Boolean, { description: 'true when the person can fix it by doing the step again (RETRY); false when final.' })
  retryable!: boolean;

  @Field(() => String, { description: 'The reason catalogue\'s sentence for reviewers (the console\'s "Why").' })
  reviewerText!: string;
}

/** The verdict of a session (the spec's Decision). */
@ObjectType('Decision', {
  description: 'The verdict: approved carries a compliance level and a service token; declined and in review carry neither.',
})
export class DecisionObject {
  @Field(() => String)
  sessionId!: string;

  @Field(() => SessionStatusEnum)
  status!: SessionStatus;

  @Field(() => String)
  workflowId!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'The workflow revision that decided the session; null for sessions older than revisions.',
  })
  workflowRevision?: number | null;

  @Field(() => String)
  vendorData!: string;

  @Field(() => String, { nullable: true, description: 'Only when approved.' })
  complianceLevel?: string | null;

  @Field(() => String, { nullable: true, description: 'EdDSA JWT, only when approved; verify with /.well-known/jwks.json.' })
  serviceToken?: string | null;

  @Field(() => [NodeResultObject])
  nodeResults!: NodeResultObject[];

  @Field(() => [DecisionReasonObject], { description: 'Every cause that declined the session or sent it to review.' })
  reasons!: DecisionReasonObject[];

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The metadata given at creation, echoed back.' })
  metadata?: Record<string, unknown> | null;
}

/** One audited status change. */
@ObjectType('StatusChange', { description: 'One audited status change of a session.' })
export class StatusChangeObject {
  @Field(() => String)
  id!: string;

  @Field(() => SessionStatusEnum, { nullable: true })
  fromStatus?: SessionStatus | null;

  @Field(() => SessionStatusEnum)
  toStatus!: SessionStatus;

  @Field(() => String, { description: 'api, end_user, decision_engine, reviewer, expiry or import.' })
  actor!: string;

  @Field(() => String, { nullable: true, description: 'Id of the API key that made the change, when a key did.' })
  actorKeyId?: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the operator who made the change in the console, when one did.' })
  actorOperatorId?: string | null;

  @Field(() => String, { nullable: true, description: "The operator's name at the time of the change, when an operator made it." })
  actorName?: string | null;

  @Field(() => String, { nullable: true })
  reason?: string | null;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  at!: number;
}

/** A verification session. */
@ObjectType('Session', { description: 'A verification session of one end user.' })
export class SessionObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, { description: 'Address the end user visits; carries a session-scoped token.' })
  url!: string;

  @Field(() => SessionStatusEnum)
  status!: SessionStatus;

  @Field(() => String)
  workflowId!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'The workflow revision the session runs to its end; null for sessions older than revisions.',
  })
  workflowRevision?: number | null;

  @Field(() => String)
  vendorData!: string;

  @Field(() => EnvironmentEnum)
  environment!: 'live' | 'sandbox';

  @Field(() => String, { nullable: true })
  callback?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the hosted flow sends the browser at the end, when set.' })
  redirectUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'Language of the hosted flow chosen at creation, when chosen.' })
  language?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  metadata?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  contactDetails?: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  expectedDetails?: Record<string, unknown> | null;

  @Field(() => [WarningObject])
  warnings!: WarningObject[];

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  updatedAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds; pending and in-progress sessions expire then.' })
  expiresAt!: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix time, seconds.' })
  decidedAt?: number | null;

  @Field(() => UnixTimeScalar, {
    nullable: true,
    description: 'Unix time, seconds: when it last entered review (the review SLA counts from it); null when it never did.',
  })
  reviewEnteredAt?: number | null;

  @Field(() => String, { nullable: true, description: 'Compliance level of an approved session.' })
  complianceLevel?: string | null;

  /** Owner, for field resolvers; not exposed. */
  tenantId!: string;

  /** Verdict reasons, for the decision field; not exposed here. */
  reasons!: { code: string; message: string; nodeType?: string; listId?: string; entryId?: string }[];
}

/** The result of createSession. */
@ObjectType('CreateSessionPayload')
export class CreateSessionPayload {
  @Field(() => SessionObject)
  session!: SessionObject;

  @Field(() => Boolean, {
    description: 'True when an active session with the same workflow and vendor_data was returned instead of a new one.',
  })
  idempotentReuse!: boolean;
}

/** A page of sessions, newest first. */
export const SessionConnection = Connection(SessionObject, 'Session', {
  description: 'A page of sessions of the calling tenant and environment.',
});
/** A page of sessions as resolvers return it. */
export type SessionConnection = ConnectionPage<SessionObject>;

/** One step the end user has to complete. */
@ObjectType('VerificationStep')
export class VerificationStep {
  @Field(() => NodeTypeEnum)
  nodeType!: NodeType;

  @Field(() => Boolean)
  required!: boolean;

  @Field(() => NodeStatusEnum)
  status!: NodeStatus;

  @Field(() => String)
  description!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Why the step asks for a retake (image_blurry, image_too_small, mrz_not_found, …), while its status is resubmission_requested.',
  })
  resubmissionReason?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "While resubmission_requested: the theme of the sentence the person reads (photo_unreadable, document_expired, …; src/domain/reasons.ts END_USER_MESSAGES), from the engine's reason or the reviewer's reason code.",
  })
  retakeMessage?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "While resubmission_requested on a reviewer's request: the reviewer's note to the person.",
  })
  retakeNote?: string | null;

  @Field(() => Int, { description: 'Submissions of the step so far.' })
  attempts!: number;

  @Field(() => Int, { description: "Submissions left before a photo that cannot be read fails the step (the workflow's maxAttempts)." })
  attemptsRemaining!: number;
}

/** What the end user sees of their session: status and steps, nothing of the verdict's internals. */
@ObjectType('VerificationProgress')
export class VerificationProgress {
  @Field(() => String)
  sessionId!: string;

  @Field(() => SessionStatusEnum)
  status!: SessionStatus;

  @Field(() => [VerificationStep])
  steps!: VerificationStep[];

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  expiresAt!: number;
}

/** What introspection says of a service token. */
@ObjectType('ServiceTokenIntrospection')
export class ServiceTokenIntrospection {
  @Field(() => Boolean, { description: 'True only when valid: signature verifies, not expired, not revoked.' })
  active!: boolean;

  @Field(() => String, { description: 'valid, expired, revoked or invalid.' })
  status!: string;

  @Field(() => String, { nullable: true })
  jti?: string | null;

  @Field(() => String, { nullable: true })
  sessionId?: string | null;

  @Field(() => String, { nullable: true })
  tenantId?: string | null;

  @Field(() => String, { nullable: true })
  workflowId?: string | null;

  @Field(() => String, { nullable: true })
  complianceLevel?: string | null;

  @Field(() => String, { nullable: true })
  vendorData?: string | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix time, seconds.' })
  issuedAt?: number | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix time, seconds.' })
  expiresAt?: number | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix time, seconds.' })
  revokedAt?: number | null;
}

/** Where a phone code was sent. */
@ObjectType('PhoneCodeRequest')
export class PhoneCodeRequest {
  @Field(() => String, { description: 'The number, masked except its last digits.' })
  sentTo!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds; the code is refused after it.' })
  expiresAt!: number;
}
