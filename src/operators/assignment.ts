/**
 * Assignment rules (issue 25, "Workload"): unclaimed in-review cases go round robin to the pool of
 * reviewers of the first rule that matches their workflow and/or country. A case is handed out in
 * the transaction that moves it into review (so a crash loses no assignment: the move and the
 * claim commit together), and an admin's "hand out now" or a reviewer's "next case" hands out what
 * waited before the rules existed.
 *
 * Raw SQL: (b) a claim is `insert … on conflict do nothing returning`, and the cases to assign are
 * an anti-join ordered by `coalesce(…)` with the session's country computed in SQL.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { OperatorSchema } from '../../entities/operator.entity.js';
import { AssignmentRuleSchema } from '../../entities/review.entity.js';
import type { TenantScope } from '../auth/context.js';
import { recordServiceAction } from './operator-audit.js';

/** An assignment rule: cases of the workflow and/or country go round robin to the pool. */
export interface AssignmentRule {
  id: string;
  workflowId: string | null;
  country: string | null;
  operatorIds: string[];
  createdAt: Date;
}

/** Most unclaimed cases one run of the assignment rules hands out (longest in review first). */
const ASSIGNMENT_BATCH = 200;

/** The country of a session as rules match it: the document's issuing country, else the screened nationality, else the expected one. */
const SESSION_COUNTRY_SQL = `upper(coalesce(
  (select r.details->>'issuing_country' from session_node_result r where r.session_id = s.id and r.node_type = 'document_verification'),
  (select r.details->'subject'->>'country' from session_node_result r where r.session_id = s.id and r.node_type = 'aml_screening'),
  s.expected_details->>'country'))`;

/** The assignment rules of the scope, oldest first (the first matching rule of the most specific kind wins). */
export async function assignmentRules(em: EntityManager, scope: TenantScope): Promise<AssignmentRule[]> {
  const rows = await em.find(
    AssignmentRuleSchema,
    { tenantId: scope.tenantId, environment: scope.environment },
    {
      fields: ['id', 'workflowId', 'country', 'operatorIds', 'createdAt'],
      orderBy: { createdAt: 'asc', id: 'asc' },
      disableIdentityMap: true,
    },
  );
  return rows.map((row) => ({
    id: row.id,
    workflowId: row.workflowId ?? null,
    country: row.country ?? null,
    // The driver may hand jsonb holding a JSON string back as that string.
    operatorIds: typeof row.operatorIds === 'string' ? (JSON.parse(row.operatorIds) as string[]) : row.operatorIds,
    createdAt: new Date(row.createdAt),
  }));
}

/** Which rule takes a case: one naming both its workflow and country first, then its workflow, then its country; the oldest of a kind. */
function ruleFor(rules: AssignmentRule[], workflowId: string, country: string | null): AssignmentRule | undefined {
  return (
    rules.find((rule) => rule.workflowId === workflowId && rule.country !== null && rule.country === country) ??
    rules.find((rule) => rule.workflowId === workflowId && rule.country === null) ??
    rules.find((rule) => rule.workflowId === null && rule.country !== null && rule.country === country)
  );
}

/** Writes the audit row of one case handed out, in the hand-out's transaction. */
export type AssignmentAudit = (
  tx: EntityManager,
  sessionId: string,
  assignee: { id: string; name: string },
  ruleId: string,
) => Promise<void>;

/**
 * Hands unclaimed cases of the scope to the next operator of their rule's pool (round robin: the
 * rule's position moves on with each case); the pool's disabled or demoted members are skipped.
 * With `sessionId`, only that case (one entering review in this transaction, whatever its stored
 * status says yet); without, every unclaimed in-review case, longest in review first. Must run
 * inside a transaction: the rules' rows are locked, so two runs at once hand each case out once and
 * keep the rotation. Returns how many cases were handed out.
 */
export async function handOutCases(
  tx: EntityManager,
  scope: TenantScope,
  audit: AssignmentAudit,
  sessionId: string | null = null,
): Promise<number> {
  const locked = await tx.find(
    AssignmentRuleSchema,
    { tenantId: scope.tenantId, environment: scope.environment },
    {
      fields: ['id', 'nextIndex'],
      orderBy: { createdAt: 'asc', id: 'asc' },
      lockMode: LockMode.PESSIMISTIC_WRITE,
      disableIdentityMap: true,
    },
  );
  if (locked.length === 0) return 0;
  const rules = await assignmentRules(tx, scope);
  const positions = new Map(locked.map((row) => [row.id, row.nextIndex]));
  const active = new Map(
    (
      await tx.find(
        OperatorSchema,
        { tenant: scope.tenantId, disabledAt: null, role: { $in: ['reviewer', 'admin'] } },
        { fields: ['id', 'name'], disableIdentityMap: true },
      )
    ).map((row) => [row.id, row.name]),
  );
  const cases = await tx.execute<{ id: string; workflow_id: string; country: string | null }[]>(
    `select s.id, s.workflow_id, ${SESSION_COUNTRY_SQL} as country from session s
      where s.tenant_id = ? and s.environment = ? and ${sessionId ? 's.id = ?' : `s.status = 'in_review'`}
        and not exists (select 1 from session_claim c where c.session_id = s.id)
      order by coalesce(s.review_entered_at, s.updated_at), s.id limit ${ASSIGNMENT_BATCH}`,
    sessionId ? [scope.tenantId, scope.environment, sessionId] : [scope.tenantId, scope.environment],
  );
  const moved = new Set<string>();
  let assigned = 0;
  for (const item of cases) {
    const rule = ruleFor(rules, item.workflow_id, item.country);
    const pool = rule?.operatorIds.filter((id) => active.has(id)) ?? [];
    if (!rule || pool.length === 0) continue;
    const position = positions.get(rule.id) ?? 0;
    const assignee = pool[position % pool.length]!;
    const inserted = await tx.execute<{ session_id: string }[]>(
      `insert into session_claim (session_id, tenant_id, operator_id, claimed_at) values (?, ?, ?, now())
       on conflict (session_id) do nothing returning session_id`,
      [item.id, scope.tenantId, assignee],
    );
    if (inserted.length === 0) continue;
    positions.set(rule.id, position + 1);
    moved.add(rule.id);
    assigned += 1;
    await audit(tx, item.id, { id: assignee, name: active.get(assignee)! }, rule.id);
  }
  for (const id of moved) await tx.nativeUpdate(AssignmentRuleSchema, { id }, { nextIndex: positions.get(id) });
  return assigned;
}

/** What {@link assignOnReviewEntry} needs of the case entering review. */
export interface CaseEnteringReview {
  id: string;
  tenantId: string;
  environment: TenantScope['environment'];
}

/**
 * Hands a case that is entering review to its rule's next operator, in the transaction that moves
 * it (a decision, a monitoring reopen, an import for review), audited under the rules' name. The
 * session's pending changes are flushed first, so the country is read from what this transaction
 * stored. Costs one statement when the scope has no rules.
 */
export async function assignOnReviewEntry(tx: EntityManager, session: CaseEnteringReview): Promise<boolean> {
  await tx.flush();
  const assigned = await handOutCases(
    tx,
    { tenantId: session.tenantId, environment: session.environment },
    (manager, sessionId, assignee, ruleId) =>
      recordServiceAction(manager, session.tenantId, {
        action: 'session.assigned',
        targetType: 'session',
        targetId: sessionId,
        environment: session.environment,
        details: { assignee_operator_id: assignee.id, assignee_name: assignee.name, rule_id: ruleId, on: 'review_entry' },
      }),
    session.id,
  );
  return assigned > 0;
}
