import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { SUBSCRIBE_FUNCTIONS_ONLY } from '../events/live-status.js';
import { guardRootFields } from './authorization-guard.js';
import { auditOperatorMutations } from './audited-mutations.js';
import { AmlResolver } from '../../resolvers/aml.resolver.js';
import { ApiKeyResolver } from '../../resolvers/api-key.resolver.js';
import { AuditLogResolver } from '../../resolvers/audit-log.resolver.js';
import { InvitationResolver } from '../../resolvers/invitation.resolver.js';
import { WorkloadResolver } from '../../resolvers/workload.resolver.js';
import { CaptureResolver, HostedFlowCaptureResolver } from '../../resolvers/capture.resolver.js';
import { ClaimResolver } from '../../resolvers/claim.resolver.js';
import { AmlDispositionResolver } from '../../resolvers/aml-disposition.resolver.js';
import { OperatorAccountResolver } from '../../resolvers/operator-account.resolver.js';
import { ConnectionsResolver } from '../../resolvers/connections.resolver.js';
import { DashboardResolver } from '../../resolvers/dashboard.resolver.js';
import { FlowSettingsResolver } from '../../resolvers/flow-settings.resolver.js';
import { IdVerificationResolver } from '../../resolvers/id-verification.resolver.js';
import { ListEntryLabelResolver, ListResolver } from '../../resolvers/list.resolver.js';
import { OperatorResolver } from '../../resolvers/operator.resolver.js';
import { ProofOfAddressResolver } from '../../resolvers/poa.resolver.js';
import { ReasonCodeResolver } from '../../resolvers/reason-code.resolver.js';
import { ServiceTokenResolver } from '../../resolvers/service-token.resolver.js';
import { SessionResolver } from '../../resolvers/session.resolver.js';
import { SessionSearchResolver } from '../../resolvers/session-search.resolver.js';
import { SessionStatusResolver } from '../../resolvers/session-status.resolver.js';
import { SharingResolver } from '../../resolvers/sharing.resolver.js';
import { VerificationResolver } from '../../resolvers/verification.resolver.js';
import { WebhookResolver } from '../../resolvers/webhook.resolver.js';
import { WorkflowResolver } from '../../resolvers/workflow.resolver.js';

/** Every resolver class; the one list the schema, the REST facade and subscriptions are built from. */
export const RESOLVERS = [
  WorkflowResolver,
  AmlResolver,
  ProofOfAddressResolver,
  IdVerificationResolver,
  SessionResolver,
  VerificationResolver,
  ServiceTokenResolver,
  SessionStatusResolver,
  SharingResolver,
  ListResolver,
  WebhookResolver,
  FlowSettingsResolver,
  OperatorResolver,
  ClaimResolver,
  AmlDispositionResolver,
  OperatorAccountResolver,
  ApiKeyResolver,
  DashboardResolver,
  ConnectionsResolver,
  CaptureResolver,
  HostedFlowCaptureResolver,
  ReasonCodeResolver,
  AuditLogResolver,
  InvitationResolver,
  WorkloadResolver,
  SessionSearchResolver,
  ListEntryLabelResolver,
] as const;

let cached: Promise<GraphQLSchema> | undefined;

/** Builds the schema once per process (type-graphql metadata is global, so building twice gains nothing). */
export function getSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers: [...RESOLVERS], validate: false, pubSub: SUBSCRIBE_FUNCTIONS_ONLY })
    .then(auditOperatorMutations)
    .then(guardRootFields);
  return cached;
}
