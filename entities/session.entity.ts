import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { NODE_STATUSES, NODE_TYPES, SESSION_STATUSES, type Warning } from '../src/domain/types.js';
import { SealedJsonType } from './sealed-json.type.js';
import { TenantSchema } from './tenant.entity.js';
import { WorkflowSchema } from './workflow.entity.js';

/** Contact details given at creation to pre-fill OTP steps. */
export interface ContactDetails {
  email?: string;
  /** E.164. */
  phone?: string;
}

/** Expected identity given at creation; a difference produces mismatch warnings. */
export interface ExpectedDetails {
  first_name?: string;
  last_name?: string;
  /** `YYYY-MM-DD`. */
  date_of_birth?: string;
  /** ISO-2. */
  country?: string;
}

/** Why a decision came out as it did (verdict reasons), kept for the decision endpoint. */
export interface StoredReason {
  code: string;
  message: string;
  nodeType?: string;
  listId?: string;
  entryId?: string;
  /** The reason catalogue's code of what happened (src/domain/reasons.ts); absent on reasons stored before it existed. */
  cause?: string;
  /** Kept when the cause is a tenant's own code (a reviewer's decision), so the decision reads it without the tenant's table. */
  category?: string;
  severity?: string;
  retryable?: boolean;
  /** A tenant code's sentence for reviewers. */
  reviewerText?: string;
  /** A tenant code's theme of the person's sentence (src/domain/reasons.ts END_USER_MESSAGES); built-in causes read it from the catalogue. */
  endUserMessage?: string;
}

/** A verification session of one tenant's end user. */
export const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'session',
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    /** Environment of the key that created it: sandbox sessions run the sandbox provider. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    workflow: () => p.manyToOne(WorkflowSchema).ref(),
    vendorData: p.text(),
    status: p.enum(SESSION_STATUSES),
    callback: p.text().nullable(),
    /** Where the hosted flow sends the browser at the end (its origin is in the tenant's allow-list). */
    redirectUrl: p.text().nullable(),
    /** Language of the hosted flow chosen at creation (en, fr, de, es). */
    language: p.text().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    /** Sealed at rest (src/auth/personal-data.ts); read and written as a plain object. */
    contactDetails: p.json<ContactDetails>().type(SealedJsonType).nullable(),
    /** Sealed at rest but for `country` (src/auth/personal-data.ts); read and written as a plain object. */
    expectedDetails: p.json<ExpectedDetails>().type(SealedJsonType).nullable(),
    warnings: p.json<Warning[]>(),
    reasons: p.json<StoredReason[]>(),
    complianceLevel: p.text().nullable(),
    /** Highest AML score (0–100) seen by the session's screening, when it ran. */
    amlScore: p.integer().nullable(),
    /** The workflow revision the session runs, from creation to its end; null for sessions older than revisions. */
    workflowRevision: p.integer().nullable(),
    /** Share token this session was imported from, when it was. */
    importedFrom: p.text().nullable(),
    createdByKeyId: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    expiresAt: p.datetime(),
    decidedAt: p.datetime().nullable(),
    /** When it last entered review: the review SLA's age counts from it. */
    reviewEnteredAt: p.datetime().nullable(),
    /** When its evidence and personal data were erased on request; the decision and the audit trail stay. */
    erasedAt: p.datetime().nullable(),
    /** Who asked: `api_key:<id>` or `operator:<name>`. */
    erasedBy: p.text().nullable(),
    /** The furthest stage the session reached (a trigger keeps it): the console's funnel reads it instead of the status history. */
    furthestStage: p.smallint().default(0),
  },
});
/** A session row. */
export type Session = InferEntity<typeof SessionSchema>;

