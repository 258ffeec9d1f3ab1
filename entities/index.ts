import { ApiKeySchema } from './api-key.entity.js';
import { CheckRunSchema } from './check-run.entity.js';
import { TenantSchema } from './tenant.entity.js';
import { WorkflowSchema } from './workflow.entity.js';

/** Every entity MikroORM manages; the ORM config discovers nothing by path. */
export const ALL_ENTITIES = [TenantSchema, ApiKeySchema, WorkflowSchema, CheckRunSchema];

export * from './api-key.entity.js';
export * from './check-run.entity.js';
export * from './tenant.entity.js';
export * from './workflow.entity.js';
