import { z } from 'zod';
import { DUPLICATES_POLICIES, WORKFLOW_CAPTURE_MODES, WORKFLOW_LIVENESS_MODES, WORKFLOW_TYPES } from '../../../entities/workflow.entity.js';
import { NODE_TYPES } from '../../domain/types.js';
import {
  CreateWorkflowDocument,
  DeleteWorkflowDocument,
  GetWorkflowDocument,
  ListWorkflowsDocument,
  PublishWorkflowRevisionDocument,
  SaveWorkflowDraftDocument,
  StartWorkflowReplayDocument,
  UpdateWorkflowDocument,
  WorkflowReplayDocument,
  WorkflowRevisionsDocument,
  type WorkflowFieldsFragment,
  type WorkflowReplayFieldsFragment,
} from '../../graphql/generated/operations.js';
import { assertNotBuiltIn, WORKFLOW_DEFAULTS, WORKFLOW_FIELDS as fields } from '../../workflows/workflow.service.js';
import { ID_MAX_LENGTH } from '../../shared/validation.js';
import { defineRoute } from '../route.js';

/** The spec's Workflow JSON. */
export const WorkflowJson = z.object({
  workflow_id: z.string(),
  name: z.string(),
  type: z.enum(WORKFLOW_TYPES),
  built_in: z.boolean(),
  nodes: z.array(z.object({ type: z.enum(NODE_TYPES), required: z.boolean(), provider: z.string() })),
  rules: z
    .array(z.record(z.string(), z.unknown()))
    .describe('Conditions (JSON Logic) and outcomes of the published revision (docs/workflows.md).'),
  published_revision: z.number().int().describe('The revision new sessions run.'),
  draft_revision: z.number().int().nullable().describe('The latest saved revision not yet published.'),
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
    rules: workflow.rules,
    published_revision: workflow.publishedRevision,
    draft_revision: workflow.draftRevision ?? null,
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
    rules: fields.rules.optional(),
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
    rules: body.rules,
    complianceLevel: body.compliance_level,
    amlScoreThreshold: body.aml_score_threshold,
    maxAttempts: body.max_attempts,
    duplicates: body.duplicates,
    capture: body.capture,
    liveness: body.liveness,
  };
}

const WorkflowParams = z.object({ workflow_id: z.string().min(1).max(ID_MAX_LENGTH) });
const RevisionParams = WorkflowParams.extend({ revision: z.string().regex(/^[1-9][0-9]{0,8}$/, 'revision is a positive whole number') });
const ReplayParams = z.object({ replay_id: z.string().min(1).max(ID_MAX_LENGTH) });

/** A replay as REST presents it. */
const WorkflowReplayJson = z.object({
  replay_id: z.string(),
  workflow_id: z.string(),
  revision: z.number().int(),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  total: z.number().int(),
  done: z.number().int(),
  changed: z.number().int(),
  by_reason: z.array(z.object({ reason: z.string(), count: z.number().int() })),
  changes: z.array(
    z.object({ session_id: z.string(), before: z.string(), after: z.string(), reason: z.string(), matched_rules: z.array(z.string()) }),
  ),
  error: z.string().nullable(),
  created_at: z.number().int(),
});

function presentReplay(replay: WorkflowReplayFieldsFragment): z.infer<typeof WorkflowReplayJson> {
  return {
    replay_id: replay.id,
    workflow_id: replay.workflowId,
    revision: replay.revision,
    status: replay.status as z.infer<typeof WorkflowReplayJson>['status'],
    total: replay.total,
    done: replay.done,
    changed: replay.changed,
    by_reason: replay.byReason,
    changes: replay.changes.map((change) => ({
      session_id: change.sessionId,
      before: change.before,
      after: change.after,
      reason: change.reason,
      matched_rules: change.matchedRules,
    })),
    error: replay.error ?? null,
    created_at: replay.createdAt,
  };
}

