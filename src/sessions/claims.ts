import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionClaimSchema } from '../../entities/review.entity.js';
import type { TenantPrincipal } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';

/** Who holds an in-review case: one operator at a time decides it. */
export interface SessionClaim {
  sessionId: string;
  operatorId: string;
  operatorName: string;
  claimedAt: Date;
}

/** The refusal of an action on a case someone else holds. */
export function claimedByOther(holder: string): ApiError {
  return new ApiError('session_claimed', `${holder} is working on this case; ask them to release it, or an admin to reassign it.`);
}

/** The claims of sessions (already scoped by the caller), one per session at most. */
export async function listClaims(em: EntityManager, sessionIds: readonly string[]): Promise<SessionClaim[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.execute<{ session_id: string; operator_id: string; name: string; claimed_at: Date }[]>(
    `select c.session_id, c.operator_id, o.name, c.claimed_at from session_claim c join operator o on o.id = c.operator_id
      where c.session_id = any(?::uuid[])`,
    [`{${sessionIds.join(',')}}`],
  );
  return rows.map((row) => ({
    sessionId: row.session_id,
    operatorId: row.operator_id,
    operatorName: row.name,
    claimedAt: new Date(row.claimed_at),
  }));
}

/**
 * Inside a review's transaction, after the session row is locked: refuses an operator's decision
 * on a case another operator holds, and clears the claim (the case leaves the queue). API keys
 * decide regardless of claims, as the spec's review endpoint always did.
 */
export async function settleClaimForReview(tx: EntityManager, principal: TenantPrincipal, sessionId: string): Promise<void> {
  if (principal.kind === 'operator') {
    const [held] = await listClaims(tx, [sessionId]);
    if (held && held.operatorId !== principal.operatorId) throw claimedByOther(held.operatorName);
  }
  await tx.nativeDelete(SessionClaimSchema, { sessionId });
}
