import type { RestRoute } from '../route.js';
import { amlRoutes } from './aml.js';
import { flowSettingsRoutes } from './flow-settings.js';
import { idVerificationRoutes } from './id-verification.js';
import { listRoutes } from './lists.js';
import { poaRoutes } from './poa.js';
import { reasonCodeRoutes } from './reason-codes.js';
import { sessionRoutes } from './sessions.js';
import { sharingRoutes } from './sharing.js';
import { stepRoutes } from './steps.js';
import { webhookRoutes } from './webhooks.js';
import { workflowRoutes } from './workflows.js';

/** The REST facade: every `/v1` route, each naming the GraphQL operation it runs. */
export const REST_ROUTES: readonly RestRoute[] = [
  ...workflowRoutes,
  ...sessionRoutes,
  ...stepRoutes,
  ...sharingRoutes,
  ...listRoutes,
  ...amlRoutes,
  ...poaRoutes,
  ...idVerificationRoutes,
  ...webhookRoutes,
  ...flowSettingsRoutes,
  ...reasonCodeRoutes,
];
