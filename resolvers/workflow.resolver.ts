import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Workflow } from '../entities/workflow.entity.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';
import { unixSeconds } from '../src/time.js';
import * as workflows from '../src/workflows/workflow.service.js';
import { CreateWorkflowInput, UpdateWorkflowInput } from './workflow.input.js';
import { WorkflowObject } from './workflow.type.js';

/** Shapes a workflow row for GraphQL. */
export function toWorkflowObject(workflow: Workflow): WorkflowObject {
  return {
    id: workflow.id,
    name: workflow.name,
    type: workflow.type,
    builtIn: workflow.builtIn,
    nodes: workflow.nodes,
    complianceLevel: workflow.complianceLevel,
    amlScoreThreshold: workflow.amlScoreThreshold,
    maxAttempts: workflow.maxAttempts,
    duplicates: workflow.duplicates,
    capture: workflow.capture,
    liveness: workflow.liveness,
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
    return toWorkflowObject(await workflows.createWorkflow(context.em, scope, input));
  }

  @Mutation(() => WorkflowObject, { description: 'Renames or changes a custom workflow; WORKFLOW_READ_ONLY for built-ins.' })
  async updateWorkflow(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateWorkflowInput) input: UpdateWorkflowInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.updateWorkflow(context.em, scope, id, input));
  }

  @Mutation(() => Boolean, {
    description: 'Deletes a custom workflow; WORKFLOW_IN_USE while active sessions use it, WORKFLOW_READ_ONLY for built-ins.',
  })
  async deleteWorkflow(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    const scope = requireTenant(context);
    await workflows.deleteWorkflow(context.em, scope, id);
    return true;
  }
}
