import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { OperatorSchema } from './operator.entity.js';

/** Who holds an in-review case (src/operators/claims.ts): one operator at a time decides it. */
export const SessionClaimSchema = defineEntity({
  name: 'SessionClaim',
  tableName: 'session_claim',
  properties: {
    sessionId: p.uuid().primary(),
    tenantId: p.uuid(),
    /** The holder: a relation, so a claim is read with its holder's name in one statement. */
    operator: () => p.manyToOne(OperatorSchema).ref(),
    claimedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A case claim row. */
export type SessionClaim = InferEntity<typeof SessionClaimSchema>;

/** A note a reviewer or an integrator leaves on a session: append-only, shown in the case's history. */
export const SessionNoteSchema = defineEntity({
  name: 'SessionNote',
  tableName: 'session_note',
  properties: {
    id: p.uuid().primary(),
    sessionId: p.uuid(),
    tenantId: p.uuid(),
    /** The operator who wrote it; null when an API key did. */
    authorOperatorId: p.uuid().nullable(),
    /** The API key that wrote it; null when an operator did. */
    authorKeyId: p.uuid().nullable(),
    /** The author's name as the history shows it. */
    authorName: p.text(),
    /** 1–4,000 characters. */
    body: p.text(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A session note row. */
export type SessionNote = InferEntity<typeof SessionNoteSchema>;

/** A reviewer's ruling on one AML hit: a true match or a false positive. */
export const AML_HIT_DISPOSITIONS = ['true_match', 'false_positive'] as const;

/**
 * A reviewer's ruling on one screening hit of a session, kept by digests of the subject and the
 * listed entity so that a later rescreen of the same person against the same entry remembers it.
 */
export const AmlHitDispositionSchema = defineEntity({
  name: 'AmlHitDisposition',
  tableName: 'aml_hit_disposition',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sessionId: p.uuid(),
    /** `<list>:<entry id>` of the listed entity. */
    entityId: p.text(),
    /** Keyed digest of the screened subject (normalised name, date of birth, country), never the name itself. */
    subjectHash: p.text(),
    /** Digest of the listed entity's record as it was ruled on: a changed record is ruled on again. */
    entityHash: p.text(),
    disposition: p.enum(AML_HIT_DISPOSITIONS),
    /** Why, in the reviewer's words. */
    reason: p.text(),
    /** `operator:<id>` or `api_key:<id>`. */
    actor: p.text(),
    actorOperatorId: p.uuid().nullable(),
    actorName: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** An AML hit disposition row. */
export type AmlHitDisposition = InferEntity<typeof AmlHitDispositionSchema>;

/**
 * Who new cases in review go to: for a workflow and/or a country (null for any), the operators
 * taking turns, with the position of the next one.
 */
export const AssignmentRuleSchema = defineEntity({
  name: 'AssignmentRule',
  tableName: 'assignment_rule',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    /** The workflow it applies to; null for every workflow. */
    workflowId: p.text().nullable(),
    /** ISO 3166-1 alpha-2 country it applies to; null for every country. */
    country: p.text().nullable(),
    /** Operator ids in turn order. */
    operatorIds: p.json<string[]>(),
    /** Index into `operatorIds` of the next case's operator. */
    nextIndex: p.integer().default(0),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** An assignment rule row. */
export type AssignmentRule = InferEntity<typeof AssignmentRuleSchema>;

/** A tenant's review deadline for one workflow's cases, in minutes (1 to a year). */
export const WorkflowSlaSchema = defineEntity({
  name: 'WorkflowSla',
  tableName: 'workflow_sla',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.enum(API_KEY_ENVIRONMENTS).primary(),
    workflowId: p.text().primary(),
    slaMinutes: p.integer(),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A review SLA row. */
export type WorkflowSla = InferEntity<typeof WorkflowSlaSchema>;
