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
