import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, SessionSchema } from '../entities/session.entity.js';
import { ReasonCodeSchema } from '../entities/tenant-settings.entity.js';
import type { TenantScope } from '../src/auth/context.js';
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
  // Kept out of the identity map: the request's session entity, if any, stays whole.
  const session = await em.findOne(
    SessionSchema,
    { id: sessionId },
    { fields: ['tenant', 'environment', 'workflow.nodes', 'workflow.maxAttempts'], disableIdentityMap: true },
  );
  const workflow = session?.workflow.getEntity();
  const maxAttempts = workflow?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const scope = session ? { tenantId: session.tenant.id, environment: session.environment } : null;
  const retakes = await retakeTexts(em, sessionId, scope, nodeResults);
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
 * or of the reviewer's code (a tenant code's own theme), and the reviewer's note. Read only when
 * some step waits for a retake: the waiting rows, then the tenant's own codes they name, if any.
 */
async function retakeTexts(
  em: EntityManager,
  sessionId: string,
  scope: TenantScope | null,
  nodeResults: readonly NodeResultRecord[],
): Promise<Map<string, { message: string | null; note: string | null }>> {
  const texts = new Map<string, { message: string | null; note: string | null }>();
  const waiting = nodeResults.filter((row) => row.status === 'resubmission_requested');
  if (waiting.length === 0 || !scope) return texts;
  // Kept out of the identity map: the request's node results, if loaded, stay whole.
  const rows = await em.find(
    SessionNodeResultSchema,
    { sessionId, status: 'resubmission_requested' },
    { fields: ['nodeType', 'retakeReasonCode', 'retakeNote'], disableIdentityMap: true },
  );
  const codes = [...new Set(rows.flatMap((row) => (row.retakeReasonCode == null ? [] : [row.retakeReasonCode])))];
  const ownCodes =
    codes.length === 0
      ? []
      : await em.find(
          ReasonCodeSchema,
          { tenantId: scope.tenantId, environment: scope.environment, code: { $in: codes } },
          { fields: ['endUserMessage'], disableIdentityMap: true },
        );
  const ownMessages = new Map(ownCodes.map((code) => [code.code, code.endUserMessage]));
  for (const row of waiting) {
    const stored = rows.find((candidate) => candidate.nodeType === row.nodeType);
    const code = row.resubmissionReason === REVIEWER_REQUEST ? stored?.retakeReasonCode : row.resubmissionReason;
    const ownMessage = stored?.retakeReasonCode == null ? undefined : ownMessages.get(stored.retakeReasonCode);
    const message = ownMessage ?? (code ? (builtInReason(code)?.endUser ?? null) : null);
    texts.set(row.nodeType, { message, note: stored?.retakeNote ?? null });
  }
  return texts;
}
