import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int } from 'type-graphql';
import type { DuplicatesPolicy, WorkflowCaptureMode, WorkflowLivenessMode, WorkflowType } from '../entities/workflow.entity.js';
import type { NodeType } from '../src/domain/types.js';
import { UnixTimeScalar } from './scalars.js';
import { DuplicatesPolicyEnum, NodeTypeEnum, WorkflowCaptureEnum, WorkflowLivenessEnum, WorkflowTypeEnum } from './enums.js';

/** One node in a composed workflow. */
@InputType()
export class WorkflowNodeInput {
  @Field(() => NodeTypeEnum)
  type!: NodeType;

  @Field(() => Boolean)
  required!: boolean;

  @Field(() => String, { description: '`<provider_name>:<job>`, one of the providers registered for the node type.' })
  provider!: string;
}

/** Input of createWorkflow. */
@InputType()
export class CreateWorkflowInput {
  @Field(() => String)
  name!: string;

  @Field(() => WorkflowTypeEnum, { nullable: true, description: 'Default user.' })
  type?: WorkflowType;

  @Field(() => [WorkflowNodeInput])
  nodes!: WorkflowNodeInput[];

  @Field(() => [GraphQLJSONObject], {
    nullable: true,
    description:
      'Rules: `{ id, when, then, node?, reason? }`, `when` a JSON Logic condition on the session facts (docs/workflows.md). Default none.',
  })
  rules?: Record<string, unknown>[];

  @Field(() => String, { nullable: true, description: 'Default standard.' })
  complianceLevel?: string;

  @Field(() => Int, { nullable: true, description: 'AML score 0–100 at or above which sessions decline; default 80.' })
  amlScoreThreshold?: number;

  @Field(() => Int, { nullable: true, description: 'Submissions a node may take when its photo cannot be read (1–10); default 3.' })
  maxAttempts?: number;

  @Field(() => DuplicatesPolicyEnum, {
    nullable: true,
    description: 'Same face or document under another vendor_data: off, review (default) or decline.',
  })
  duplicates?: DuplicatesPolicy;
  @Field(() => WorkflowCaptureEnum, { nullable: true, description: 'Where photos may come from; default any.' })
  capture?: WorkflowCaptureMode;

  @Field(() => WorkflowLivenessEnum, {
    nullable: true,
    description: 'Passive liveness only, or a head-turn challenge too; default passive.',
  })
  liveness?: WorkflowLivenessMode;
}

/** Input of updateWorkflow: give at least one field. */
@InputType()
export class UpdateWorkflowInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => WorkflowTypeEnum, { nullable: true })
  type?: WorkflowType;

  @Field(() => [WorkflowNodeInput], { nullable: true })
  nodes?: WorkflowNodeInput[];

  @Field(() => [GraphQLJSONObject], {
    nullable: true,
    description: 'Rules: `{ id, when, then, node?, reason? }`, `when` a JSON Logic condition on the session facts (docs/workflows.md).',
  })
  rules?: Record<string, unknown>[];

  @Field(() => String, { nullable: true })
  complianceLevel?: string;

  @Field(() => Int, { nullable: true })
  amlScoreThreshold?: number;

  @Field(() => Int, { nullable: true })
  maxAttempts?: number;

  @Field(() => DuplicatesPolicyEnum, { nullable: true })
  duplicates?: DuplicatesPolicy;
  @Field(() => WorkflowCaptureEnum, { nullable: true })
  capture?: WorkflowCaptureMode;

  @Field(() => WorkflowLivenessEnum, { nullable: true })
  liveness?: WorkflowLivenessMode;
}

/** Which past sessions a replay reads: a date range, or the last N decided ones. */
@InputType()
export class WorkflowReplayInput {
  @Field(() => Int, { description: 'Revision to replay (usually the draft).' })
  revision!: number;

  @Field(() => Int, { nullable: true, description: 'The last N decided sessions of the workflow (1–100000).' })
  last?: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Sessions created at or after (Unix seconds).' })
  from?: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Sessions created before (Unix seconds).' })
  to?: number;

  @Field(() => Boolean, { nullable: true, description: 'Queue it whatever its size (selections over 500 sessions always are).' })
  background?: boolean;
}
