/**
 * Ongoing monitoring: after a list import, every approved subject (of every tenant) is screened
 * again against the lists the import replaced, and a subject with a hit it did not have before
 * is sent to review. The algorithm (`rescreenAfterImport`) is written against two ports, so it
 * is tested without sessions: the caller lists approved subjects and moves a session to review;
 * `screen` is normally `screenStored` over a fresh EntityManager. The sessions side of the ports
 * (`sessionMonitoringPort`) and the rescreen outbox's worker follow it.
 *
 * Raw SQL: (b) re-screen requests are claimed by one `update … where id in (select … limit)
 * returning` lease.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, SessionSchema } from '../../entities/session.entity.js';
import { entityId, isAmlList, type AmlList } from '../engines/aml/entity.js';
import type { AmlHit, AmlQuery, AmlScreening } from '../engines/aml/score.js';
import { screenStored } from '../engines/aml/store.js';
import type { EventBus } from '../events/outbox.js';
import { reopenApprovedSession } from './review.js';
import { recordMonitoringHits, standingFalsePositives } from '../engines/aml/dispositions.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { storedDetailsOf } from './stored-node-details.js';

/** One approved subject to re-screen. */
export interface ApprovedSubject {
  /** Owner of the session; carried through to sendToReview. */
  tenantId?: string;
  /** The approved session. */
  sessionId: string;
  /** Name as screened when the session was decided. */
  full_name: string;
  /** `YYYY-MM-DD`, when known. */
  date_of_birth?: string;
  /** ISO-2, when known. */
  country?: string;
  /** Lists the session's workflow screened; every list when absent. */
  lists?: readonly AmlList[];
  /** `entity_id`s of hits the session already had (and a reviewer cleared); not new again. */
  knownHitIds?: readonly string[];
}

/** Why a session goes back to review. */
export interface RescreenReason {
  /** Always `aml_new_hit`. */
  code: 'aml_new_hit';
  /** Human-readable summary for reviewers. */
  message: string;
  /** The hits that were not there at approval, best first. */
  hits: AmlHit[];
  /** Lists whose import caused the re-screen. */
  lists: AmlList[];
}

/** What rescreenAfterImport needs from the sessions side. */
export interface MonitoringPort {
  /** Every approved subject of all tenants; streamed so a large base needs little memory. */
  approvedSubjects(): AsyncIterable<ApprovedSubject> | Iterable<ApprovedSubject>;
  /** Moves one approved session to review (in_review) with the reason. */
  sendToReview(subject: ApprovedSubject, reason: RescreenReason): Promise<void>;
  /**
   * The reviewers' false positives standing for the subject among some entities: `holds` while
   * the entity's record is unchanged since (the hit is not raised), false once it changed (the hit
   * is raised again, known or not). Entities without one are left out. Absent: none.
   */
  falsePositives?(subject: ApprovedSubject, entityIds: readonly string[]): Promise<ReadonlyMap<string, { holds: boolean }>>;
}

/** Options of rescreenAfterImport. */
export interface RescreenOptions {
  /** Lists the import replaced; only these are screened again (the others did not change). */
  importedLists: readonly AmlList[];
  /** Screens one subject against some lists (normally `screenStored`). */
  screen(query: AmlQuery, lists: readonly AmlList[]): Promise<AmlScreening>;
  /** Sessions side. */
  port: MonitoringPort;
}

/** Counts of one monitoring run. */
export interface RescreenSummary {
  /** Subjects screened again. */
  screened: number;
  /** Subjects sent to review. */
  sentToReview: number;
}

/**
 * Re-screens approved subjects after an import. A hit is new when its entity is not among the
 * subject's `knownHitIds`: any new hit (score ≥ MIN_HIT_SCORE, not only above the decline
 * threshold) sends the session to review, because approval was given without it. A reviewer's
 * false positive for the subject decides instead, for its entity: not raised while the entity's
 * record is the one the reviewer saw, raised again once it changed.
 */
export async function rescreenAfterImport(options: RescreenOptions): Promise<RescreenSummary> {
  const imported = new Set<AmlList>(options.importedLists);
  const summary: RescreenSummary = { screened: 0, sentToReview: 0 };
  if (imported.size === 0) return summary;
  for await (const subject of options.port.approvedSubjects()) {
    const lists = (subject.lists ?? [...imported]).filter((list) => imported.has(list));
    if (lists.length === 0) continue;
    const query: AmlQuery = {
      fullName: subject.full_name,
      ...(subject.date_of_birth ? { dateOfBirth: subject.date_of_birth } : {}),
      ...(subject.country ? { country: subject.country } : {}),
    };
    const screening = await options.screen(query, lists);
    summary.screened += 1;
    const known = new Set(subject.knownHitIds ?? []);
    const standing = options.port.falsePositives
      ? await options.port.falsePositives(
          subject,
          screening.hits.map((hit) => hit.entityId),
        )
      : new Map<string, { holds: boolean }>();
    const fresh = screening.hits.filter((hit) => {
      const falsePositive = standing.get(hit.entityId);
      return falsePositive ? !falsePositive.holds : !known.has(hit.entityId);
    });
    if (fresh.length === 0) continue;
    const best = fresh[0];
    await options.port.sendToReview(subject, {
      code: 'aml_new_hit',
      message: `Re-screening after an update of ${lists.join(', ')} found ${fresh.length} new hit(s); best: ${best.name} on ${best.sourceList}, score ${best.score}.`,
      hits: fresh,
      lists,
    });
    summary.sentToReview += 1;
  }
  return summary;
}

