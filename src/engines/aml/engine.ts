/**
 * Live `aml_screening` engine (`openkyc:aml_screen`): screens the node input against the lists
 * stored in PostgreSQL (store.ts) and reports the same details shape as the sandbox engine.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AmlHit as DetailsHit, AmlScreeningDetails } from '../details.js';
import { amlQueryOf, type AmlScreeningInput } from '../inputs.js';
import { amlNodeStatus } from '../../domain/node-outcome.js';
import type { NodeEngine } from '../node-engine.js';
import { AML_LISTS, isAmlList, type AmlList } from './entity.js';
import type { AmlHit, AmlQuery, AmlScreening } from './score.js';
import type { AmlNameIndex } from './name-index.js';
import { screenStored } from './store.js';

/** Provider name of the live AML engine (src/domain/workflow.ts). */
export const LIVE_AML_PROVIDER = 'openkyc:aml_screen';

/**
 * An `aml_screening` engine that also answers a standalone screen (`POST /v1/aml`) with the full
 * hits (entity, programmes, topics) that the node details leave out. Live and sandbox both are one.
 */
export interface ListScreeningEngine extends NodeEngine<AmlScreeningInput> {
  /** Screens one subject against `lists`. */
  screen(subject: AmlQuery, lists: readonly AmlList[]): Promise<AmlScreening>;
}

/** Whether an engine answers standalone screens (every `aml_screening` engine of the registry does). */
export function isListScreeningEngine(engine: NodeEngine): engine is ListScreeningEngine {
  return engine.nodeType === 'aml_screening' && typeof (engine as Partial<ListScreeningEngine>).screen === 'function';
}

/** What the live AML engine needs. */
export interface LiveAmlEngineDependencies {
  /**
   * An EntityManager to read the lists with, one per run. On embedded PGlite a query on a
   * second connection while a transaction is open deadlocks: call the engine outside any open
   * transaction, or return the transaction's own EntityManager here.
   */
  em(): EntityManager;
  /** In-memory index of the listed names; without it (or while it rebuilds) screens run pg_trgm. */
  amlIndex?: AmlNameIndex | null;
}

/** Risk category of a list, as the details' hits carry it. */
export function listCategory(list: AmlList): DetailsHit['category'] {
  if (list === 'PEP') return 'pep';
  if (list === 'ADVERSE_MEDIA') return 'adverse_media';
  return 'sanctions';
}

/** A screening's hit as the node details keep it (without the entity's programmes and topics). */
export function detailsHit(hit: AmlHit): DetailsHit {
  return {
    list: hit.sourceList,
    entryId: hit.sourceId,
    category: listCategory(hit.sourceList),
    matchedName: hit.matchedName,
    score: hit.score,
    ...(hit.explanation ? { explanation: hit.explanation } : {}),
  };
}

/** Machine-readable summary from the best hit, with the codes the sandbox uses. */
function resultCode(best: AmlHit | undefined, threshold: number): string {
  if (!best) return 'clear';
  const category = listCategory(best.sourceList);
  if (category === 'pep') return 'pep_match';
  if (category === 'adverse_media') return 'adverse_media_match';
  return best.score >= threshold ? 'sanctions_match' : 'possible_sanctions_match';
}

/**
 * Creates the live AML engine. Node status: failed at or above the workflow's threshold,
 * review when there are hits below it, passed without hits (`amlNodeStatus`, shared with sandbox).
 */
export function createLiveAmlEngine(dependencies: LiveAmlEngineDependencies): ListScreeningEngine {
  const screen = (subject: AmlQuery, lists: readonly AmlList[]) => screenStored(dependencies.em(), subject, lists, dependencies.amlIndex);
  return {
    provider: LIVE_AML_PROVIDER,
    nodeType: 'aml_screening',
    screen,
    async run(input, context) {
      // Inputs are validated upstream; unknown list names are ignored rather than screened.
      const lists: AmlList[] = input.lists ? [...new Set(input.lists.filter(isAmlList))] : [...AML_LISTS];
      const subject = amlQueryOf(input);
      const screening = await screen(subject, lists);
      const details: AmlScreeningDetails = {
        resultCode: resultCode(screening.hits[0], context.amlScoreThreshold),
        score: screening.score,
        riskBand: screening.riskBand,
        hits: screening.hits.map(detailsHit),
        checkedLists: screening.checkedLists,
        subject,
      };
      return {
        status: amlNodeStatus(screening.score, screening.hits.length, context.amlScoreThreshold),
        provider: LIVE_AML_PROVIDER,
        warnings: [],
        details,
      };
    },
  };
}
