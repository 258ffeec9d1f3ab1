import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import type { NodeType } from '../src/domain/types.js';
import type { WorkflowRule } from '../src/domain/workflow-rules.js';
import { TenantSchema } from './tenant.entity.js';

/** One node of a workflow as stored. */
export interface WorkflowNode {
  type: NodeType;
  required: boolean;
  /** `<provider_name>:<job>`. */
  provider: string;
}

/** Kinds of subject a workflow verifies. */
export const WORKFLOW_TYPES = ['user', 'business'] as const;
/** A workflow's subject kind. */
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];
/** What a duplicate identity (same face or document under another vendor_data) does: nothing, a review, or a decline. */
export const DUPLICATES_POLICIES = ['off', 'review', 'decline'] as const;
/** A workflow's duplicates policy. */
export type DuplicatesPolicy = (typeof DUPLICATES_POLICIES)[number];

/** Where a workflow's photos may come from: `any` (camera or upload, today's behaviour) or `camera` only. */
export const WORKFLOW_CAPTURE_MODES = ['any', 'camera'] as const;
/** A workflow's capture mode. */
export type WorkflowCaptureMode = (typeof WORKFLOW_CAPTURE_MODES)[number];
/** How a workflow's selfie proves liveness: the passive models only, or a head-turn challenge as well. */
export const WORKFLOW_LIVENESS_MODES = ['passive', 'active'] as const;
/** A workflow's liveness mode. */
export type WorkflowLivenessMode = (typeof WORKFLOW_LIVENESS_MODES)[number];

/** A verification workflow; built-ins have no tenant and are read-only. */
export const WorkflowSchema = defineEntity({
  name: 'Workflow',
  tableName: 'workflow',
  properties: {
    /** Built-in ids are names (`standard_kyc`); custom ids are UUIDs assigned by the server. */
    id: p.text().primary(),
    /** Owner; null for built-ins, which every tenant sees. */
    tenant: () => p.manyToOne(TenantSchema).ref().nullable(),
    /** The owner's environment; null for built-ins, which both environments see. */
    environment: p.enum(API_KEY_ENVIRONMENTS).nullable(),
    name: p.text(),
    type: p.enum(WORKFLOW_TYPES),
    builtIn: p.boolean().default(false),
    nodes: p.json<WorkflowNode[]>(),
    /** Conditions and outcomes (src/domain/workflow-rules.ts) of the published revision. */
    rules: p.json<WorkflowRule[]>().default([]),
    complianceLevel: p.text(),
    /** AML score (0–100) at or above which a session auto-declines. */
    amlScoreThreshold: p.integer().default(80),
    /** Submissions a node may take when its photos cannot be read before it fails (retakes). */
    maxAttempts: p.integer().default(3),
    /** What a face or document already seen under another vendor_data does to the step (docs/duplicates.md). */
    duplicates: p.enum(DUPLICATES_POLICIES).default('review'),
    /** `camera` asks the hosted flow's photos to come from the camera: an upload is a `capture_integrity` review signal. */
    capture: p.enum(WORKFLOW_CAPTURE_MODES).default('any'),
    /** `active` asks the selfie step for a head-turn challenge besides the passive liveness models. */
    liveness: p.enum(WORKFLOW_LIVENESS_MODES).default('passive'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    /** The revision new sessions run; the columns above are its definition. */
    publishedRevision: p.integer().default(1),
    /** The latest saved revision not yet published, if any. */
    draftRevision: p.integer().nullable(),
    /** When the tenant deleted it; a deleted workflow is hidden but kept for the sessions that ran it. */
    deletedAt: p.datetime().nullable(),
  },
});
/** A workflow row. */
export type Workflow = InferEntity<typeof WorkflowSchema>;

/** What one revision fixes: everything that decides a session (name and type included, for the diff). */
export interface WorkflowDefinition {
  name: string;
  type: WorkflowType;
  nodes: WorkflowNode[];
  rules: WorkflowRule[];
  complianceLevel: string;
  amlScoreThreshold: number;
  maxAttempts: number;
  duplicates: DuplicatesPolicy;
  capture: WorkflowCaptureMode;
  liveness: WorkflowLivenessMode;
}

/** An immutable saved revision of a workflow: its whole definition as JSON (src/workflows/revisions.ts). */
export const WorkflowRevisionSchema = defineEntity({
  name: 'WorkflowRevision',
  tableName: 'workflow_revision',
  properties: {
    workflowId: p.text().primary(),
    revision: p.integer().primary(),
    definition: p.json<WorkflowDefinition>(),
    createdAt: p.datetime().defaultRaw('now()'),
    /** Who saved it: `api_key:<id>` or the operator's name; null for revisions made by the migration. */
    createdBy: p.text().nullable(),
  },
});
/** A workflow revision row. */
export type WorkflowRevision = InferEntity<typeof WorkflowRevisionSchema>;

/** One publication of a workflow revision, audited with who published it and what it replaced. */
export const WorkflowPublicationSchema = defineEntity({
  name: 'WorkflowPublication',
  tableName: 'workflow_publication',
  properties: {
    id: p.uuid().primary(),
    workflowId: p.text(),
    revision: p.integer(),
    previousRevision: p.integer().nullable(),
    actorKeyId: p.uuid().nullable(),
    actorOperatorId: p.uuid().nullable(),
    actorName: p.text().nullable(),
    publishedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A workflow publication row. */
export type WorkflowPublication = InferEntity<typeof WorkflowPublicationSchema>;

/** Where a replay stands. */
export const WORKFLOW_REPLAY_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

/**
 * A replay of a draft revision over past sessions (src/workflows/replay.ts): the selection as
 * given, its progress and its report. No engine runs again; this row is all a replay writes.
 */
export const WorkflowReplaySchema = defineEntity({
  name: 'WorkflowReplay',
  tableName: 'workflow_replay',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    workflowId: p.text(),
    revision: p.integer(),
    /** Which past sessions, as given (src/workflows/replay.ts `ReplaySelectionSchema`). */
    selection: p.json<Record<string, unknown>>(),
    status: p.enum(WORKFLOW_REPLAY_STATUSES).default('queued'),
    total: p.integer().default(0),
    done: p.integer().default(0),
    /** The counts and changed sessions, once done. */
    report: p.json<Record<string, unknown>>().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    finishedAt: p.datetime().nullable(),
    /** Bumped while a worker runs it: a replay whose heartbeat stopped is taken again. */
    heartbeatAt: p.datetime().nullable(),
  },
});
/** A workflow replay row. */
export type WorkflowReplay = InferEntity<typeof WorkflowReplaySchema>;
