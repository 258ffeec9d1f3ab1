import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import type { Loaders } from '../src/graphql/loaders.js';
import { REFUSALS, requireAdmin } from '../src/auth/authorization.js';
import * as workload from '../src/operators/workload.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { SessionObject } from './session.type.js';
import {
  AssignmentRuleInput,
  AssignmentRuleObject,
  BulkActionInput,
  BulkOutcomeObject,
  ReviewSlaObject,
  WorkflowSlaObject,
} from './workload.type.js';

/** The scope's SLAs, read once per request (one statement for a whole page of cases). */
const slasOfRequest = new WeakMap<Loaders, Promise<Map<string, number>>>();

function toRuleObject(rule: workload.AssignmentRule): AssignmentRuleObject {
  return { ...rule, createdAt: unixSeconds(rule.createdAt) };
}

/** SLAs, assignment rules, "next case" and bulk actions (issue 25, "Workload"). */
@Resolver(() => SessionObject)
export class WorkloadResolver {
  @FieldResolver(() => ReviewSlaObject, { description: "The case's age and its workflow's review SLA; breached when undecided past it." })
  async reviewSla(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<ReviewSlaObject> {
    const scope = requireTenant(context);
    let slas = slasOfRequest.get(context.loaders);
    if (!slas) {
      slas = workload.workflowSlas(context.em, scope).then((rows) => new Map(rows.map((row) => [row.workflowId, row.minutes])));
      slasOfRequest.set(context.loaders, slas);
    }
    const minutes = (await slas).get(session.workflowId) ?? null;
    return workload.reviewSlaOf(session, minutes, Math.floor(Date.now() / 1000));
  }

  @Query(() => [WorkflowSlaObject], { description: "The review SLAs of the caller's environment." })
  async workflowSlas(@Ctx() context: GraphQLContext): Promise<WorkflowSlaObject[]> {
    return workload.workflowSlas(context.em, requireTenant(context));
  }

  @Mutation(() => [WorkflowSlaObject], {
    description: "Sets (or, with null, removes) a workflow's review SLA in minutes. Admins in the console only; audited.",
  })
  async setWorkflowSla(
    @Arg('workflowId', () => String) workflowId: string,
    @Arg('minutes', () => Int, { nullable: true }) minutes: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<WorkflowSlaObject[]> {
    return workload.setWorkflowSla(context.em, requireTenant(context), workflowId, minutes ?? null);
  }

  @Query(() => [AssignmentRuleObject], { description: "The assignment rules of the caller's environment, oldest first." })
  async assignmentRules(@Ctx() context: GraphQLContext): Promise<AssignmentRuleObject[]> {
    return (await workload.assignmentRules(context.em, requireTenant(context))).map(toRuleObject);
  }

  @Mutation(() => AssignmentRuleObject, {
    description: 'Creates an assignment rule (round robin among its operators). Admins in the console only; audited.',
  })
  async createAssignmentRule(
    @Arg('input', () => AssignmentRuleInput) input: AssignmentRuleInput,
    @Ctx() context: GraphQLContext,
  ): Promise<AssignmentRuleObject> {
    return toRuleObject(await workload.createAssignmentRule(context.em, requireTenant(context), input));
  }

  @Mutation(() => Boolean, { description: 'Deletes an assignment rule. Admins in the console only; audited.' })
  async deleteAssignmentRule(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    await workload.deleteAssignmentRule(context.em, requireTenant(context), id);
    return true;
  }

  @Mutation(() => Int, {
    description:
      'Hands the unclaimed in-review cases out by the assignment rules now; returns how many. Admins in the console only; audited per case.',
  })
  async applyAssignmentRules(@Ctx() context: GraphQLContext): Promise<number> {
    return workload.applyAssignmentRules(context.em, requireAdmin(requireTenant(context), REFUSALS.operatorAdmin));
  }

  @Mutation(() => String, {
    nullable: true,
    description:
      'The next case for the signed-in reviewer (rules applied first; their own held case, else the longest-waiting unclaimed one, claimed); null when none waits.',
  })
  async nextCase(@Ctx() context: GraphQLContext): Promise<string | null> {
    return workload.nextCase(context.em, context.services, requireTenant(context));
  }

  @Mutation(() => [BulkOutcomeObject], {
    description:
      'Claims, assigns, approves, declines or sends for retake up to 100 cases with one reason, each case through its own operation and audit.',
  })
  async bulkAction(
    @Arg('input', () => BulkActionInput) input: BulkActionInput,
    @Ctx() context: GraphQLContext,
  ): Promise<BulkOutcomeObject[]> {
    return workload.bulkAction(context.em, context.services, context.config, requireTenant(context), input.sessionIds, input.action, {
      reason: input.reason,
      reasonCode: input.reasonCode,
      operatorId: input.operatorId,
      nodeType: input.nodeType,
    });
  }
}
