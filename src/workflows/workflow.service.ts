import { DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_LIMIT } from '../domain/resubmission.js';
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { TenantScope } from '../auth/context.js';
import { WORKFLOW_TYPES, WorkflowSchema, type Workflow, type WorkflowNode } from '../../entities/workflow.entity.js';
import { ACTIVE_STATUSES_SQL } from '../domain/session-state.js';
import { NODE_TYPES } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { parseOrThrow } from '../validation.js';
import { BUILT_IN_WORKFLOWS, BUILT_IN_WORKFLOW_IDS } from './built-in.js';
import { DEFAULT_AML_SCORE_THRESHOLD, NODE_CATALOGUE, PROVIDER_PATTERN } from '../domain/workflow.js';

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

const Name = z.string().trim().min(1, 'name must not be empty').max(WORKFLOW_NAME_MAX_LENGTH);
const ComplianceLevel = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'compliance_level must be a lower-case word (letters, digits, _)');
const Threshold = z.number().int().min(0).max(100);
const MaxAttempts = z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT);

/** Input of createWorkflow (snake_case field names as clients write them). */
export const CreateWorkflowInputSchema = z
  .object({
    name: Name,
    type: z.enum(WORKFLOW_TYPES).default('user'),
    nodes: NodesInput,
    compliance_level: ComplianceLevel.default('standard'),
    aml_score_threshold: Threshold.default(DEFAULT_AML_SCORE_THRESHOLD),
    max_attempts: MaxAttempts.default(DEFAULT_MAX_ATTEMPTS),
  })
  .strict();

/** Input of updateWorkflow: every field optional, at least one present. */
export const UpdateWorkflowInputSchema = z
  .object({
    name: Name.optional(),
    type: z.enum(WORKFLOW_TYPES).optional(),
    nodes: NodesInput.optional(),
    compliance_level: ComplianceLevel.optional(),
    aml_score_threshold: Threshold.optional(),
    max_attempts: MaxAttempts.optional(),
  })
  .strict();

/** Accepted create input. */
export type CreateWorkflowInput = z.input<typeof CreateWorkflowInputSchema>;
/** Accepted update input. */
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
      complianceLevel: builtIn.complianceLevel,
      amlScoreThreshold: builtIn.amlScoreThreshold,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    });
  }
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

/** What a new session needs of its workflow. */
export type SessionWorkflow = Pick<Workflow, 'id' | 'nodes' | 'complianceLevel'>;

/** Built-in workflows by id: read-only and synced at start, so this process may keep them. */
let builtInWorkflows: Map<string, SessionWorkflow> | null = null;

/**
 * The workflow a new session runs, created or imported from a share: one visible to the scope (as
 * {@link findWorkflow} sees it), a built-in from memory, a custom one with one plain query (the
 * create path is hot); an unknown id is the `workflow_id` field error.
 */
export async function sessionWorkflow(em: EntityManager, scope: TenantScope, id: string): Promise<SessionWorkflow> {
  const columns = 'id, nodes, compliance_level as "complianceLevel"';
  if (!builtInWorkflows) {
    const rows = await em.execute<SessionWorkflow[]>(`select ${columns} from workflow where built_in`);
    builtInWorkflows = new Map(rows.map((row) => [row.id, row]));
  }
  const builtIn = builtInWorkflows.get(id);
  if (builtIn) return builtIn;
  const [custom] = await em.execute<SessionWorkflow[]>(
    `select ${columns} from workflow where id = ? and tenant_id = ? and environment = ? and deleted_at is null`,
    [id, scope.tenantId, scope.environment],
  );
  if (!custom) throw validationError([{ field: 'workflow_id', code: 'unknown', message: `workflow ${id} does not exist` }]);
  return custom;
}

/** One workflow visible to the scope, or a 404. */
export async function getWorkflow(em: EntityManager, scope: TenantScope, id: string): Promise<Workflow> {
  const workflow = await findWorkflow(em, scope, id);
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/** Composes a custom workflow owned by the tenant in the scope's environment. */
export async function createWorkflow(em: EntityManager, scope: TenantScope, input: unknown): Promise<Workflow> {
  const data = parseOrThrow(CreateWorkflowInputSchema, input);
  const workflow = em.create(WorkflowSchema, {
    id: randomUUID(),
    tenant: em.getReference(TenantSchema, scope.tenantId),
    environment: scope.environment,
    name: data.name,
    type: data.type,
    builtIn: false,
    nodes: data.nodes as WorkflowNode[],
    complianceLevel: data.compliance_level,
    amlScoreThreshold: data.aml_score_threshold,
    maxAttempts: data.max_attempts,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
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
    const [{ active }] = await tx.execute<{ active: string }[]>(
      `select count(*) as active from session where workflow_id = ? and ${ACTIVE_STATUSES_SQL}`,
      [id],
    );
    if (Number(active) > 0)
      throw new ApiError('workflow_in_use', `Workflow ${id} is used by ${active} active session(s); delete it once they are decided.`);
    workflow.deletedAt = new Date();
    await tx.flush();
  });
}

/** Patches a custom workflow; built-ins answer 403 `workflow_read_only`, other tenants' and environments' 404. */
export async function updateWorkflow(em: EntityManager, scope: TenantScope, id: string, input: unknown): Promise<Workflow> {
  const workflow = await getWorkflow(em, scope, id);
  if (workflow.builtIn || BUILT_IN_WORKFLOW_IDS.has(workflow.id)) {
    throw new ApiError('workflow_read_only', `Workflow ${workflow.id} is built in and cannot be changed.`);
  }
  const patch = parseOrThrow(UpdateWorkflowInputSchema, input);
  if (Object.keys(patch).length === 0) {
    throw validationError([
      {
        field: '(body)',
        code: 'required',
        message: 'give at least one of name, type, nodes, compliance_level, aml_score_threshold, max_attempts',
      },
    ]);
  }
  if (patch.name !== undefined) workflow.name = patch.name;
  if (patch.type !== undefined) workflow.type = patch.type;
  if (patch.nodes !== undefined) workflow.nodes = patch.nodes as WorkflowNode[];
  if (patch.compliance_level !== undefined) workflow.complianceLevel = patch.compliance_level;
  if (patch.aml_score_threshold !== undefined) workflow.amlScoreThreshold = patch.aml_score_threshold;
  if (patch.max_attempts !== undefined) workflow.maxAttempts = patch.max_attempts;
  workflow.updatedAt = new Date();
  await em.flush();
  return workflow;
}
