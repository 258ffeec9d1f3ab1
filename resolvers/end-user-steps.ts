import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowNode } from '../entities/workflow.entity.js';
import { DEFAULT_MAX_ATTEMPTS } from '../src/domain/resubmission.js';
import { NODE_CATALOGUE } from '../src/domain/workflow.js';
import type { NodeResultRecord } from '../src/sessions/session-record.js';
import type { VerificationStep } from './session.type.js';

/**
 * The steps an end user sees for a session, in its workflow's order, with the attempts left: one
 * shape for the hosted flow's page (`hostedFlow`) and for the progress a submission answers.
 */
export async function endUserSteps(
  em: EntityManager,
  sessionId: string,
  nodeResults: readonly NodeResultRecord[],
): Promise<VerificationStep[]> {
  // Node results are stored together at creation; the end user reads them in the workflow's order.
  const [workflow] = await em.execute<{ nodes: WorkflowNode[]; max_attempts: number }[]>(
    'select w.nodes, w.max_attempts from session s join workflow w on w.id = s.workflow_id where s.id = ?',
    [sessionId],
  );
  const maxAttempts = workflow?.max_attempts ?? DEFAULT_MAX_ATTEMPTS;
  const order: string[] = workflow?.nodes.map((node) => node.type) ?? [];
  const rank = (type: string) => (order.includes(type) ? order.indexOf(type) : order.length);
  return [...nodeResults]
    .sort((a, b) => rank(a.nodeType) - rank(b.nodeType))
    .map((row) => ({
      nodeType: row.nodeType,
      required: row.required,
      status: row.status,
      description: NODE_CATALOGUE[row.nodeType].description,
      resubmissionReason: row.resubmissionReason ?? null,
      attempts: row.attempts ?? 0,
      attemptsRemaining: Math.max(0, maxAttempts - (row.attempts ?? 0)),
    }));
}
