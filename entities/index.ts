import { AmlEntitySchema, AmlListImportSchema } from './aml-entity.entity.js';
import { ApiKeySchema } from './api-key.entity.js';
import { CheckRunSchema } from './check-run.entity.js';
import { OutboxEventSchema } from './outbox-event.entity.js';
import { ServiceTokenSchema, SigningKeySchema } from './service-token.entity.js';
import { SessionNodeResultSchema, SessionSchema, SessionStatusChangeSchema } from './session.entity.js';
import { TenantSchema } from './tenant.entity.js';
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
  OutboxEventSchema,
  SigningKeySchema,
  ServiceTokenSchema,
  AmlEntitySchema,
  AmlListImportSchema,
];

export * from './aml-entity.entity.js';
export * from './api-key.entity.js';
export * from './check-run.entity.js';
export * from './outbox-event.entity.js';
export * from './service-token.entity.js';
export * from './session.entity.js';
export * from './tenant.entity.js';
export * from './workflow.entity.js';
