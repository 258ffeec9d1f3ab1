/**
 * The review workload (issue 25, "Workload"): a review SLA per workflow (a setting of the tenant
 * and environment), assignment rules that hand unclaimed cases round robin to a pool of reviewers
 * by workflow and/or country, "next case" for a reviewer, and bulk actions that run the one-case
 * operations (claim, assign, approve, decline, retake) case by case, so each is checked and
 * audited on its own.
 *
 * Raw SQL: (b) the SLA upsert (`on conflict … do update`), and the next case is a left join
 * ordered by whether it is held and `coalesce(review_entered_at, updated_at)`.
 */
import { REFUSALS, requireAdmin, requireOperator } from '../auth/authorization.js';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OperatorSchema } from '../../entities/operator.entity.js';
import { AssignmentRuleSchema, WorkflowSlaSchema } from '../../entities/review.entity.js';
import { WorkflowSchema } from '../../entities/workflow.entity.js';
import type { OperatorPrincipal, TenantPrincipal, TenantScope } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import type { NodeType } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../shared/errors.js';
import { isUuid } from '../shared/input-rules.js';
import type { Services } from '../services.js';
import { requestRetake } from '../sessions/retake.js';
import { reviewSession } from '../sessions/review.js';
import { recordOperatorAction } from './operator-audit.js';
import { assignmentRules, handOutCases, type AssignmentRule } from './assignment.js';
import { assignSession, claimSession } from '../sessions/claim.service.js';

export { assignmentRules, type AssignmentRule } from './assignment.js';

/** Longest SLA, in minutes (a year). */
export const SLA_MAX_MINUTES = 525_600;
/** Most cases one bulk action takes. */
export const BULK_MAX_SESSIONS = 100;

/** A workflow's review SLA. */
export interface WorkflowSla {
  workflowId: string;
  minutes: number;
}

/** Refuses a workflow the scope cannot see (a built-in, or its own of the environment); 404 otherwise. */
async function assertWorkflow(em: EntityManager, scope: TenantScope, workflowId: string): Promise<void> {
  const visible = await em.count(WorkflowSchema, {
    id: workflowId,
    $or: [{ builtIn: true }, { tenant: scope.tenantId, environment: scope.environment }],
  });
  if (visible === 0) throw notFound('Workflow');
}

/** The SLAs of the scope's workflows. */
export async function workflowSlas(em: EntityManager, scope: TenantScope): Promise<WorkflowSla[]> {
  const rows = await em.find(
    WorkflowSlaSchema,
    { tenantId: scope.tenantId, environment: scope.environment },
    { orderBy: { workflowId: 'asc' }, refresh: true },
  );
  return rows.map((row) => ({ workflowId: row.workflowId, minutes: row.slaMinutes }));
}

/** A case's review age and SLA as the queue shows them, in Unix seconds. */
export interface ReviewSla {
  ageSeconds: number;
  minutes: number | null;
  dueAt: number | null;
  breached: boolean;
}

/**
 * The review SLA of a case: its age counts from its (last) entry into review, up to now while in
 * review and up to the decision after; a session never in review counts from creation and has no
 * due time. Only a case still in review is breached.
 */
export function reviewSlaOf(
  session: { status: string; createdAt: number; reviewEnteredAt?: number | null; decidedAt?: number | null },
  minutes: number | null,
  now: number,
): ReviewSla {
  const entered = session.reviewEnteredAt ?? null;
  const inReview = session.status === 'in_review';
  const end = inReview ? now : (session.decidedAt ?? now);
  const ageSeconds = Math.max(0, end - (entered ?? session.createdAt));
  const dueAt = minutes === null || entered === null ? null : entered + minutes * 60;
  return { ageSeconds, minutes, dueAt, breached: inReview && dueAt !== null && now > dueAt };
}

