import type { RestRoute } from '../route.js';
import { workflowRoutes } from './workflows.js';

/** The REST facade: every `/v1` route, each naming the GraphQL operation it runs. */
export const REST_ROUTES: readonly RestRoute[] = [...workflowRoutes];
