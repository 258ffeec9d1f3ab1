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
    createdAt: unixSeconds(workflow.createdAt),
    updatedAt: unixSeconds(workflow.updatedAt),
  };
}

/** Strips GraphQL's absent-vs-null distinction: a null optional field means "not given". */
function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== null)) as Partial<T>;
}

/** Converts the GraphQL input to the service's snake_case input. */
function toServiceInput(input: CreateWorkflowInput | UpdateWorkflowInput): Record<string, unknown> {
  const { complianceLevel, amlScoreThreshold, maxAttempts, nodes, ...rest } = definedOnly(input);
  return {
    ...rest,
    ...(nodes !== undefined ? { nodes: nodes.map((node) => ({ ...node })) } : {}),
    ...(complianceLevel !== undefined ? { compliance_level: complianceLevel } : {}),
    ...(amlScoreThreshold !== undefined ? { aml_score_threshold: amlScoreThreshold } : {}),
    ...(maxAttempts !== undefined ? { max_attempts: maxAttempts } : {}),
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
    return toWorkflowObject(await workflows.createWorkflow(context.em, scope, toServiceInput(input)));
  }

  @Mutation(() => WorkflowObject, { description: 'Renames or changes a custom workflow; WORKFLOW_READ_ONLY for built-ins.' })
  async updateWorkflow(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateWorkflowInput) input: UpdateWorkflowInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowObject> {
    const scope = requireTenant(context);
    return toWorkflowObject(await workflows.updateWorkflow(context.em, scope, id, toServiceInput(input)));
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
