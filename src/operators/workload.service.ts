/**
 * The review workload (issue 25, "Workload"): a review SLA per workflow (a setting of the tenant
 * and environment), assignment rules that hand unclaimed cases round robin to a pool of reviewers
 * by workflow and/or country, "next case" for a reviewer, and bulk actions that run the one-case
 * operations (claim, assign, approve, decline, retake) case by case, so each is checked and
 * audited on its own.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperatorPrincipal, TenantPrincipal, TenantScope } from '../auth/context.js';
import type { Config } from '../config.js';
import type { NodeType } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { isUuid } from '../input-rules.js';
import type { Services } from '../services.js';
import { requestRetake } from '../sessions/retake.js';
import { reviewSession } from '../sessions/review.js';
import { recordOperatorAction } from './audit.js';
import { assignSession, claimSession } from './claim.service.js';
import { requireAdmin } from './operator-admin.service.js';

/** Longest SLA, in minutes (a year). */
export const SLA_MAX_MINUTES = 525_600;
/** Most cases one bulk action takes. */
export const BULK_MAX_SESSIONS = 100;
/** Most unclaimed cases one run of the assignment rules hands out (oldest first). */
const ASSIGNMENT_BATCH = 200;

/** A workflow's review SLA. */
export interface WorkflowSla {
  workflowId: string;
  minutes: number;
}

/** An assignment rule: cases of the workflow and/or country go round robin to the pool. */
export interface AssignmentRule {
  id: string;
  workflowId: string | null;
  country: string | null;
  operatorIds: string[];
  createdAt: Date;
}

/** The country of a session as rules match it: the document's issuing country, else the screened nationality, else the expected one. */
const SESSION_COUNTRY_SQL = `upper(coalesce(
  (select r.details->>'issuing_country' from session_node_result r where r.session_id = s.id and r.node_type = 'document_verification'),
  (select r.details->'subject'->>'country' from session_node_result r where r.session_id = s.id and r.node_type = 'aml_screening'),
  s.expected_details->>'country'))`;

/** Refuses a workflow the scope cannot see (a built-in, or its own of the environment); 404 otherwise. */
async function assertWorkflow(em: EntityManager, scope: TenantScope, workflowId: string): Promise<void> {
  const [row] = await em.execute<{ id: string }[]>(
    'select id from workflow where id = ? and (built_in or (tenant_id = ? and environment = ?))',
    [workflowId, scope.tenantId, scope.environment],
  );
  if (!row) throw notFound('Workflow');
}

/** The SLAs of the scope's workflows. */
export async function workflowSlas(em: EntityManager, scope: TenantScope): Promise<WorkflowSla[]> {
  const rows = await em.execute<{ workflow_id: string; sla_minutes: number }[]>(
    'select workflow_id, sla_minutes from workflow_sla where tenant_id = ? and environment = ? order by workflow_id',
    [scope.tenantId, scope.environment],
  );
  return rows.map((row) => ({ workflowId: row.workflow_id, minutes: row.sla_minutes }));
}

