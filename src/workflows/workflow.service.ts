import { DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_LIMIT } from '../domain/resubmission.js';
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { SessionSchema } from '../../entities/session.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { TenantScope } from '../auth/context.js';
import {
  DUPLICATES_POLICIES,
  WORKFLOW_CAPTURE_MODES,
  WORKFLOW_LIVENESS_MODES,
  WORKFLOW_TYPES,
  WorkflowSchema,
  type Workflow,
  type WorkflowDefinition,
  type WorkflowNode,
} from '../../entities/workflow.entity.js';
import { ACTIVE_STATUSES } from '../domain/session-state.js';
import { NODE_TYPES } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../shared/errors.js';
import { definedFields, givenOr, notGiven } from '../shared/input-rules.js';
import { parseOrThrow } from '../shared/validation.js';
import { BUILT_IN_WORKFLOWS, BUILT_IN_WORKFLOW_IDS } from './built-in.js';
import { DEFAULT_AML_SCORE_THRESHOLD, NODE_CATALOGUE, PROVIDER_PATTERN } from '../domain/workflow.js';
import { MAX_RULES, ruleIssues, type WorkflowRule } from '../domain/workflow-rules.js';
import { auditIdentityOf, type Principal } from '../auth/context.js';
import { fieldPath } from '../shared/validation.js';
import { insertRevision, nextRevision, recordPublication, revisionDefinition } from './revisions.js';

/** Longest workflow name, in characters. */
export const WORKFLOW_NAME_MAX_LENGTH = 200;

const NodeInput = z
  .object({
    type: z.enum(NODE_TYPES),
    required: z.boolean(),
    provider: z.string().regex(PROVIDER_PATTERN, 'provider must look like <provider_name>:<job>'),
  })
  .strict()
  .superRefine((node, ctx) => {
    const known = NODE_CATALOGUE[node.type].providers;
    if (!known.includes(node.provider)) {
      ctx.addIssue({ code: 'custom', path: ['provider'], message: `provider for ${node.type} must be one of: ${known.join(', ')}` });
    }
  });

const NodesInput = z
  .array(NodeInput)
  .min(1, 'a workflow needs at least one node')
  .max(NODE_TYPES.length)
  .superRefine((nodes, ctx) => {
    // node_results are keyed by node type, so a type may appear once.
    const seen = new Set<string>();
    nodes.forEach((node, index) => {
      if (seen.has(node.type)) ctx.addIssue({ code: 'custom', path: [index, 'type'], message: `node type ${node.type} appears twice` });
      seen.add(node.type);
    });
    if (!nodes.some((node) => node.required)) ctx.addIssue({ code: 'custom', message: 'at least one node must be required' });
  });

/**
 * The rule of each workflow field, once: the service's camelCase schemas and the REST bodies'
 * snake_case ones (src/rest/routes/workflows.ts) are built from these.
 */
export const WORKFLOW_FIELDS = {
  name: z.string().trim().min(1, 'name must not be empty').max(WORKFLOW_NAME_MAX_LENGTH),
  type: z.enum(WORKFLOW_TYPES),
  nodes: NodesInput,
  /** Conditions and outcomes; checked against the nodes by {@link assertRules} once both are known. */
  rules: z.array(z.record(z.string(), z.unknown())).max(MAX_RULES),
  complianceLevel: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lower-case word (letters, digits, _)'),
  amlScoreThreshold: z.number().int().min(0).max(100),
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT),
  duplicates: z.enum(DUPLICATES_POLICIES),
  capture: z.enum(WORKFLOW_CAPTURE_MODES),
  liveness: z.enum(WORKFLOW_LIVENESS_MODES),
} as const;

/** What a field not given at creation defaults to. */
export const WORKFLOW_DEFAULTS = {
  type: 'user',
  complianceLevel: 'standard',
  amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD,
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  duplicates: 'review',
  capture: 'any',
  liveness: 'passive',
} as const;

const fields = WORKFLOW_FIELDS;

