/**
 * Ongoing monitoring: after a list import, every approved subject (of every tenant) is screened
 * again against the lists the import replaced, and a subject with a hit it did not have before
 * is sent to review. Written against two ports so it runs without the sessions module: the
 * caller lists approved subjects and moves a session to review; `screen` is normally
 * `screenStored` over a fresh EntityManager.
 */
import type { AmlList } from './entity.js';
import type { AmlHit, AmlQuery, AmlScreening } from './score.js';

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
 * threshold) sends the session to review, because approval was given without it.
 */
export async function rescreenAfterImport(options: RescreenOptions): Promise<RescreenSummary> {
  const imported = new Set<AmlList>(options.importedLists);
  const summary: RescreenSummary = { screened: 0, sentToReview: 0 };
  if (imported.size === 0) return summary;
  for await (const subject of options.port.approvedSubjects()) {
    const lists = (subject.lists ?? [...imported]).filter((list) => imported.has(list));
    if (lists.length === 0) continue;
    const query: AmlQuery = {
      full_name: subject.full_name,
      ...(subject.date_of_birth ? { date_of_birth: subject.date_of_birth } : {}),
      ...(subject.country ? { country: subject.country } : {}),
    };
    const screening = await options.screen(query, lists);
    summary.screened += 1;
    const known = new Set(subject.knownHitIds ?? []);
    const fresh = screening.hits.filter((hit) => !known.has(hit.entity_id));
    if (fresh.length === 0) continue;
    const best = fresh[0];
    await options.port.sendToReview(subject, {
      code: 'aml_new_hit',
      message: `Re-screening after an update of ${lists.join(', ')} found ${fresh.length} new hit(s); best: ${best.name} on ${best.source_list}, score ${best.score}.`,
      hits: fresh,
      lists,
    });
    summary.sentToReview += 1;
  }
  return summary;
}
