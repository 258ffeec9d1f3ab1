import { GraphQLJSONObject } from 'graphql-scalars';
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

  @Field(() => [GraphQLJSONObject], {
    description: 'Rules of the published revision: JSON Logic conditions and outcomes (docs/workflows.md).',
  })
  rules!: Record<string, unknown>[];

  @Field(() => Int, { description: 'The revision new sessions run; the fields above are its definition.' })
  publishedRevision!: number;

  @Field(() => Int, { nullable: true, description: 'The latest saved revision not yet published, if any.' })
  draftRevision!: number | null;

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

/** One immutable revision of a workflow. */
@ObjectType({ description: 'One immutable revision of a workflow: what a save fixed.' })
export class WorkflowRevisionObject {
  @Field(() => Int)
  revision!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  createdAt!: number;

  @Field(() => String, { nullable: true, description: 'Who saved it: the operator name, or api_key:<id>.' })
  createdBy!: string | null;

  @Field(() => Boolean, { description: 'Whether new sessions run it.' })
  published!: boolean;

  @Field(() => Boolean, { description: 'Whether it is the current draft.' })
  draft!: boolean;

  @Field(() => GraphQLJSONObject, {
    description:
      'The definition: name, type, nodes, rules, complianceLevel, amlScoreThreshold, maxAttempts, duplicates, capture, liveness.',
  })
  definition!: Record<string, unknown>;
}

/** One audited publication. */
@ObjectType({ description: 'One publication of a revision, with who published it.' })
export class WorkflowPublicationObject {
  @Field(() => Int)
  revision!: number;

  @Field(() => Int, { nullable: true, description: 'The revision it replaced.' })
  previousRevision!: number | null;

  @Field(() => String, { nullable: true, description: 'Operator who published, when an operator did.' })
  actorName!: string | null;

  @Field(() => String, { nullable: true, description: 'API key that published, when a key did.' })
  actorKeyId!: string | null;

  @Field(() => UnixTimeScalar, { description: 'Unix time, seconds.' })
  publishedAt!: number;
}

/** A changed verdict found by a replay. */
@ObjectType({ description: 'A past session whose verdict the replayed revision would change.' })
export class ReplayChangeObject {
  @Field(() => String)
  sessionId!: string;

  @Field(() => String, { description: 'What the session is (its stored status).' })
  before!: string;

  @Field(() => String, { description: 'What the replayed revision would decide (pending when it would still wait for a step).' })
  after!: string;

  @Field(() => String, { description: 'The catalogue code of the deciding reason under the replayed revision.' })
  reason!: string;

  @Field(() => [String], { description: 'Ids of the rules that held.' })
  matchedRules!: string[];
}

/** Count of changed verdicts by deciding reason. */
@ObjectType()
export class ReplayReasonCountObject {
  @Field(() => String)
  reason!: string;

  @Field(() => Int)
  count!: number;
}

/** A replay of a revision over past sessions. */
@ObjectType('WorkflowReplay', { description: 'A replay of a workflow revision over past sessions, from their stored results.' })
export class WorkflowReplayObject {
  @Field(() => String)
  id!: string;

  @Field(() => String)
  workflowId!: string;

  @Field(() => Int)
  revision!: number;

  @Field(() => String, { description: 'queued, running, done or failed.' })
  status!: string;

  @Field(() => Int, { description: 'Sessions to replay.' })
  total!: number;

  @Field(() => Int, { description: 'Sessions replayed so far.' })
  done!: number;

  @Field(() => Int, { description: 'Sessions whose verdict would change.' })
  changed!: number;

  @Field(() => [ReplayReasonCountObject], { description: 'Changed verdicts by deciding reason.' })
  byReason!: ReplayReasonCountObject[];

  @Field(() => [ReplayChangeObject], { description: 'The changed sessions (first 500).' })
  changes!: ReplayChangeObject[];

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => UnixTimeScalar)
  createdAt!: number;
}