/** Body of `POST /v1/workflows/:workflow_id/replays`. */
const ReplayBody = z
  .object({
    revision: z.number().int().min(1).max(2_147_483_647),
    last: z.number().int().min(1).max(100_000).optional(),
    from: z.number().int().min(0).optional(),
    to: z.number().int().min(0).optional(),
    background: z.boolean().optional().describe('Queue it whatever its size (selections over 500 sessions always are).'),
  })
  .strict();

const RevisionJson = z.object({
  revision: z.number().int(),
  created_at: z.number().int(),
  created_by: z.string().nullable(),
  published: z.boolean(),
  draft: z.boolean(),
  definition: z.record(z.string(), z.unknown()),
});
const PublicationJson = z.object({
  revision: z.number().int(),
  previous_revision: z.number().int().nullable(),
  actor_name: z.string().nullable(),
  actor_key_id: z.string().nullable(),
  published_at: z.number().int(),
});

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
  defineRoute({
    method: 'GET',
    path: '/v1/workflows/:workflow_id/revisions',
    operationId: 'listWorkflowRevisions',
    summary: 'Every revision of a workflow (newest first) and every publication with who published it.',
    tag: 'Workflows',
    operation: WorkflowRevisionsDocument,
    params: WorkflowParams,
    variables: ({ params }) => ({ id: params.workflow_id }),
    status: 200,
    present: (data) => ({
      revisions: data.workflowRevisions.map((revision) => ({
        revision: revision.revision,
        created_at: revision.createdAt,
        created_by: revision.createdBy ?? null,
        published: revision.published,
        draft: revision.draft,
        definition: revision.definition,
      })),
      publications: data.workflowPublications.map((publication) => ({
        revision: publication.revision,
        previous_revision: publication.previousRevision ?? null,
        actor_name: publication.actorName ?? null,
        actor_key_id: publication.actorKeyId ?? null,
        published_at: publication.publishedAt,
      })),
    }),
    response: z.object({ revisions: z.array(RevisionJson), publications: z.array(PublicationJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/workflows/:workflow_id/draft',
    operationId: 'saveWorkflowDraft',
    summary: 'Saves a draft revision (same body as PATCH); new sessions keep running the published revision.',
    tag: 'Workflows',
    operation: SaveWorkflowDraftDocument,
    params: WorkflowParams,
    before: ({ workflow_id }) => assertNotBuiltIn(workflow_id),
    body: UpdateWorkflowBody,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: toGraphQLInput(body) }),
    status: 200,
    present: (data) => presentWorkflow(data.saveWorkflowDraft),
    response: WorkflowJson,
    problems: ['workflow_read_only'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/workflows/:workflow_id/revisions/:revision/publish',
    operationId: 'publishWorkflowRevision',
    summary: 'Publishes a revision (an earlier one is a rollback); audited with who published.',
    tag: 'Workflows',
    operation: PublishWorkflowRevisionDocument,
    params: RevisionParams,
    before: ({ workflow_id }) => assertNotBuiltIn(workflow_id),
    variables: ({ params }) => ({ id: params.workflow_id, revision: Number(params.revision) }),
    status: 200,
    present: (data) => presentWorkflow(data.publishWorkflowRevision),
    response: WorkflowJson,
    problems: ['workflow_read_only'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/workflows/:workflow_id/replays',
    operationId: 'startWorkflowReplay',
    summary: 'Replays a revision over past decided sessions (last N or from/to Unix seconds) from stored results; changes nothing.',
    tag: 'Workflows',
    operation: StartWorkflowReplayDocument,
    params: WorkflowParams,
    body: ReplayBody,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: body }),
    status: 201,
    present: (data) => presentReplay(data.startWorkflowReplay),
    response: WorkflowReplayJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/workflow-replays/:replay_id',
    operationId: 'getWorkflowReplay',
    summary: 'One replay: status, progress and report of changed verdicts.',
    tag: 'Workflows',
    operation: WorkflowReplayDocument,
    params: ReplayParams,
    variables: ({ params }) => ({ id: params.replay_id }),
    status: 200,
    present: (data) => presentReplay(data.workflowReplay),
    response: WorkflowReplayJson,
  }),
];
