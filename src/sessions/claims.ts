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

/**
 * The claims of sessions (already scoped by the caller), one per session at most, with their
 * holders' names in the same statement. The read skips the identity map: callers read a claim
 * right after writing it with SQL.
 */
export async function listClaims(em: EntityManager, sessionIds: readonly string[]): Promise<SessionClaim[]> {
  if (sessionIds.length === 0) return [];
  const claims = await em.find(
    SessionClaimSchema,
    { sessionId: { $in: [...sessionIds] } },
    { fields: ['sessionId', 'claimedAt', 'operator.name'], disableIdentityMap: true },
  );
  return claims.map((claim) => ({
    sessionId: claim.sessionId,
    operatorId: claim.operator.id,
    operatorName: claim.operator.getEntity().name,
    claimedAt: new Date(claim.claimedAt),
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
