import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { WORKFLOW_TYPES, WorkflowSchema, type Workflow, type WorkflowNode } from '../../entities/workflow.entity.js';
import { NODE_TYPES } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { parseOrThrow } from '../validation.js';
import { BUILT_IN_WORKFLOWS, BUILT_IN_WORKFLOW_IDS, DEFAULT_AML_SCORE_THRESHOLD } from './built-in.js';
import { NODE_CATALOGUE, PROVIDER_PATTERN } from './node-catalogue.js';

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

/** Input of createWorkflow (snake_case field names as clients write them). */
export const CreateWorkflowInputSchema = z
  .object({
    name: Name,
    type: z.enum(WORKFLOW_TYPES).default('user'),
    nodes: NodesInput,
    compliance_level: ComplianceLevel.default('standard'),
    aml_score_threshold: Threshold.default(DEFAULT_AML_SCORE_THRESHOLD),
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

/** Workflows visible to a tenant: the built-ins first (in spec order), then its own by creation. */
export async function listWorkflows(em: EntityManager, tenantId: string): Promise<Workflow[]> {
  const rows = await em.find(
    WorkflowSchema,
    { $or: [{ tenant: null }, { tenant: tenantId }] },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const order = BUILT_IN_WORKFLOWS.map((workflow) => workflow.id);
  const builtIns = rows.filter((row) => row.builtIn).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  return [...builtIns, ...rows.filter((row) => !row.builtIn)];
}

/** One workflow visible to the tenant, or null (another tenant's workflow is invisible). */
export async function findWorkflow(em: EntityManager, tenantId: string, id: string): Promise<Workflow | null> {
  return em.findOne(WorkflowSchema, { id, $or: [{ tenant: null }, { tenant: tenantId }] });
}

/** One workflow visible to the tenant, or a 404. */
export async function getWorkflow(em: EntityManager, tenantId: string, id: string): Promise<Workflow> {
  const workflow = await findWorkflow(em, tenantId, id);
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/** Composes a custom workflow owned by the tenant. */
export async function createWorkflow(em: EntityManager, tenantId: string, input: unknown): Promise<Workflow> {
  const data = parseOrThrow(CreateWorkflowInputSchema, input);
  const workflow = em.create(WorkflowSchema, {
    id: randomUUID(),
    tenant: em.getReference(TenantSchema, tenantId),
    name: data.name,
    type: data.type,
    builtIn: false,
    nodes: data.nodes as WorkflowNode[],
    complianceLevel: data.compliance_level,
    amlScoreThreshold: data.aml_score_threshold,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
  return workflow;
}

/** Patches a custom workflow; built-ins answer 403 `workflow_read_only`, other tenants' 404. */
export async function updateWorkflow(em: EntityManager, tenantId: string, id: string, input: unknown): Promise<Workflow> {
  const workflow = await getWorkflow(em, tenantId, id);
  if (workflow.builtIn || BUILT_IN_WORKFLOW_IDS.has(workflow.id)) {
    throw new ApiError('workflow_read_only', `Workflow ${workflow.id} is built in and cannot be changed.`);
  }
  const patch = parseOrThrow(UpdateWorkflowInputSchema, input);
  if (Object.keys(patch).length === 0) {
    throw validationError([
      { field: '(body)', code: 'required', message: 'give at least one of name, type, nodes, compliance_level, aml_score_threshold' },
    ]);
  }
  if (patch.name !== undefined) workflow.name = patch.name;
  if (patch.type !== undefined) workflow.type = patch.type;
  if (patch.nodes !== undefined) workflow.nodes = patch.nodes as WorkflowNode[];
  if (patch.compliance_level !== undefined) workflow.complianceLevel = patch.compliance_level;
  if (patch.aml_score_threshold !== undefined) workflow.amlScoreThreshold = patch.aml_score_threshold;
  workflow.updatedAt = new Date();
  await em.flush();
  return workflow;
}