/** Approved sessions read per page while re-screening. */
const MONITORING_PAGE_SIZE = 500;

/**
 * The sessions side of ongoing monitoring: every approved live session whose AML step ran on the
 * live engine (the sandbox screens no stored lists), with the subject it screened and the hits it
 * already had; a new hit reopens the session for review and is added to the session's hits (so
 * the case shows it and a reviewer can mark it). `secrets` digests the subject to find the
 * reviewers' false positives (src/sessions/aml-dispositions.ts).
 */
export function sessionMonitoringPort(em: EntityManager, bus: EventBus, secrets: ServiceSecrets): MonitoringPort {
  return {
    async *approvedSubjects(): AsyncGenerator<ApprovedSubject> {
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const page = await em
          .fork()
          .find(
            SessionSchema,
            { status: 'approved', environment: 'live', id: { $gt: after } },
            { orderBy: { id: 'asc' }, limit: MONITORING_PAGE_SIZE, fields: ['id', 'tenant'] },
          );
        if (page.length === 0) return;
        after = page[page.length - 1].id;
        const results = await em.fork().find(SessionNodeResultSchema, {
          sessionId: { $in: page.map((session) => session.id) },
          nodeType: 'aml_screening',
          provider: 'openkyc:aml_screen',
        });
        const tenantOf = new Map(page.map((session) => [session.id, session.tenant.id]));
        for (const result of results) {
          const details = storedDetailsOf(result, 'aml_screening');
          if (!details.subject?.full_name) continue;
          yield {
            tenantId: tenantOf.get(result.sessionId),
            sessionId: result.sessionId,
            ...details.subject,
            lists: (details.checked_lists ?? []).filter(isAmlList),
            knownHitIds: (details.hits ?? []).map((hit) => entityId({ source_list: hit.list as AmlList, source_id: hit.entry_id })),
          };
        }
        if (page.length < MONITORING_PAGE_SIZE) return;
      }
    },
    async sendToReview(subject, reason) {
      await reopenApprovedSession(em.fork(), bus, subject.sessionId, { code: reason.code, message: reason.message }, (tx) =>
        recordMonitoringHits(tx, subject.sessionId, reason.hits),
      );
    },
    falsePositives: (subject, entityIds) =>
      standingFalsePositives(em.fork(), secrets, { tenantId: subject.tenantId!, environment: 'live' }, subject, entityIds),
  };
}

/** Re-screens approved live sessions against freshly imported lists; a new hit sends one to review. */
export async function monitorAfterImport(
  em: EntityManager,
  bus: EventBus,
  secrets: ServiceSecrets,
  importedLists: readonly AmlList[],
): Promise<RescreenSummary> {
  return rescreenAfterImport({
    importedLists,
    screen: (query, lists) => screenStored(em.fork(), query, lists),
    port: sessionMonitoringPort(em, bus, secrets),
  });
}

/**
 * How long a claimed re-screening request stays with the run that claimed it, in seconds: a run
 * that crashed (or takes longer) loses it to the next run after this long.
 */
export const RESCREEN_CLAIM_LEASE_SECONDS = 600;

/** How long done re-screening requests are kept (for operators reading what ran), in days. */
export const RESCREEN_REQUEST_RETENTION_DAYS = 30;

/** What one pass over the pending re-screening requests did. */
export interface PendingRescreenSummary extends RescreenSummary {
  /** Requests (imports, upserts) handled. */
  requests: number;
  /** Lists re-screened: every list those requests changed. */
  lists: AmlList[];
}

/**
 * Works through the re-screening requests that list writes recorded in their own transactions
 * (`aml_rescreen_request`): claims the pending ones (a lease, so two runs do not take the same
 * request and a crashed run's requests are taken over), re-screens the approved subjects against
 * every list they changed, once, and marks them done. Run by the CLI right after an import and
 * by the job runner every minute; re-screening is idempotent, so a request done twice after a
 * lease ran out changes nothing twice. Done requests older than RESCREEN_REQUEST_RETENTION_DAYS
 * are deleted on the way.
 */
export async function rescreenPendingRequests(em: EntityManager, bus: EventBus, secrets: ServiceSecrets): Promise<PendingRescreenSummary> {
  const claimed = await em.fork().execute<{ id: string; lists: string[] }[]>(
    `update aml_rescreen_request r set claimed_at = now()
     where r.id in (select id from aml_rescreen_request
                    where done_at is null and (claimed_at is null or claimed_at < now() - make_interval(secs => ?))
                    order by requested_at
                    for update skip locked)
     returning r.id, r.lists`,
    [RESCREEN_CLAIM_LEASE_SECONDS],
    'all',
  );
  await em
    .fork()
    .execute('delete from aml_rescreen_request where done_at < now() - make_interval(days => ?)', [RESCREEN_REQUEST_RETENTION_DAYS], 'run');
  if (claimed.length === 0) return { requests: 0, lists: [], screened: 0, sentToReview: 0 };
  const lists = [...new Set(claimed.flatMap((request) => request.lists).filter(isAmlList))];
  const summary = await monitorAfterImport(em, bus, secrets, lists);
  await em
    .fork()
    .execute(
      'update aml_rescreen_request set done_at = now() where id in (select value::uuid from jsonb_array_elements_text(?::jsonb))',
      [JSON.stringify(claimed.map((request) => request.id))],
      'run',
    );
  return { requests: claimed.length, lists, ...summary };
}