/** The stored result of one workflow node of one session. */
export const SessionNodeResultSchema = defineEntity({
  name: 'SessionNodeResult',
  tableName: 'session_node_result',
  properties: {
    sessionId: p.uuid().primary(),
    nodeType: p.enum(NODE_TYPES).primary(),
    status: p.enum(NODE_STATUSES),
    required: p.boolean(),
    provider: p.text(),
    warnings: p.json<Warning[]>(),
    /** Sealed at rest but for result code, document type and countries (src/auth/personal-data.ts); read and written as a plain object. */
    details: p.json<Record<string, unknown>>().type(SealedJsonType),
    /** Submissions of this node so far (retakes included). */
    attempts: p.integer().default(0),
    /** Why the node waits for a retake (`image_blurry`, …), while `resubmission_requested`. */
    resubmissionReason: p.text().nullable(),
    /** On a reviewer's retake: the reason catalogue code the reviewer chose, if one. */
    retakeReasonCode: p.text().nullable(),
    /** On a reviewer's retake: the note the person reads (the reviewer saw the preview). */
    retakeNote: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
/** A node result row. */
export type SessionNodeResult = InferEntity<typeof SessionNodeResultSchema>;

/** One audited status change: who (actor and key), when, from, to, why. */
export const SessionStatusChangeSchema = defineEntity({
  name: 'SessionStatusChange',
  tableName: 'session_status_change',
  properties: {
    id: p.uuid().primary(),
    sessionId: p.uuid(),
    tenantId: p.uuid(),
    fromStatus: p.enum(SESSION_STATUSES).nullable(),
    toStatus: p.enum(SESSION_STATUSES),
    /** `api` (creation), `end_user`, `decision_engine`, `reviewer`, `expiry`, `import`. */
    actor: p.text(),
    actorKeyId: p.uuid().nullable(),
    /** The operator who made the change in the console, when one did. */
    actorOperatorId: p.uuid().nullable(),
    /** That operator's name at the time, so the audit trail reads the same after a rename. */
    actorName: p.text().nullable(),
    reason: p.text().nullable(),
    /** The client address of the operator's console sign-in, when an operator made the change. */
    clientAddress: p.text().nullable(),
    createdAt: p.datetime(),
  },
});
/** A status change row. */
export type SessionStatusChange = InferEntity<typeof SessionStatusChangeSchema>;

/** The document portrait's face embedding between the document and selfie steps (encrypted; never the image). */
export const SessionPortraitSchema = defineEntity({
  name: 'SessionPortrait',
  tableName: 'session_portrait',
  properties: {
    sessionId: p.uuid().primary(),
    /** JSON array of the L2-normalised embedding, sealed with the service's encryption key. */
    embeddingEncrypted: p.text().hidden(),
    createdAt: p.datetime(),
  },
});
/** A portrait row. */
export type SessionPortrait = InferEntity<typeof SessionPortraitSchema>;

/**
 * How many sessions of a scope created in one UTC hour reached a stage or a later one: the funnel
 * sums these instead of counting sessions (migration H41SessionCounts; its triggers and the fold job
 * write it with SQL, never the ORM).
 */
export const SessionFunnelCountSchema = defineEntity({
  name: 'SessionFunnelCount',
  tableName: 'session_funnel_count',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.text().primary(),
    /** The hour the sessions were created in, truncated in UTC. */
    hour: p.datetime().primary(),
    stage: p.smallint().primary(),
    sessions: p.bigint('number'),
  },
});
/** A funnel count row. */
export type SessionFunnelCount = InferEntity<typeof SessionFunnelCountSchema>;

/** The same counts by UTC day (the fold writes both), so a 90-day funnel sums 90 rows a stage, not 2,160. */
export const SessionFunnelDayCountSchema = defineEntity({
  name: 'SessionFunnelDayCount',
  tableName: 'session_funnel_day_count',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.text().primary(),
    /** The UTC day the sessions were created on, as its midnight. */
    day: p.datetime().primary(),
    stage: p.smallint().primary(),
    sessions: p.bigint('number'),
  },
});
/** A funnel day count row. */
export type SessionFunnelDayCount = InferEntity<typeof SessionFunnelDayCountSchema>;

/**
 * A signed change to a funnel count, appended by the session triggers (so concurrent creates never
 * wait on one counter row) until the fold job adds it into `session_funnel_count`.
 */
export const SessionFunnelChangeSchema = defineEntity({
  name: 'SessionFunnelChange',
  tableName: 'session_funnel_change',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    tenantId: p.uuid(),
    environment: p.text(),
    hour: p.datetime(),
    stage: p.smallint(),
    sessions: p.integer(),
  },
});
/** A funnel change row. */
export type SessionFunnelChange = InferEntity<typeof SessionFunnelChangeSchema>;

/**
 * How many sessions of a scope are in a status: the review queue's `totalCount` reads this instead
 * of counting (migration H41SessionCounts; written with SQL by its triggers and the fold job).
 */
export const SessionStatusCountSchema = defineEntity({
  name: 'SessionStatusCount',
  tableName: 'session_status_count',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.text().primary(),
    status: p.text().primary(),
    sessions: p.bigint('number'),
  },
});
/** A status count row. */
export type SessionStatusCount = InferEntity<typeof SessionStatusCountSchema>;

/** A signed change to a status count, appended by the session triggers until the fold job adds it into `session_status_count`. */
export const SessionStatusCountChangeSchema = defineEntity({
  name: 'SessionStatusCountChange',
  tableName: 'session_status_count_change',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    tenantId: p.uuid(),
    environment: p.text(),
    status: p.text(),
    sessions: p.integer(),
  },
});
/** A status count change row. */
export type SessionStatusCountChange = InferEntity<typeof SessionStatusCountChangeSchema>;
