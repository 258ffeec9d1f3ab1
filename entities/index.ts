import {
  AmlEntityNameSchema,
  AmlEntitySchema,
  AmlListImportSchema,
  AmlNameEpochSchema,
  AmlRescreenRequestSchema,
} from './aml-entity.entity.js';
import { ApiKeyEpochSchema, ApiKeySchema, ApiKeyUsageSchema } from './api-key.entity.js';
import { CaptureNonceSchema } from './capture-nonce.entity.js';
import { CheckRunSchema } from './check-run.entity.js';
import { EvidenceSchema, EvidenceViewSchema } from './evidence.entity.js';
import { FaceTemplateKeySchema, ListEntrySchema, ListSchema } from './list.entity.js';
import {
  OperatorAuditSchema,
  OperatorInvitationSchema,
  OperatorLoginSchema,
  OperatorSchema,
  OperatorTotpSchema,
  SignInFailureSchema,
} from './operator.entity.js';
import { OutboxEventSchema } from './outbox-event.entity.js';
import { PhoneOtpSchema } from './phone-otp.entity.js';
import { RateLimitSchema } from './rate-limit.entity.js';
import {
  AmlHitDispositionSchema,
  AssignmentRuleSchema,
  SessionClaimSchema,
  SessionNoteSchema,
  WorkflowSlaSchema,
} from './review.entity.js';
import { CallbackSecretSchema, PersonalDataKeySchema, SessionSearchKeySchema, TenantDataKeySchema } from './secrets.entity.js';
import { ServiceTokenSchema, SigningKeySchema } from './service-token.entity.js';
import {
  SessionDocumentPrintSchema,
  SessionListSubjectSchema,
  SessionSearchSchema,
  SessionSelfiePrintSchema,
} from './session-index.entity.js';
import {
  SessionFunnelChangeSchema,
  SessionFunnelCountSchema,
  SessionFunnelDayCountSchema,
  SessionNodeResultSchema,
  SessionPortraitSchema,
  SessionSchema,
  SessionStatusChangeSchema,
  SessionStatusCountChangeSchema,
  SessionStatusCountSchema,
} from './session.entity.js';
import { LedgerEntrySchema, ShareTokenSchema } from './share-token.entity.js';
import { FlowSettingsSchema, ReasonCodeSchema } from './tenant-settings.entity.js';
import { TenantSchema } from './tenant.entity.js';
import {
  WebhookAttemptSchema,
  WebhookCursorSchema,
  WebhookDeliverySchema,
  WebhookDestinationSchema,
  WebhookFanoutSchema,
} from './webhook.entity.js';
import { WorkflowPublicationSchema, WorkflowReplaySchema, WorkflowRevisionSchema, WorkflowSchema } from './workflow.entity.js';

/** Every entity MikroORM manages; the ORM config discovers nothing by path. */
export const ALL_ENTITIES = [
  TenantSchema,
  ApiKeySchema,
  WorkflowSchema,
  CheckRunSchema,
  SessionSchema,
  SessionNodeResultSchema,
  SessionStatusChangeSchema,
  SessionFunnelCountSchema,
  SessionFunnelDayCountSchema,
  SessionFunnelChangeSchema,
  SessionStatusCountSchema,
  SessionStatusCountChangeSchema,
  SessionPortraitSchema,
  OutboxEventSchema,
  SigningKeySchema,
  ServiceTokenSchema,
  AmlEntitySchema,
  AmlListImportSchema,
  ListSchema,
  ListEntrySchema,
  FaceTemplateKeySchema,
  PhoneOtpSchema,
  ShareTokenSchema,
  LedgerEntrySchema,
  WebhookDestinationSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  OperatorSchema,
  OperatorLoginSchema,
  // Tables written and read with SQL by the module that owns each (its header says why): the
  // entities say what they hold, and test/foundation/entities-cover-tables.test.ts keeps them true.
  AmlEntityNameSchema,
  AmlNameEpochSchema,
  AmlRescreenRequestSchema,
  AmlHitDispositionSchema,
  ApiKeyEpochSchema,
  ApiKeyUsageSchema,
  AssignmentRuleSchema,
  CallbackSecretSchema,
  CaptureNonceSchema,
  EvidenceSchema,
  EvidenceViewSchema,
  FlowSettingsSchema,
  OperatorAuditSchema,
  OperatorInvitationSchema,
  OperatorTotpSchema,
  PersonalDataKeySchema,
  RateLimitSchema,
  ReasonCodeSchema,
  SessionClaimSchema,
  SessionDocumentPrintSchema,
  SessionListSubjectSchema,
  SessionNoteSchema,
  SessionSearchSchema,
  SessionSearchKeySchema,
  SessionSelfiePrintSchema,
  SignInFailureSchema,
  TenantDataKeySchema,
  WebhookCursorSchema,
  WebhookFanoutSchema,
  WorkflowPublicationSchema,
  WorkflowReplaySchema,
  WorkflowRevisionSchema,
  WorkflowSlaSchema,
];

export * from './aml-entity.entity.js';
export * from './api-key.entity.js';
export * from './capture-nonce.entity.js';
export * from './check-run.entity.js';
export * from './evidence.entity.js';
export * from './list.entity.js';
export * from './operator.entity.js';
export * from './outbox-event.entity.js';
export * from './phone-otp.entity.js';
export * from './rate-limit.entity.js';
export * from './review.entity.js';
export * from './secrets.entity.js';
export * from './service-token.entity.js';
export * from './session-index.entity.js';
export * from './session.entity.js';
export * from './share-token.entity.js';
export * from './tenant-settings.entity.js';
export * from './tenant.entity.js';
export * from './webhook.entity.js';
export * from './workflow.entity.js';
