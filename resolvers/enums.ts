import { registerEnumType } from 'type-graphql';
import { API_KEY_ENVIRONMENTS } from '../entities/api-key.entity.js';
import { OPERATOR_ROLES } from '../entities/operator.entity.js';
import { DUPLICATES_POLICIES, WORKFLOW_CAPTURE_MODES, WORKFLOW_LIVENESS_MODES, WORKFLOW_TYPES } from '../entities/workflow.entity.js';
import { NODE_STATUSES, NODE_TYPES, SESSION_STATUSES } from '../src/domain/types.js';

/** Builds a GraphQL enum whose values are the wire strings themselves, so REST and GraphQL agree. */
function enumOf<const T extends readonly string[]>(values: T): { [K in T[number]]: K } {
  return Object.fromEntries(values.map((value) => [value, value])) as { [K in T[number]]: K };
}

/** Node types as a GraphQL enum. */
export const NodeTypeEnum = enumOf(NODE_TYPES);
registerEnumType(NodeTypeEnum, { name: 'NodeType', description: 'A step of a verification workflow.' });

/** Node statuses as a GraphQL enum. */
export const NodeStatusEnum = enumOf(NODE_STATUSES);
registerEnumType(NodeStatusEnum, { name: 'NodeStatus', description: 'Outcome of one workflow node.' });

/** Session statuses as a GraphQL enum. */
export const SessionStatusEnum = enumOf(SESSION_STATUSES);
registerEnumType(SessionStatusEnum, { name: 'SessionStatus', description: 'Where a verification session stands.' });

/** Workflow types as a GraphQL enum. */
export const WorkflowTypeEnum = enumOf(WORKFLOW_TYPES);
registerEnumType(WorkflowTypeEnum, { name: 'WorkflowType', description: 'Kind of subject a workflow verifies.' });

/** Duplicates policies as a GraphQL enum. */
export const DuplicatesPolicyEnum = enumOf(DUPLICATES_POLICIES);
registerEnumType(DuplicatesPolicyEnum, {
  name: 'DuplicatesPolicy',
  description: 'What a face or document already seen under another vendor_data of the tenant does to the step: off, review or decline.',
});

/** Workflow capture modes as a GraphQL enum. */
export const WorkflowCaptureEnum = enumOf(WORKFLOW_CAPTURE_MODES);
registerEnumType(WorkflowCaptureEnum, {
  name: 'WorkflowCapture',
  description: 'any takes camera captures and uploads; camera makes an upload (or a doubtful capture) a capture_integrity review signal.',
});

/** Workflow liveness modes as a GraphQL enum. */
export const WorkflowLivenessEnum = enumOf(WORKFLOW_LIVENESS_MODES);
registerEnumType(WorkflowLivenessEnum, {
  name: 'WorkflowLiveness',
  description: 'passive judges the selfie with the liveness models; active also asks for a server-issued head-turn challenge.',
});

/** API key environments as a GraphQL enum. */
export const EnvironmentEnum = enumOf(API_KEY_ENVIRONMENTS);
registerEnumType(EnvironmentEnum, {
  name: 'Environment',
  description: 'live runs the real engines; sandbox the deterministic sandbox provider.',
});

/** Operator roles as a GraphQL enum. */
export const OperatorRoleEnum = enumOf(OPERATOR_ROLES);
registerEnumType(OperatorRoleEnum, {
  name: 'OperatorRole',
  description: 'viewer reads; reviewer also decides in-review sessions; admin also changes settings and manages operators.',
});
