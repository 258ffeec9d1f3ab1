import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowNode } from '../entities/workflow.entity.js';
import { DEFAULT_MAX_ATTEMPTS, REVIEWER_REQUEST } from '../src/domain/resubmission.js';
import { builtInReason } from '../src/domain/reasons.js';
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
  const retakes = await retakeTexts(em, sessionId, nodeResults);
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
      retakeMessage: retakes.get(row.nodeType)?.message ?? null,
      retakeNote: retakes.get(row.nodeType)?.note ?? null,
      attempts: row.attempts ?? 0,
      attemptsRemaining: Math.max(0, maxAttempts - (row.attempts ?? 0)),
    }));
}

/**
 * What the person reads for each step that waits for a retake: the theme of the engine's reason,
 * or of the reviewer's code (a tenant code's own theme), and the reviewer's note. One read, and
 * only when some step waits for a retake.
 */
async function retakeTexts(
  em: EntityManager,
  sessionId: string,
  nodeResults: readonly NodeResultRecord[],
): Promise<Map<string, { message: string | null; note: string | null }>> {
  const texts = new Map<string, { message: string | null; note: string | null }>();
  const waiting = nodeResults.filter((row) => row.status === 'resubmission_requested');
  if (waiting.length === 0) return texts;
  const rows = await em.execute<
    { node_type: string; retake_reason_code: string | null; retake_note: string | null; own_message: string | null }[]
  >(
    `select r.node_type, r.retake_reason_code, r.retake_note, rc.end_user_message as own_message
       from session_node_result r join session s on s.id = r.session_id
       left join reason_code rc on rc.tenant_id = s.tenant_id and rc.environment = s.environment and rc.code = r.retake_reason_code
      where r.session_id = ? and r.status = 'resubmission_requested'`,
    [sessionId],
  );
  for (const row of waiting) {
    const stored = rows.find((candidate) => candidate.node_type === row.nodeType);
    const code = row.resubmissionReason === REVIEWER_REQUEST ? stored?.retake_reason_code : row.resubmissionReason;
    const message = stored?.own_message ?? (code ? (builtInReason(code)?.endUser ?? null) : null);
    texts.set(row.nodeType, { message, note: stored?.retake_note ?? null });
  }
  return texts;
}
