import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Workflow } from '../entities/workflow.entity.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { unixSeconds } from '../src/shared/time.js';
import * as workflows from '../src/workflows/workflow.service.js';
import { listPublications, listRevisions } from '../src/workflows/revisions.js';
import { getReplay, runReplay, startReplay, type ReplayRecord } from '../src/workflows/replay.js';
import { CreateWorkflowInput, UpdateWorkflowInput, WorkflowReplayInput } from './workflow.input.js';
import { WorkflowObject, WorkflowPublicationObject, WorkflowReplayObject, WorkflowRevisionObject } from './workflow.type.js';

/** Shapes a workflow row for GraphQL. */
export function toWorkflowObject(workflow: Workflow): WorkflowObject {
  const definition = workflows.definitionOf(workflow);
  return {
    ...definition,
    id: workflow.id,
    builtIn: workflow.builtIn,
    rules: definition.rules as unknown as Record<string, unknown>[],
    publishedRevision: workflow.publishedRevision,
    draftRevision: workflow.draftRevision ?? null,
    createdAt: unixSeconds(workflow.createdAt),
    updatedAt: unixSeconds(workflow.updatedAt),
  };
}

/** Workflows: the five built-ins plus the tenant's own. */
@Resolver(() => WorkflowObject)
export class WorkflowResolver {
  @Query(() => [WorkflowObject], { description: "The built-in workflows and the calling tenant's custom ones." })
  async workflows(@Ctx() context: GraphQLContext): Promise<WorkflowObject[]> {
    const scope = requireTenant(context);
    return (await workflows.listWorkflows(context.em, scope)).map(toWorkflowObject);
  }

  @Query(() => WorkflowObject, { description: "One workflow; NOT_FOUND when it is another tenant's." })
  async workflow(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.getWorkflow(context.em, scope, id));
  }

  @Mutation(() => WorkflowObject, { description: 'Composes a custom workflow.' })
  async createWorkflow(
    @Arg('input', () => CreateWorkflowInput) input: CreateWorkflowInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.createWorkflow(context.em, scope, input, context.principal));
  }

  @Mutation(() => WorkflowObject, {
    description:
      'Changes a custom workflow: saved as a new revision and published at once (sessions in flight keep theirs); WORKFLOW_READ_ONLY for built-ins.',
  })
  async updateWorkflow(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateWorkflowInput) input: UpdateWorkflowInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.updateWorkflow(context.em, scope, id, input, context.principal));
  }

  @Mutation(() => Boolean, {
    description: 'Deletes a custom workflow; WORKFLOW_IN_USE while active sessions use it, WORKFLOW_READ_ONLY for built-ins.',
  })
  async deleteWorkflow(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    const scope = requireTenant(context);
    await workflows.deleteWorkflow(context.em, scope, id);
    return true;
  }

  @Query(() => [WorkflowRevisionObject], { description: 'Every revision of a workflow, newest first.' })
  async workflowRevisions(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<WorkflowRevisionObject[]> {
    const scope = requireTenant(context);
    const workflow = await workflows.getWorkflow(context.em, scope, id);
    return (await listRevisions(context.em, workflow.id)).map((revision) => ({
      revision: revision.revision,
      createdAt: unixSeconds(revision.createdAt),
      createdBy: revision.createdBy,
      published: revision.revision === workflow.publishedRevision,
      draft: revision.revision === workflow.draftRevision,
      definition: revision.definition as unknown as Record<string, unknown>,
    }));
  }

  @Query(() => [WorkflowPublicationObject], { description: 'Every publication of a workflow with who published it, newest first.' })
  async workflowPublications(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<WorkflowPublicationObject[]> {
    const scope = requireTenant(context);
    const workflow = await workflows.getWorkflow(context.em, scope, id);
    return (await listPublications(context.em, workflow.id)).map((publication) => ({
      ...publication,
      publishedAt: unixSeconds(publication.publishedAt),
    }));
  }

  @Mutation(() => WorkflowObject, {
    description:
      'Saves a draft revision of a custom workflow (the latest draft, else the published revision, with the changes); new sessions keep the published one.',
  })
  async saveWorkflowDraft(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateWorkflowInput) input: UpdateWorkflowInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.saveDraft(context.em, scope, id, input, context.principal));
  }

  @Mutation(() => WorkflowObject, {
    description: 'Publishes a revision: new sessions run it. Publishing an earlier revision is the rollback. Audited with who published.',
  })
  async publishWorkflowRevision(
    @Arg('id', () => String) id: string,
    @Arg('revision', () => Int) revision: number,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.publishRevision(context.em, scope, id, revision, context.principal));
  }

  @Mutation(() => WorkflowReplayObject, {
    description:
      'Replays a revision over past decided sessions (last N, or a date range) from their stored results, changing nothing; large selections are queued.',
  })
  async startWorkflowReplay(
    @Arg('id', () => String) id: string,
    @Arg('input', () => WorkflowReplayInput) input: WorkflowReplayInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowReplayObject> {
    const scope = requireTenant(context);
    const root = context.em.fork();
    const runLater = (replayId: string) => {
      setImmediate(() => {
        runReplay(root, replayId).catch((error: unknown) => context.logger.error({ err: error, replayId }, 'workflow replay failed'));
      });
    };
    return toReplayObject(await startReplay(context.em, scope, id, input, runLater));
  }

  @Query(() => WorkflowReplayObject, {
    description: "One replay with its progress and report; NOT_FOUND when it is another tenant's or environment's.",
  })
  async workflowReplay(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<WorkflowReplayObject> {
    const scope = requireTenant(context);
    return toReplayObject(await getReplay(context.em, scope, id));
  }
}

/** Shapes a replay for GraphQL. */
export function toReplayObject(replay: ReplayRecord): WorkflowReplayObject {
  return {
    id: replay.id,
    workflowId: replay.workflowId,
    revision: replay.revision,
    status: replay.status,
    total: replay.total,
    done: replay.done,
    changed: replay.report.changed,
    byReason: Object.entries(replay.report.byReason)
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    changes: replay.report.changes,
    error: replay.error,
    createdAt: unixSeconds(replay.createdAt),
  };
}
