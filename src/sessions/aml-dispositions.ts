/**
 * AML hit dispositions (issue 25.3, docs/console.md "AML hits"): a reviewer marks one hit of a
 * session "true match" or "false positive" with a reason. A false positive is remembered for the
 * person (a keyed digest of the screened name, date of birth and country) and the entity (a digest
 * of its listed record), so a re-screen of the same person (a new session, ongoing monitoring)
 * does not raise that hit again until the entity's record or the person's screened data changes.
 * A true match on a sanctions list forbids approving the session: it is declined, or the hit is
 * marked false positive first (a PEP or adverse-media true match may still be approved, after due
 * diligence).
 *
 * Raw SQL: (b) the latest ruling per session and entity is a `distinct on` read.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantPrincipal, TenantScope } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { amlDetailsOf, amlSubjectHash, entityVersions, hitEntityId, standingFalsePositives } from '../engines/aml/dispositions.js';
import { amlNodeStatus } from '../domain/node-outcome.js';
import type { NodeResult } from '../domain/types.js';
import type { StoredAmlHit, SuppressedAmlHit } from '../engines/details.js';
import { riskBand } from '../engines/aml/score.js';
import { ApiError, validationError } from '../shared/errors.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import type { Services } from '../services.js';
import { loadSession } from './read.js';
import { storedDetailsOf } from './stored-node-details.js';

/** What a reviewer says of a hit. */
export type AmlHitDisposition = 'true_match' | 'false_positive';

/** The dispositions, as validated. */
export const AML_HIT_DISPOSITIONS: readonly AmlHitDisposition[] = ['true_match', 'false_positive'];

/** Longest reason a reviewer gives with a disposition, in characters. */
export const AML_DISPOSITION_REASON_MAX = 2000;

/** A node result as an engine returns it (the caller adds `required`). */
type EngineResult = Omit<NodeResult, 'required'>;

/** The result code of the best remaining hit, as the live engine names it. */
function resultCodeOf(best: StoredAmlHit | undefined, threshold: number): string {
  if (!best) return 'clear';
  if (best.category === 'pep') return 'pep_match';
  if (best.category === 'adverse_media') return 'adverse_media_match';
  return best.score >= threshold ? 'sanctions_match' : 'possible_sanctions_match';
}

/**
 * Takes out of a session's AML result the hits a standing false positive of the same person
 * covers (moved to `suppressed_hits`), and scores what remains as the engines do. Any other
 * result comes back as it was. Runs outside the decision transaction, beside the engine.
 */
export async function withoutFalsePositives(
  em: EntityManager,
  secrets: ServiceSecrets,
  scope: TenantScope,
  result: EngineResult,
  threshold: number,
): Promise<EngineResult> {
  const details = storedDetailsOf(result, 'aml_screening');
  if (!details.subject?.full_name || !Array.isArray(details.hits) || details.hits.length === 0) return result;
  const standing = await standingFalsePositives(em, secrets, scope, details.subject, details.hits.map(hitEntityId));
  const suppressed: SuppressedAmlHit[] = [];
  const hits = details.hits.filter((hit) => {
    const fp = standing.get(hitEntityId(hit));
    if (fp?.holds) suppressed.push({ ...hit, disposition_id: fp.dispositionId });
    return !fp?.holds;
  });
  if (suppressed.length === 0) return result;
  const score = Math.max(0, ...hits.map((hit) => hit.score));
  return {
    ...result,
    status: amlNodeStatus(score, hits.length, threshold),
    details: {
      ...details,
      result_code: resultCodeOf(hits[0], threshold),
      score,
      risk_band: riskBand(score),
      hits,
      suppressed_hits: suppressed,
    },
  };
}

/** One disposition as recorded. */
export interface AmlDispositionRecord {
  id: string;
  sessionId: string;
  entityId: string;
  disposition: AmlHitDisposition;
  reason: string;
  /** `operator:<name>` or `api_key:<id>`. */
  actor: string;
  actorName: string | null;
  /** The entity's version the reviewer saw. */
  entityVersion: string;
  createdAt: Date;
}

/** The latest disposition of each entity of some sessions. */
export async function latestDispositions(em: EntityManager, sessionIds: readonly string[]): Promise<AmlDispositionRecord[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.execute<
    {
      id: string;
      session_id: string;
      entity_id: string;
      disposition: AmlHitDisposition;
      reason: string;
      actor: string;
      actor_name: string | null;
      entity_hash: string;
      created_at: Date;
    }[]
  >(
    `select distinct on (session_id, entity_id) id, session_id, entity_id, disposition, reason, actor, actor_name, entity_hash, created_at
       from aml_hit_disposition where session_id in (?) order by session_id, entity_id, created_at desc, id`,
    [[...sessionIds]],
  );
  return rows.map((row) => ({
    id: row.id,
    sessionId: row.session_id,
    entityId: row.entity_id,
    disposition: row.disposition,
    reason: row.reason,
    actor: row.actor,
    actorName: row.actor_name,
    entityVersion: row.entity_hash,
    createdAt: new Date(row.created_at),
  }));
}