/** Input of createWorkflow (GraphQL's `CreateWorkflowInput`, and `POST /v1/workflows` once mapped). */
export const CreateWorkflowInputSchema = z
  .object({
    name: fields.name,
    type: givenOr(fields.type, WORKFLOW_DEFAULTS.type),
    nodes: fields.nodes,
    rules: givenOr(fields.rules, []),
    complianceLevel: givenOr(fields.complianceLevel, WORKFLOW_DEFAULTS.complianceLevel),
    amlScoreThreshold: givenOr(fields.amlScoreThreshold, WORKFLOW_DEFAULTS.amlScoreThreshold),
    maxAttempts: givenOr(fields.maxAttempts, WORKFLOW_DEFAULTS.maxAttempts),
    duplicates: givenOr(fields.duplicates, WORKFLOW_DEFAULTS.duplicates),
    capture: givenOr(fields.capture, WORKFLOW_DEFAULTS.capture),
    liveness: givenOr(fields.liveness, WORKFLOW_DEFAULTS.liveness),
  })
  .strict();

/** Input of updateWorkflow: every field optional, at least one present. */
export const UpdateWorkflowInputSchema = z
  .object({
    name: notGiven(fields.name),
    type: notGiven(fields.type),
    nodes: notGiven(fields.nodes),
    rules: notGiven(fields.rules),
    complianceLevel: notGiven(fields.complianceLevel),
    amlScoreThreshold: notGiven(fields.amlScoreThreshold),
    maxAttempts: notGiven(fields.maxAttempts),
    duplicates: notGiven(fields.duplicates),
    capture: notGiven(fields.capture),
    liveness: notGiven(fields.liveness),
  })
  .strict();

/** What createWorkflow accepts before validation: GraphQL's `CreateWorkflowInput` as is. */
export type CreateWorkflowInput = z.input<typeof CreateWorkflowInputSchema>;
/** What updateWorkflow accepts before validation: GraphQL's `UpdateWorkflowInput` as is. */
export type UpdateWorkflowInput = z.input<typeof UpdateWorkflowInputSchema>;

/** Upserts the built-in workflows from code so that the code stays their single source. */
export async function syncBuiltInWorkflows(em: EntityManager): Promise<void> {
  for (const builtIn of BUILT_IN_WORKFLOWS) {
    await em.upsert(WorkflowSchema, {
      id: builtIn.id,
      tenant: null,
      name: builtIn.name,
      type: builtIn.type,
      builtIn: true,
      nodes: builtIn.nodes,
      rules: builtIn.rules,
      complianceLevel: builtIn.complianceLevel,
      amlScoreThreshold: builtIn.amlScoreThreshold,
      publishedRevision: 1,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    });
    const [row] = await em.find(WorkflowSchema, { id: builtIn.id }, { refresh: true });
    // A built-in has one revision, its code: written once, the same form as a tenant's.
    await insertRevision(em, builtIn.id, 1, definitionOf(row!), null, true);
  }
}

/** The definition a revision fixes, read from a workflow row's columns. */
export function definitionOf(workflow: Workflow): WorkflowDefinition {
  return {
    name: workflow.name,
    type: workflow.type,
    nodes: workflow.nodes,
    rules: workflow.rules ?? [],
    complianceLevel: workflow.complianceLevel,
    amlScoreThreshold: workflow.amlScoreThreshold,
    maxAttempts: workflow.maxAttempts,
    duplicates: workflow.duplicates,
    capture: workflow.capture,
    liveness: workflow.liveness,
  };
}

/** Copies a definition onto a workflow row's columns (what new sessions run). */
export function applyDefinition(workflow: Workflow, definition: WorkflowDefinition): void {
  Object.assign(workflow, definition);
}

/** Refuses rules that do not hold together with the nodes: a 400 naming each place (`rules[0].when.and[1]`). */
export function assertRules(rules: readonly unknown[], nodes: readonly WorkflowNode[]): void {
  const issues = ruleIssues(
    rules,
    nodes.map((node) => node.type),
  );
  if (issues.length === 0) return;
  throw validationError(issues.map((issue) => ({ field: fieldPath(issue.path), code: 'invalid', message: issue.message })));
}

/** The workflows a scope sees: the shared built-ins and its own tenant's custom ones of its environment, not deleted. */
function visibleTo(scope: TenantScope) {
  return { $or: [{ tenant: null }, { tenant: scope.tenantId, environment: scope.environment }], deletedAt: null };
}

