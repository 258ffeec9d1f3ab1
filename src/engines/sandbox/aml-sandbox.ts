/**
 * Sandbox `aml_screening`: outcome chosen by a magic name inside `full_name`. In a session with a
 * document node that is the name the sandbox document "read" (src/sessions/aml-subject.ts).
 */
import { amlNodeStatus } from '../../domain/node-outcome.js';
import type { ListScreeningEngine } from '../aml/engine.js';
import { AML_LISTS, type AmlList } from '../aml/entity.js';
import { riskBand, type AmlQuery, type AmlScreening } from '../aml/score.js';
import type { AmlHit, AmlScreeningDetails } from '../details.js';
import { amlQueryOf } from '../inputs.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, resolveOutcome } from './shared.js';

/** Risk topics of a sandbox hit's category, as a live entity of that kind carries them. */
const SANDBOX_TOPICS: Record<AmlHit['category'], string[]> = {
  sanctions: ['sanction'],
  pep: ['role.pep'],
  adverse_media: ['crime'],
};

/** The catalogue hits of a magic name on the lists screened: a list that was not screened cannot produce a hit, in sandbox as in live. */
function sandboxHits(fullName: string, checkedLists: readonly string[]) {
  const outcome = resolveOutcome(SANDBOX_CATALOGUE.aml_screening, fullName);
  return { outcome, hits: outcome.effect.hits.filter((hit) => checkedLists.includes(hit.list)).map((hit): AmlHit => ({ ...hit })) };
}

/** Creates the sandbox AML engine; its standalone screen answers the magic names with the live hit shape. */
export function createSandboxAmlEngine(): ListScreeningEngine {
  const provider = NODE_CATALOGUE.aml_screening.sandboxProvider;
  return {
    provider,
    nodeType: 'aml_screening',
    async screen(subject: AmlQuery, lists: readonly AmlList[]): Promise<AmlScreening> {
      const checkedLists = [...new Set(lists)];
      const { hits } = sandboxHits(subject.fullName, checkedLists);
      const score = Math.max(0, ...hits.map((hit) => hit.score));
      return {
        score,
        riskBand: riskBand(score),
        hits: hits.map((hit) => ({
          entityId: `${hit.list}:${hit.entryId}`,
          sourceList: hit.list as AmlList, // the catalogue names real lists
          sourceId: hit.entryId,
          name: hit.matchedName,
          matchedName: hit.matchedName,
          score: hit.score,
          matchedFields: ['name'],
          programs: [],
          topics: [...SANDBOX_TOPICS[hit.category]],
        })),
        checkedLists,
      };
    },
    async run(input, context) {
      const checkedLists = [...new Set(input.lists ?? AML_LISTS)];
      const { outcome, hits } = sandboxHits(input.fullName, checkedLists);
      const score = Math.max(0, ...hits.map((hit) => hit.score));
      const details: AmlScreeningDetails = {
        resultCode: hits.length === 0 ? 'clear' : outcome.resultCode,
        score,
        riskBand: riskBand(score),
        hits,
        checkedLists,
        subject: amlQueryOf(input),
      };
      return {
        status: amlNodeStatus(score, hits.length, context.amlScoreThreshold),
        provider,
        warnings: copyWarnings(outcome.warnings),
        details,
      };
    },
  };
}
