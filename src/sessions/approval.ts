import type { EntityManager } from '@mikro-orm/postgresql';
import type { Session } from '../../entities/session.entity.js';
import type { Workflow } from '../../entities/workflow.entity.js';
import type { Services } from '../services.js';

/**
 * The one approve path, in the caller's transaction: the session takes the compliance level and
 * is issued its service token. The decision engine, a reviewer and the import of a shared approval
 * all approve through it; the status change itself is the caller's (it is audited with its actor).
 * Returns the token.
 */
export async function approve(
  tx: EntityManager,
  services: Pick<Services, 'tokens'>,
  session: Session,
  workflow: Pick<Workflow, 'id' | 'complianceLevel'>,
): Promise<string> {
  session.complianceLevel = workflow.complianceLevel;
  return services.tokens.issue(tx, {
    session_id: session.id,
    tenant_id: session.tenant.id,
    workflow_id: workflow.id,
    compliance_level: workflow.complianceLevel,
    vendor_data: session.vendorData,
    env: session.environment,
  });
}