/** Workflows visible to a tenant in one environment: the built-ins first (in spec order), then its own by creation. */
export async function listWorkflows(em: EntityManager, scope: TenantScope): Promise<Workflow[]> {
  const rows = await em.find(WorkflowSchema, visibleTo(scope), { orderBy: { createdAt: 'asc', id: 'asc' } });
  const order = BUILT_IN_WORKFLOWS.map((workflow) => workflow.id);
  const builtIns = rows.filter((row) => row.builtIn).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  return [...builtIns, ...rows.filter((row) => !row.builtIn)];
}

/** One workflow visible to the scope, or null (another tenant's or environment's workflow is invisible). */
export async function findWorkflow(em: EntityManager, scope: TenantScope, id: string): Promise<Workflow | null> {
  return em.findOne(WorkflowSchema, { id, ...visibleTo(scope) });
}

/** One workflow visible to the scope, or a 404. */
export async function getWorkflow(em: EntityManager, scope: TenantScope, id: string): Promise<Workflow> {
  const workflow = await findWorkflow(em, scope, id);
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/** Composes a custom workflow owned by the tenant in the scope's environment. */
export async function createWorkflow(
  em: EntityManager,
  scope: TenantScope,
  input: CreateWorkflowInput,
  principal: Principal | null = null,
): Promise<Workflow> {
  const data = parseOrThrow(CreateWorkflowInputSchema, input);
  assertRules(data.rules, data.nodes as WorkflowNode[]);
  const workflow = em.create(WorkflowSchema, {
    id: randomUUID(),
    tenant: em.getReference(TenantSchema, scope.tenantId),
    environment: scope.environment,
    name: data.name,
    type: data.type,
    builtIn: false,
    nodes: data.nodes as WorkflowNode[],
    rules: data.rules as unknown as WorkflowRule[],
    complianceLevel: data.complianceLevel,
    amlScoreThreshold: data.amlScoreThreshold,
    maxAttempts: data.maxAttempts,
    duplicates: data.duplicates,
    capture: data.capture,
    liveness: data.liveness,
    publishedRevision: 1,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
  await insertRevision(em, workflow.id, 1, definitionOf(workflow), createdByOf(principal), true);
  // Creating publishes revision 1: new sessions run it at once.
  await recordPublication(em, workflow.id, 1, null, principal);
  return workflow;
}

/** Refuses any change to a built-in workflow: 403 `workflow_read_only`, whatever else the request holds. */
export function assertNotBuiltIn(id: string): void {
  if (BUILT_IN_WORKFLOW_IDS.has(id)) throw new ApiError('workflow_read_only', `Workflow ${id} is built in and cannot be changed.`);
}

/**
 * Deletes a custom workflow: 204 when no pending, in-progress or in-review session uses it, 409
 * `workflow_in_use` otherwise; built-ins 403, other tenants' and environments' 404. The row is kept (hidden) for the
 * finished sessions that ran it. The workflow row is locked while the sessions are counted.
 */
export async function deleteWorkflow(em: EntityManager, scope: TenantScope, id: string): Promise<void> {
  assertNotBuiltIn(id);
  await em.transactional(async (tx) => {
    const workflow = await tx.findOne(
      WorkflowSchema,
      { id, tenant: scope.tenantId, environment: scope.environment, deletedAt: null },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!workflow) throw notFound('Workflow');
    const active = await tx.count(SessionSchema, { workflow: id, status: { $in: [...ACTIVE_STATUSES] } });
    if (active > 0)
      throw new ApiError('workflow_in_use', `Workflow ${id} is used by ${active} active session(s); delete it once they are decided.`);
    workflow.deletedAt = new Date();
    await tx.flush();
  });
}

/** Who saved or published, as revisions and publications name them: the operator's name, else the key. */
export function createdByOf(principal: Principal | null): string | null {
  const who = auditIdentityOf(principal);
  return who.name ?? (who.keyId ? `api_key:${who.keyId}` : null);
}

/** The definition a patch makes of a base definition; validated as a whole (rules against nodes). */
export function patchedDefinition(base: WorkflowDefinition, input: UpdateWorkflowInput): WorkflowDefinition {
  const patch = definedFields(parseOrThrow(UpdateWorkflowInputSchema, input));
  if (Object.keys(patch).length === 0) {
    throw validationError([
      {
        field: '(body)',
        code: 'required',
        message:
          'give at least one field to change: name, type, nodes, rules, compliance level, AML score threshold, max attempts, duplicates, capture or liveness',
      },
    ]);
  }
  const next = { ...base, ...patch } as WorkflowDefinition;
  assertRules(next.rules, next.nodes);
  return next;
}

/** A custom workflow of the scope, locked for a save; built-ins answer 403 `workflow_read_only`. */
async function lockedCustom(tx: EntityManager, scope: TenantScope, id: string): Promise<Workflow> {
  assertNotBuiltIn(id);
  const workflow = await tx.findOne(
    WorkflowSchema,
    { id, tenant: scope.tenantId, environment: scope.environment, deletedAt: null },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/**
 * Patches a custom workflow as the spec's PATCH does: the change applies to new sessions at once,
 * so it is saved as a new revision and published in the same step (audited like any publication);
 * sessions already started keep the revision they run. Built-ins answer 403 `workflow_read_only`,
 * other tenants' and environments' 404.
 */
export async function updateWorkflow(
  em: EntityManager,
  scope: TenantScope,
  id: string,
  input: UpdateWorkflowInput,
  principal: Principal | null = null,
): Promise<Workflow> {
  const found = await getWorkflow(em, scope, id);
  if (found.builtIn || BUILT_IN_WORKFLOW_IDS.has(found.id)) {
    throw new ApiError('workflow_read_only', `Workflow ${found.id} is built in and cannot be changed.`);
  }
  return em.transactional(async (tx) => {
    const workflow = await lockedCustom(tx, scope, id);
    const definition = patchedDefinition(definitionOf(workflow), input);
    const revision = await nextRevision(tx, id);
    await insertRevision(tx, id, revision, definition, createdByOf(principal), false);
    await recordPublication(tx, id, revision, workflow.publishedRevision, principal);
    applyDefinition(workflow, definition);
    workflow.publishedRevision = revision;
    workflow.updatedAt = new Date();
    await tx.flush();
    return workflow;
  });
}

/**
 * Saves a draft: a new revision from the latest draft (else the published one) with the patch
 * applied; new sessions keep running the published revision until the draft is published.
 */
export async function saveDraft(
  em: EntityManager,
  scope: TenantScope,
  id: string,
  input: UpdateWorkflowInput,
  principal: Principal | null,
): Promise<Workflow> {
  await getWorkflow(em, scope, id);
  return em.transactional(async (tx) => {
    const workflow = await lockedCustom(tx, scope, id);
    const base = workflow.draftRevision == null ? definitionOf(workflow) : await revisionDefinition(tx, id, workflow.draftRevision);
    const definition = patchedDefinition(base, input);
    const revision = await nextRevision(tx, id);
    await insertRevision(tx, id, revision, definition, createdByOf(principal), false);
    workflow.draftRevision = revision;
    workflow.updatedAt = new Date();
    await tx.flush();
    return workflow;
  });
}

/**
 * Publishes a revision: new sessions run it from now on; the draft pointer clears when it was the
 * draft. Publishing an earlier revision is the rollback. Audited with who published.
 */
export async function publishRevision(
  em: EntityManager,
  scope: TenantScope,
  id: string,
  revision: number,
  principal: Principal | null,
): Promise<Workflow> {
  await getWorkflow(em, scope, id);
  return em.transactional(async (tx) => {
    const workflow = await lockedCustom(tx, scope, id);
    const definition = await revisionDefinition(tx, id, revision);
    await recordPublication(tx, id, revision, workflow.publishedRevision, principal);
    applyDefinition(workflow, definition);
    workflow.publishedRevision = revision;
    if (workflow.draftRevision != null && workflow.draftRevision <= revision) workflow.draftRevision = null;
    workflow.updatedAt = new Date();
    await tx.flush();
    return workflow;
  });
}
