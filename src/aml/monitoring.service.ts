import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, SessionSchema } from '../../entities/session.entity.js';
import type { AmlScreeningDetails } from '../engines/details.js';
import { entityId, isAmlList, type AmlList } from '../engines/aml/entity.js';
import { rescreenAfterImport, type ApprovedSubject, type MonitoringPort, type RescreenSummary } from '../engines/aml/monitoring.js';
import { screenStored } from '../engines/aml/store.js';
import type { EventBus } from '../events/outbox.js';
import { reopenApprovedSession } from '../sessions/session.service.js';

/** Approved sessions read per page while re-screening. */
const MONITORING_PAGE_SIZE = 500;

/**
 * The sessions side of ongoing monitoring: every approved live session whose AML step ran on the
 * live engine (the sandbox screens no stored lists), with the subject it screened and the hits it
 * already had; a new hit reopens the session for review.
 */
export function sessionMonitoringPort(em: EntityManager, bus: EventBus): MonitoringPort {
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
          const details = result.details as Partial<AmlScreeningDetails>;
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
      await reopenApprovedSession(em.fork(), bus, subject.sessionId, { code: reason.code, message: reason.message });
    },
  };
}

/** Re-screens approved live sessions against freshly imported lists; a new hit sends one to review. */
export async function monitorAfterImport(em: EntityManager, bus: EventBus, importedLists: readonly AmlList[]): Promise<RescreenSummary> {
  return rescreenAfterImport({
    importedLists,
    screen: (query, lists) => screenStored(em.fork(), query, lists),
    port: sessionMonitoringPort(em, bus),
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
export async function rescreenPendingRequests(em: EntityManager, bus: EventBus): Promise<PendingRescreenSummary> {
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
  const summary = await monitorAfterImport(em, bus, lists);
  await em
    .fork()
    .execute(
      'update aml_rescreen_request set done_at = now() where id in (select value::uuid from jsonb_array_elements_text(?::jsonb))',
      [JSON.stringify(claimed.map((request) => request.id))],
      'run',
    );
  return { requests: claimed.length, lists, ...summary };
}