/** Sets (or, with null, removes) a workflow's review SLA in the admin's environment. Audited. */
export async function setWorkflowSla(
  em: EntityManager,
  principal: TenantPrincipal,
  workflowId: string,
  minutes: number | null,
): Promise<WorkflowSla[]> {
  const admin = requireAdmin(principal);
  if (minutes !== null && (!Number.isInteger(minutes) || minutes < 1 || minutes > SLA_MAX_MINUTES))
    throw validationError([
      { field: 'minutes', code: 'invalid', message: `minutes is an integer from 1 to ${SLA_MAX_MINUTES}, or null to remove the SLA` },
    ]);
  await assertWorkflow(em, admin, workflowId);
  await em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    if (minutes === null)
      await manager.execute(
        'delete from workflow_sla where tenant_id = ? and environment = ? and workflow_id = ?',
        [admin.tenantId, admin.environment, workflowId],
        'run',
      );
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

/** The assignment rules of the scope, oldest first (the first matching rule of the most specific kind wins). */
export async function assignmentRules(em: EntityManager, scope: TenantScope): Promise<AssignmentRule[]> {
  const rows = await em.execute<
    { id: string; workflow_id: string | null; country: string | null; operator_ids: string[] | string; created_at: Date }[]
  >(
    'select id, workflow_id, country, operator_ids, created_at from assignment_rule where tenant_id = ? and environment = ? order by created_at, id',
    [scope.tenantId, scope.environment],
  );
  return rows.map((row) => ({
    id: row.id,
    workflowId: row.workflow_id,
    country: row.country,
    operatorIds: typeof row.operator_ids === 'string' ? (JSON.parse(row.operator_ids) as string[]) : row.operator_ids,
    createdAt: new Date(row.created_at),
  }));
}

/** Creates a rule: a workflow and/or a country (at least one), and a pool of active reviewers or admins of the tenant. Audited. */
export async function createAssignmentRule(
  em: EntityManager,
  principal: TenantPrincipal,
  input: { workflowId?: string | null; country?: string | null; operatorIds: string[] },
): Promise<AssignmentRule> {
  const admin = requireAdmin(principal);
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
  const found = await em.execute<{ id: string }[]>(
    `select id from operator where id = any(?::uuid[]) and tenant_id = ? and disabled_at is null and role in ('reviewer', 'admin')`,
    [`{${pool.join(',')}}`, admin.tenantId],
  );
  if (found.length !== pool.length)
    throw validationError([
      { field: 'operatorIds', code: 'invalid', message: 'every operator must be an active reviewer or admin of the organisation' },
    ]);
  const id = randomUUID();
  await em.transactional(async (tx) => {
    await tx.execute(
      'insert into assignment_rule (id, tenant_id, environment, workflow_id, country, operator_ids) values (?, ?, ?, ?, ?, ?::jsonb)',
      [id, admin.tenantId, admin.environment, workflowId, country, JSON.stringify(pool)],
      'run',
    );
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
  const admin = requireAdmin(principal);
  if (!isUuid(ruleId)) throw notFound('Assignment rule');
  await em.transactional(async (tx) => {
    const deleted = await tx.execute<{ id: string }[]>(
      'delete from assignment_rule where id = ? and tenant_id = ? and environment = ? returning id',
      [ruleId, admin.tenantId, admin.environment],
    );
    if (deleted.length === 0) throw notFound('Assignment rule');
    await recordOperatorAction(tx as EntityManager, admin, {
      action: 'assignment_rule.deleted',
      targetType: 'assignment_rule',
      targetId: ruleId,
      environment: admin.environment,
    });
  });
}

/** Which rule takes a case: one naming both its workflow and country first, then its workflow, then its country; the oldest of a kind. */
function ruleFor(rules: AssignmentRule[], workflowId: string, country: string | null): AssignmentRule | undefined {
  return (
    rules.find((rule) => rule.workflowId === workflowId && rule.country !== null && rule.country === country) ??
    rules.find((rule) => rule.workflowId === workflowId && rule.country === null) ??
    rules.find((rule) => rule.workflowId === null && rule.country !== null && rule.country === country)
  );
}

/**
 * Hands the unclaimed in-review cases of the scope to the next operator of their rule's pool
 * (round robin: the rule's position moves on with each case), oldest case first; the pool's
 * disabled or demoted members are skipped. Each hand-over is a claim audited as `session.assigned`
 * under the operator who ran the rules. Returns how many cases were handed out.
 */
export async function applyAssignmentRules(em: EntityManager, operator: OperatorPrincipal): Promise<number> {
  return em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    // The rules' rows are locked: two runs at once hand each case out once and keep the rotation.
    const locked = await manager.execute<{ id: string; next_index: number }[]>(
      'select id, next_index from assignment_rule where tenant_id = ? and environment = ? order by created_at, id for update',
      [operator.tenantId, operator.environment],
    );
    if (locked.length === 0) return 0;
    const rules = await assignmentRules(manager, operator);
    const positions = new Map(locked.map((row) => [row.id, row.next_index]));
    const active = new Set(
      (
        await manager.execute<{ id: string }[]>(
          `select id from operator where tenant_id = ? and disabled_at is null and role in ('reviewer', 'admin')`,
          [operator.tenantId],
        )
      ).map((row) => row.id),
    );
    const cases = await manager.execute<{ id: string; workflow_id: string; country: string | null }[]>(
      `select s.id, s.workflow_id, ${SESSION_COUNTRY_SQL} as country from session s
        where s.tenant_id = ? and s.environment = ? and s.status = 'in_review'
          and not exists (select 1 from session_claim c where c.session_id = s.id)
        order by s.updated_at, s.id limit ${ASSIGNMENT_BATCH}`,
      [operator.tenantId, operator.environment],
    );
    let assigned = 0;
    for (const item of cases) {
      const rule = ruleFor(rules, item.workflow_id, item.country);
      const pool = rule?.operatorIds.filter((id) => active.has(id)) ?? [];
      if (!rule || pool.length === 0) continue;
      const position = positions.get(rule.id) ?? 0;
      const assignee = pool[position % pool.length]!;
      const inserted = await manager.execute<{ session_id: string }[]>(
        `insert into session_claim (session_id, tenant_id, operator_id, claimed_at) values (?, ?, ?, now())
         on conflict (session_id) do nothing returning session_id`,
        [item.id, operator.tenantId, assignee],
      );
      if (inserted.length === 0) continue;
      positions.set(rule.id, position + 1);
      assigned += 1;
      await recordOperatorAction(manager, operator, {
        action: 'session.assigned',
        targetType: 'session',
        targetId: item.id,
        environment: operator.environment,
        details: { assignee_operator_id: assignee, rule_id: rule.id },
      });
    }
    for (const [id, position] of positions)
      await manager.execute('update assignment_rule set next_index = ? where id = ?', [position, id], 'run');
    return assigned;
  });
}

/** Refuses anyone but a signed-in reviewer or admin (the role check already refuses viewers; this refuses keys). */
function requireDecider(principal: TenantPrincipal): OperatorPrincipal {
  if (principal.kind !== 'operator')
    throw new ApiError('forbidden', 'The workload actions are for operators signed in to the console, not API keys.');
  return principal;
}

/**
 * The next case for the signed-in reviewer: the rules are applied first; then the longest-waiting
 * case they hold, else the longest-waiting unclaimed case, which they claim (audited). Null when
 * nothing waits for them.
 */
export async function nextCase(em: EntityManager, services: Services, principal: TenantPrincipal): Promise<string | null> {
  const operator = requireDecider(principal);
  await applyAssignmentRules(em, operator);
  const [row] = await em.execute<{ id: string; held: boolean }[]>(
    `select s.id, c.operator_id is not null as held from session s left join session_claim c on c.session_id = s.id
      where s.tenant_id = ? and s.environment = ? and s.status = 'in_review' and (c.operator_id is null or c.operator_id = ?)
      order by (c.operator_id is not null) desc, s.updated_at, s.id limit 1`,
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
  const operator = requireDecider(principal);
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