export interface DisposeAmlHitInput {
  sessionId: string;
  entityId: string;
  disposition: string;
  reason: string;
}

/**
 * Records a reviewer's disposition of one hit of a session (of the caller's tenant and
 * environment: 404 otherwise), audited with the operator's name (or the key). The hit must be one
 * the session's screening raised (or a false positive took out): another entity is 400. The latest disposition of a hit
 * is its current one; an earlier one stays in the history.
 */
export async function disposeAmlHit(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  input: DisposeAmlHitInput,
): Promise<AmlDispositionRecord> {
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  const problems = [
    ...(AML_HIT_DISPOSITIONS.includes(input.disposition as AmlHitDisposition)
      ? []
      : [{ field: 'disposition', code: 'invalid', message: 'disposition must be true_match or false_positive' }]),
    ...(reason ? [] : [{ field: 'reason', code: 'required', message: 'a disposition needs a reason (it goes into the audit trail)' }]),
    ...(reason.length > AML_DISPOSITION_REASON_MAX
      ? [{ field: 'reason', code: 'too_long', message: `reason must be at most ${AML_DISPOSITION_REASON_MAX} characters` }]
      : []),
  ];
  if (problems.length > 0) throw validationError(problems);
  const session = await loadSession(em, services, principal, input.sessionId);
  const details = await amlDetailsOf(em, session.id);
  const hits = [...(details?.hits ?? []), ...(details?.suppressed_hits ?? [])];
  if (!details?.subject?.full_name || !hits.some((hit) => hitEntityId(hit) === input.entityId))
    throw validationError([{ field: 'entityId', code: 'invalid', message: 'not an AML hit of this session' }]);
  const version = (await entityVersions(em, [input.entityId])).get(input.entityId)!;
  const record: AmlDispositionRecord = {
    id: randomUUID(),
    sessionId: session.id,
    entityId: input.entityId,
    disposition: input.disposition as AmlHitDisposition,
    reason,
    actor: principal.kind === 'operator' ? `operator:${principal.operatorName}` : `api_key:${principal.apiKeyId}`,
    actorName: principal.kind === 'operator' ? principal.operatorName : null,
    entityVersion: version,
    createdAt: new Date(),
  };
  await em.transactional(async (tx) => {
    await tx.execute(
      `insert into aml_hit_disposition (id, tenant_id, environment, session_id, entity_id, subject_hash, entity_hash, disposition, reason,
                                        actor, actor_operator_id, actor_name, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        record.id,
        session.tenant.id,
        session.environment,
        session.id,
        record.entityId,
        amlSubjectHash(services.secrets, details.subject!),
        version,
        record.disposition,
        reason,
        record.actor,
        principal.kind === 'operator' ? principal.operatorId : null,
        record.actorName,
        record.createdAt,
      ],
      'run',
    );
    if (principal.kind === 'operator')
      await recordOperatorAction(tx as EntityManager, principal, {
        action: 'aml_hit.dispositioned',
        targetType: 'session',
        targetId: session.id,
        environment: session.environment,
        details: { entity_id: record.entityId, disposition: record.disposition, reason },
      });
  });
  return record;
}

/**
 * Refuses to approve a session while one of its sanctions hits is marked true match (the latest
 * disposition of that hit): approving a confirmed sanctioned person is what screening exists to
 * stop. Read through the review's transaction.
 */
export async function assertNoSanctionsTrueMatch(tx: EntityManager, sessionId: string): Promise<void> {
  const details = await amlDetailsOf(tx, sessionId);
  const sanctions = new Set((details?.hits ?? []).filter((hit) => hit.category === 'sanctions').map(hitEntityId));
  if (sanctions.size === 0) return;
  const confirmed = (await latestDispositions(tx, [sessionId])).filter(
    (row) => row.disposition === 'true_match' && sanctions.has(row.entityId),
  );
  if (confirmed.length > 0)
    throw new ApiError(
      'conflict',
      `A sanctions hit of this session is marked true match (${confirmed.map((row) => row.entityId).join(', ')}): decline it, or mark the hit false positive first.`,
    );
}
