import { AmlEntitySchema, AmlListImportSchema } from './aml-entity.entity.js';
import { ApiKeySchema } from './api-key.entity.js';
import { CheckRunSchema } from './check-run.entity.js';
import { FaceTemplateKeySchema, ListEntrySchema, ListSchema } from './list.entity.js';
import { OperatorLoginSchema, OperatorSchema } from './operator.entity.js';
import { OutboxEventSchema } from './outbox-event.entity.js';
import { PhoneOtpSchema } from './phone-otp.entity.js';
import { ServiceTokenSchema, SigningKeySchema } from './service-token.entity.js';
import { SessionNodeResultSchema, SessionPortraitSchema, SessionSchema, SessionStatusChangeSchema } from './session.entity.js';
import { LedgerEntrySchema, ShareTokenSchema } from './share-token.entity.js';
import { TenantSchema } from './tenant.entity.js';
import { WebhookAttemptSchema, WebhookDeliverySchema, WebhookDestinationSchema } from './webhook.entity.js';
import { WorkflowSchema } from './workflow.entity.js';

/** Every entity MikroORM manages; the ORM config discovers nothing by path. */
export const ALL_ENTITIES = [
  TenantSchema,
  ApiKeySchema,
  WorkflowSchema,
  CheckRunSchema,
  SessionSchema,
  SessionNodeResultSchema,
  SessionStatusChangeSchema,
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
];

export * from './aml-entity.entity.js';
export * from './api-key.entity.js';
export * from './check-run.entity.js';
export * from './list.entity.js';
export * from './operator.entity.js';
export * from './outbox-event.entity.js';
export * from './phone-otp.entity.js';
export * from './service-token.entity.js';
export * from './session.entity.js';
export * from './share-token.entity.js';
export * from './tenant.entity.js';
export * from './webhook.entity.js';
export * from './workflow.entity.js';
