import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
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

/** Records, in `em`'s transaction when it has one, who changed what, with the operator's name as it is now. */
export async function recordOperatorAction(em: EntityManager, principal: OperatorPrincipal, entry: OperatorAuditEntry): Promise<void> {
  await em.execute(
    `insert into operator_audit (id, tenant_id, environment, actor_operator_id, actor_name, action, target_type, target_id, details, client_address, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, now())`,
    [
      randomUUID(),
      principal.tenantId,
      entry.environment,
      principal.operatorId,
      principal.operatorName,
      entry.action,
      entry.targetType,
      entry.targetId,
      JSON.stringify(entry.details ?? {}),
      principal.clientAddress ?? null,
    ],
    'run',
  );
}
