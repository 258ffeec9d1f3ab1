import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { NodeType } from '../src/domain/types.js';
import type { BulkAction } from '../src/operators/workload.service.js';
import { NodeTypeEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** The review SLA of a workflow. */
@ObjectType('WorkflowSla', { description: "A workflow's review SLA in the caller's environment." })
export class WorkflowSlaObject {
  @Field(() => String)
  workflowId!: string;

  @Field(() => Int, { description: 'Minutes from creation within which a case should be decided.' })
  minutes!: number;
}

/** Where a case stands against its workflow's SLA. */
@ObjectType('ReviewSla', { description: "A case's age against its workflow's review SLA." })
export class ReviewSlaObject {
  @Field(() => Int, {
    description:
      'Seconds in review: since it entered review while in review, from entering review to the decision once decided; for a session never in review, since creation.',
  })
  ageSeconds!: number;

  @Field(() => Int, { nullable: true, description: "The workflow's SLA in minutes; null when it has none." })
  minutes!: number | null;

  @Field(() => UnixTimeScalar, {
    nullable: true,
    description: 'When the SLA runs out (Unix seconds, counted from entry into review); null without an SLA or before review.',
  })
  dueAt!: number | null;

  @Field(() => Boolean, { description: 'True when a case still in review is past its SLA.' })
  breached!: boolean;
}

/** An assignment rule. */
@ObjectType('AssignmentRule', { description: 'Cases of a workflow and/or country handed round robin to a pool of operators.' })
export class AssignmentRuleObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, { nullable: true })
  workflowId!: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 3166 alpha-2.' })
  country!: string | null;

  @Field(() => [String])
  operatorIds!: string[];

  @Field(() => UnixTimeScalar)
  createdAt!: number;
}

/** A new assignment rule. */
@InputType('AssignmentRuleInput')
export class AssignmentRuleInput {
  @Field(() => String, { nullable: true })
  workflowId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "ISO 3166 alpha-2: the document's issuing country, else the screened or expected one.",
  })
  country?: string | null;

  @Field(() => [String], { description: 'Active reviewers or admins of the organisation, in rotation order.' })
  operatorIds!: string[];
}

/** The actions a bulk action runs on each case. */
export const BulkActionEnum = {
  claim: 'claim',
  assign: 'assign',
  approve: 'approve',
  decline: 'decline',
  retake: 'retake',
} as const satisfies Record<BulkAction, BulkAction>;
registerEnumType(BulkActionEnum, { name: 'BulkAction', description: 'What a bulk action does to each case.' });

/** What a bulk action takes besides the cases. */
@InputType('BulkActionInput')
export class BulkActionInput {
  @Field(() => [String])
  sessionIds!: string[];

  @Field(() => BulkActionEnum)
  action!: BulkAction;

  @Field(() => String, { nullable: true, description: 'One reason for every case (approve, decline, retake).' })
  reason?: string | null;

  @Field(() => String, { nullable: true, description: 'A reason code instead of or beside the reason.' })
  reasonCode?: string | null;

  @Field(() => String, { nullable: true, description: 'The assignee (assign).' })
  operatorId?: string | null;

  @Field(() => NodeTypeEnum, { nullable: true, description: 'The step to retake (retake).' })
  nodeType?: NodeType | null;
}

/** What a bulk action did to one case. */
@ObjectType('BulkOutcome', { description: 'What a bulk action did to one case: done, or why not.' })
export class BulkOutcomeObject {
  @Field(() => String)
  sessionId!: string;

  @Field(() => Boolean)
  ok!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'The error code of the one-case operation (SESSION_CLAIMED, INVALID_TRANSITION, NOT_FOUND…).',
  })
  code!: string | null;

  @Field(() => String, { nullable: true })
  message!: string | null;
}