/** Sets (or, with null, removes) a workflow's review SLA in the admin's environment. Audited. */
export async function setWorkflowSla(
  em: EntityManager,
  principal: TenantPrincipal,
  workflowId: string,
  minutes: number | null,
): Promise<WorkflowSla[]> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  if (minutes !== null && (!Number.isInteger(minutes) || minutes < 1 || minutes > SLA_MAX_MINUTES))
    throw validationError([
      { field: 'minutes', code: 'invalid', message: `minutes is an integer from 1 to ${SLA_MAX_MINUTES}, or null to remove the SLA` },
    ]);
  await assertWorkflow(em, admin, workflowId);
  await em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    if (minutes === null)
      await manager.nativeDelete(WorkflowSlaSchema, { tenantId: admin.tenantId, environment: admin.environment, workflowId });
    else
      await manager.execute(
        `insert into workflow_sla (tenant_id, environment, workflow_id, sla_minutes) values (?, ?, ?, ?)
         on conflict (tenant_id, environment, workflow_id) do update set sla_minutes = excluded.sla_minutes, updated_at = now()`,
        [admin.tenantId, admin.environment, workflowId, minutes],
        'run',
      );
    await recordOperatorAction(manager, admin, {
      action: 'workflow.sla_set',
      targetType: 'workflow',
      targetId: workflowId,
      environment: admin.environment,
      details: { minutes },
    });
  });
  return workflowSlas(em, admin);
}

/** Creates a rule: a workflow and/or a country (at least one), and a pool of active reviewers or admins of the tenant. Audited. */
export async function createAssignmentRule(
  em: EntityManager,
  principal: TenantPrincipal,
  input: { workflowId?: string | null; country?: string | null; operatorIds: string[] },
): Promise<AssignmentRule> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const country = input.country?.trim().toUpperCase() || null;
  const workflowId = input.workflowId?.trim() || null;
  const pool = [...new Set(input.operatorIds)];
  const errors = [];
  if (!workflowId && !country)
    errors.push({ field: 'workflowId', code: 'required', message: 'a rule names a workflow, a country or both' });
  if (country && !/^[A-Z]{2}$/.test(country))
    errors.push({ field: 'country', code: 'invalid', message: 'country is an ISO 3166 alpha-2 code' });
  if (pool.length === 0 || pool.length > 100 || !pool.every(isUuid))
    errors.push({ field: 'operatorIds', code: 'invalid', message: 'operatorIds lists 1 to 100 operator ids' });
  if (errors.length) throw validationError(errors);
  if (workflowId) await assertWorkflow(em, admin, workflowId);
  const found = await em.count(OperatorSchema, {
    id: { $in: pool },
    tenant: admin.tenantId,
    disabledAt: null,
    role: { $in: ['reviewer', 'admin'] },
  });
  if (found !== pool.length)
    throw validationError([
      { field: 'operatorIds', code: 'invalid', message: 'every operator must be an active reviewer or admin of the organisation' },
    ]);
  const id = randomUUID();
  await em.transactional(async (tx) => {
    await tx.insert(AssignmentRuleSchema, {
      id,
      tenantId: admin.tenantId,
      environment: admin.environment,
      workflowId,
      country,
      operatorIds: pool,
    });
    await recordOperatorAction(tx as EntityManager, admin, {
      action: 'assignment_rule.created',
      targetType: 'assignment_rule',
      targetId: id,
      environment: admin.environment,
      details: { workflow_id: workflowId, country, operator_ids: pool },
    });
  });
  return (await assignmentRules(em, admin)).find((rule) => rule.id === id)!;
}

/** Deletes a rule of the admin's environment; 404 for any other. Audited. */
export async function deleteAssignmentRule(em: EntityManager, principal: TenantPrincipal, ruleId: string): Promise<void> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  if (!isUuid(ruleId)) throw notFound('Assignment rule');
  await em.transactional(async (tx) => {
    const deleted = await tx.nativeDelete(AssignmentRuleSchema, { id: ruleId, tenantId: admin.tenantId, environment: admin.environment });
    if (deleted === 0) throw notFound('Assignment rule');
    await recordOperatorAction(tx as EntityManager, admin, {
      action: 'assignment_rule.deleted',
      targetType: 'assignment_rule',
      targetId: ruleId,
      environment: admin.environment,
    });
  });
}

/**
 * Hands the unclaimed in-review cases of the scope out by the rules now, longest in review first
 * (cases that waited before the rules existed: new ones are handed out as they enter review). Each
 * hand-over is a claim audited as `session.assigned` under the operator who ran the rules. Returns
 * how many cases were handed out.
 */
