import { Field, Int, ObjectType } from 'type-graphql';
import type { DuplicatesPolicy, WorkflowCaptureMode, WorkflowLivenessMode, WorkflowType } from '../entities/workflow.entity.js';
import type { NodeType } from '../src/domain/types.js';
import { DuplicatesPolicyEnum, NodeTypeEnum, WorkflowCaptureEnum, WorkflowLivenessEnum, WorkflowTypeEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** One node of a workflow. */
@ObjectType({ description: 'One step of a workflow.' })
export class WorkflowNodeType {
  @Field(() => NodeTypeEnum)
  type!: NodeType;

  @Field(() => Boolean, { description: 'Whether the decision waits for this node and a failure declines.' })
  required!: boolean;

  @Field(() => String, { description: 'Opaque provider, `<provider_name>:<job>`.' })
  provider!: string;
}

/** A verification workflow as clients see it. */
@ObjectType('Workflow', { description: "A verification workflow: built-in (read-only) or the tenant's own." })
export class WorkflowObject {
  @Field(() => String, { description: 'Built-in name or UUID of a custom workflow.' })
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => WorkflowTypeEnum)
  type!: WorkflowType;

  @Field(() => Boolean)
  builtIn!: boolean;

  @Field(() => [WorkflowNodeType])
  nodes!: WorkflowNodeType[];

  @Field(() => String, { description: 'Compliance level an approved session of this workflow carries.' })
  complianceLevel!: string;

  @Field(() => Int, { description: 'AML score (0–100) at or above which a session auto-declines.' })
  amlScoreThreshold!: number;

  @Field(() => Int, { description: 'Submissions a node may take when its photo cannot be read, before it fails.' })
  maxAttempts!: number;

  @Field(() => DuplicatesPolicyEnum, {
    description: 'What a face or document already seen under another vendor_data of the tenant does to the step.',
  })
  duplicates!: DuplicatesPolicy;
  @Field(() => WorkflowCaptureEnum, {
    description: 'camera: the hosted flow must capture through the camera; an upload is a capture_integrity review signal.',
  })
  capture!: WorkflowCaptureMode;

  @Field(() => WorkflowLivenessEnum, { description: 'active: the selfie step asks for a server-issued head-turn challenge.' })
  liveness!: WorkflowLivenessMode;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  updatedAt!: number;
}
