import { z } from 'zod';
import { DUPLICATES_POLICIES, WORKFLOW_CAPTURE_MODES, WORKFLOW_LIVENESS_MODES, WORKFLOW_TYPES } from '../../../entities/workflow.entity.js';
import { NODE_TYPES } from '../../domain/types.js';
import {
  CreateWorkflowDocument,
  DeleteWorkflowDocument,
  GetWorkflowDocument,
  ListWorkflowsDocument,
  UpdateWorkflowDocument,
  type WorkflowFieldsFragment,
} from '../../graphql/generated/operations.js';
import { assertNotBuiltIn, WORKFLOW_DEFAULTS, WORKFLOW_FIELDS as fields } from '../../workflows/workflow.service.js';
import { ID_MAX_LENGTH } from '../../validation.js';
import { defineRoute } from '../route.js';

/** The spec's Workflow JSON. */
export const WorkflowJson = z.object({
  workflow_id: z.string(),
  name: z.string(),
  type: z.enum(WORKFLOW_TYPES),
  built_in: z.boolean(),
  nodes: z.array(z.object({ type: z.enum(NODE_TYPES), required: z.boolean(), provider: z.string() })),
  compliance_level: z.string(),
  aml_score_threshold: z.number().int(),
  max_attempts: z.number().int(),
  duplicates: z.enum(DUPLICATES_POLICIES),
  capture: z.enum(WORKFLOW_CAPTURE_MODES),
  liveness: z.enum(WORKFLOW_LIVENESS_MODES),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** Shapes a workflow for REST. */
export function presentWorkflow(workflow: WorkflowFieldsFragment): z.infer<typeof WorkflowJson> {
  return {
    workflow_id: workflow.id,
    name: workflow.name,
    type: workflow.type,
    built_in: workflow.builtIn,
    nodes: workflow.nodes.map((node) => ({ type: node.type, required: node.required, provider: node.provider })),
    compliance_level: workflow.complianceLevel,
    aml_score_threshold: workflow.amlScoreThreshold,
    max_attempts: workflow.maxAttempts,
    duplicates: workflow.duplicates,
    capture: workflow.capture,
    liveness: workflow.liveness,
    created_at: workflow.createdAt,
    updated_at: workflow.updatedAt,
  };
}

/** Body of `PATCH /v1/workflows/:workflow_id` (snake_case, strict), from the service's field rules. */
const UpdateWorkflowBody = z
  .object({
    name: fields.name.optional(),
    type: fields.type.optional(),
    nodes: fields.nodes.optional(),
    compliance_level: fields.complianceLevel.optional(),
    aml_score_threshold: fields.amlScoreThreshold.optional(),
    max_attempts: fields.maxAttempts.optional(),
    duplicates: fields.duplicates.optional(),
    capture: fields.capture.optional(),
    liveness: fields.liveness.optional(),
  })
  .strict();

/** Body of `POST /v1/workflows`: name and nodes required, the rest defaulted as the service does. */
const CreateWorkflowBody = UpdateWorkflowBody.extend({
  name: fields.name,
  nodes: fields.nodes,
  type: fields.type.default(WORKFLOW_DEFAULTS.type),
  compliance_level: fields.complianceLevel.default(WORKFLOW_DEFAULTS.complianceLevel),
  aml_score_threshold: fields.amlScoreThreshold.default(WORKFLOW_DEFAULTS.amlScoreThreshold),
  max_attempts: fields.maxAttempts.default(WORKFLOW_DEFAULTS.maxAttempts),
  duplicates: fields.duplicates.default(WORKFLOW_DEFAULTS.duplicates),
  capture: fields.capture.default(WORKFLOW_DEFAULTS.capture),
  liveness: fields.liveness.default(WORKFLOW_DEFAULTS.liveness),
});

/** The GraphQL input of a workflow body: the one snake → camel map of both write routes. */
function toGraphQLInput(body: z.output<typeof UpdateWorkflowBody>) {
  return {
    name: body.name,
    type: body.type,
    nodes: body.nodes,
    complianceLevel: body.compliance_level,
    amlScoreThreshold: body.aml_score_threshold,
    maxAttempts: body.max_attempts,
    duplicates: body.duplicates,
    capture: body.capture,
    liveness: body.liveness,
  };
}

const WorkflowParams = z.object({ workflow_id: z.string().min(1).max(ID_MAX_LENGTH) });

/** Workflow routes. */
export const workflowRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/workflows',
    operationId: 'listWorkflows',
    summary: "The 5 built-in workflows plus the calling tenant's custom workflows.",
    tag: 'Workflows',
    operation: ListWorkflowsDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => ({ workflows: data.workflows.map(presentWorkflow) }),
    response: z.object({ workflows: z.array(WorkflowJson) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/workflows/:workflow_id',
    operationId: 'getWorkflow',
    summary: 'One workflow visible to the tenant.',
    tag: 'Workflows',
    operation: GetWorkflowDocument,
    params: WorkflowParams,
    variables: ({ params }) => ({ id: params.workflow_id }),
    status: 200,
    present: (data) => presentWorkflow(data.workflow),
    response: WorkflowJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/workflows',
    operationId: 'createWorkflow',
    summary: 'Composes a custom workflow; the server assigns workflow_id.',
    tag: 'Workflows',
    operation: CreateWorkflowDocument,
    body: CreateWorkflowBody,
    variables: ({ body }) => ({ input: { ...toGraphQLInput(body), name: body.name, nodes: body.nodes } }),
    status: 201,
    present: (data) => presentWorkflow(data.createWorkflow),
    response: WorkflowJson,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/workflows/:workflow_id',
    operationId: 'updateWorkflow',
    summary: 'Renames or changes the nodes of a custom workflow; built-ins answer 403 workflow_read_only.',
    tag: 'Workflows',
    operation: UpdateWorkflowDocument,
    params: WorkflowParams,
    before: ({ workflow_id }) => assertNotBuiltIn(workflow_id),
    body: UpdateWorkflowBody,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: toGraphQLInput(body) }),
    status: 200,
    present: (data) => presentWorkflow(data.updateWorkflow),
    response: WorkflowJson,
    problems: ['workflow_read_only'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/workflows/:workflow_id',
    operationId: 'deleteWorkflow',
    summary: 'Deletes a custom workflow (204); 409 workflow_in_use while active sessions use it, 403 for built-ins.',
    tag: 'Workflows',
    operation: DeleteWorkflowDocument,
    params: WorkflowParams,
    before: ({ workflow_id }) => assertNotBuiltIn(workflow_id),
    variables: ({ params }) => ({ id: params.workflow_id }),
    status: 204,
    present: () => undefined,
    problems: ['workflow_read_only', 'workflow_in_use'],
  }),
];