export async function applyAssignmentRules(em: EntityManager, operator: OperatorPrincipal): Promise<number> {
  return em.transactional((tx) =>
    handOutCases(tx as EntityManager, operator, (manager, sessionId, assignee, ruleId) =>
      recordOperatorAction(manager, operator, {
        action: 'session.assigned',
        targetType: 'session',
        targetId: sessionId,
        environment: operator.environment,
        details: { assignee_operator_id: assignee.id, assignee_name: assignee.name, rule_id: ruleId },
      }),
    ),
  );
}

/**
 * The next case for the signed-in reviewer: the rules are applied first; then the longest-waiting
 * case they hold, else the longest-waiting unclaimed case, which they claim (audited). Null when
 * nothing waits for them.
 */
export async function nextCase(em: EntityManager, services: Services, principal: TenantPrincipal): Promise<string | null> {
  const operator = requireOperator(principal, REFUSALS.workload);
  await applyAssignmentRules(em, operator);
  const [row] = await em.execute<{ id: string; held: boolean }[]>(
    `select s.id, c.operator_id is not null as held from session s left join session_claim c on c.session_id = s.id
      where s.tenant_id = ? and s.environment = ? and s.status = 'in_review' and (c.operator_id is null or c.operator_id = ?)
      order by (c.operator_id is not null) desc, coalesce(s.review_entered_at, s.updated_at), s.id limit 1`,
    [operator.tenantId, operator.environment, operator.operatorId],
  );
  if (!row) return null;
  if (!row.held) await claimSession(em, services, operator, row.id);
  return row.id;
}

/** What a bulk action does to each case. */
export type BulkAction = 'claim' | 'assign' | 'approve' | 'decline' | 'retake';

/** What a bulk action takes besides the cases: one reason for all (decisions, retakes), the assignee, the step to retake. */
export interface BulkOptions {
  reason?: string | null;
  reasonCode?: string | null;
  operatorId?: string | null;
  nodeType?: NodeType | null;
}

/** The outcome of a bulk action for one case: done, or the error code and message the one-case operation gave. */
export interface BulkOutcome {
  sessionId: string;
  ok: boolean;
  code: string | null;
  message: string | null;
}

/**
 * Runs one action on up to {@link BULK_MAX_SESSIONS} cases, each through the one-case operation (its
 * checks, its lock, its audit row), so a case that cannot take it (claimed by someone else,
 * decided meanwhile, another tenant's) fails alone and the others go on.
 */
export async function bulkAction(
  em: EntityManager,
  services: Services,
  config: Config,
  principal: TenantPrincipal,
  sessionIds: string[],
  action: BulkAction,
  options: BulkOptions,
): Promise<BulkOutcome[]> {
  const operator = requireOperator(principal, REFUSALS.workload);
  const ids = [...new Set(sessionIds)];
  if (ids.length === 0 || ids.length > BULK_MAX_SESSIONS)
    throw validationError([{ field: 'sessionIds', code: 'invalid', message: `sessionIds lists 1 to ${BULK_MAX_SESSIONS} sessions` }]);
  if (action === 'assign' && !options.operatorId)
    throw validationError([{ field: 'operatorId', code: 'required', message: 'assign needs operatorId' }]);
  if (action === 'retake' && !options.nodeType)
    throw validationError([{ field: 'nodeType', code: 'required', message: 'retake needs nodeType' }]);
  if ((action === 'approve' || action === 'decline' || action === 'retake') && !options.reason?.trim() && !options.reasonCode)
    throw validationError([{ field: 'reason', code: 'required', message: 'a decision or a retake needs one reason for all the cases' }]);
  const outcomes: BulkOutcome[] = [];
  for (const sessionId of ids) {
    try {
      const one = em.fork();
      if (action === 'claim') await claimSession(one, services, operator, sessionId);
      else if (action === 'assign') await assignSession(one, services, operator, sessionId, options.operatorId!);
      else if (action === 'retake')
        await requestRetake(one, services, config, operator, sessionId, options.nodeType!, {
          reason: options.reason ?? null,
          reasonCode: options.reasonCode ?? null,
          note: null,
        });
      else
        await reviewSession(one, services, operator, sessionId, action === 'approve' ? 'approved' : 'declined', {
          reason: options.reason ?? null,
          reasonCode: options.reasonCode ?? null,
          note: null,
        });
      outcomes.push({ sessionId, ok: true, code: null, message: null });
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      outcomes.push({ sessionId, ok: false, code: String(failure.extensions.code), message: failure.message });
    }
  }
  return outcomes;
}
