import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { OperatorAuditSchema } from '../../entities/operator.entity.js';
import type { OperatorPrincipal } from '../auth/context.js';

/** What an operator did, as the audit trail names it. */
export type OperatorAction =
  | 'session.claimed'
  | 'session.released'
  | 'session.assigned'
  | 'operator.created'
  | 'operator.role_changed'
  | 'operator.disabled'
  | 'operator.enabled'
  | 'operator.password_reset'
  | 'operator.password_changed'
  | 'operator.totp_enrolled'
  | 'operator.totp_disabled'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'aml_hit.dispositioned'
  | 'list.created'
  | 'list.updated'
  | 'list.deleted'
  | 'list_entry.added'
  | 'list_entry.deleted'
  | 'session.note_added'
  | 'export.sessions_csv'
  | 'export.audit_log_csv'
  | 'export.case_report'
  | 'operator.invited'
  | 'invitation.revoked'
  | 'invitation.accepted'
  | 'workflow.sla_set'
  | 'workflow.draft_saved'
  | 'workflow.published'
  | 'assignment_rule.created'
  | 'assignment_rule.deleted';

/** One audited change of an operator that is not a session status change (those have their own trail). */
export interface OperatorAuditEntry {
  action: OperatorAction;
  targetType: 'session' | 'operator' | 'api_key' | 'list' | 'list_entry' | 'export' | 'invitation' | 'workflow' | 'assignment_rule';
  targetId: string;
  /** The environment of the object changed; null for tenant-wide objects (operators). */
  environment: ApiKeyEnvironment | null;
  details?: Record<string, unknown>;
}

/** Who an audit row names: an operator, or the service itself acting on a tenant's settings (assignment rules). */
interface AuditActor {
  tenantId: string;
  operatorId: string | null;
  name: string;
  address: string | null;
}

/** Writes one audit row, in `em`'s transaction when it has one. */
async function insertAudit(em: EntityManager, actor: AuditActor, entry: OperatorAuditEntry): Promise<void> {
  await em.insert(OperatorAuditSchema, {
    id: randomUUID(),
    tenantId: actor.tenantId,
    environment: entry.environment,
    actorOperatorId: actor.operatorId,
    actorName: actor.name,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ?? {},
    clientAddress: actor.address,
  });
}

/** Records, in `em`'s transaction when it has one, who changed what, with the operator's name as it is now. */
export async function recordOperatorAction(em: EntityManager, principal: OperatorPrincipal, entry: OperatorAuditEntry): Promise<void> {
  await insertAudit(
    em,
    {
      tenantId: principal.tenantId,
      operatorId: principal.operatorId,
      name: principal.operatorName,
      address: principal.clientAddress ?? null,
    },
    entry,
  );
}

/** The name audit rows give to what the service did on its own by a tenant's settings (no operator, no address). */
export const SERVICE_ACTOR_NAME = 'Assignment rules';

/** Records what the service did by itself for a tenant (a case handed out by the rules as it entered review). */
export async function recordServiceAction(em: EntityManager, tenantId: string, entry: OperatorAuditEntry): Promise<void> {
  await insertAudit(em, { tenantId, operatorId: null, name: SERVICE_ACTOR_NAME, address: null }, entry);
}
