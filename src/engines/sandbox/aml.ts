/**
 * Sandbox `aml_screening`: outcome chosen by a magic name inside `full_name`. In a session with a
 * document node that is the name the sandbox document "read" (src/sessions/aml-subject.ts).
 */
import { amlNodeStatus } from '../../domain/node-outcome.js';
import { AML_LISTS } from '../aml/entity.js';
import { riskBand } from '../aml/score.js';
import type { AmlHit, AmlScreeningDetails } from '../details.js';
import { amlSubjectOf, type AmlScreeningInput } from '../inputs.js';
import type { NodeEngine } from '../types.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, resolveOutcome } from './shared.js';

/** Creates the sandbox AML engine. */
export function createSandboxAmlEngine(): NodeEngine<AmlScreeningInput> {
  const provider = NODE_CATALOGUE.aml_screening.sandboxProvider;
  return {
    provider,
    nodeType: 'aml_screening',
    async run(input, context) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.aml_screening, input.full_name);
      const checkedLists = [...new Set(input.lists ?? AML_LISTS)];
      // A list that was not screened cannot produce a hit, in sandbox as in live.
      const hits: AmlHit[] = outcome.effect.hits.filter((hit) => checkedLists.includes(hit.list)).map((hit) => ({ ...hit }));
      const score = Math.max(0, ...hits.map((hit) => hit.score));
      const details: AmlScreeningDetails = {
        result_code: hits.length === 0 ? 'clear' : outcome.resultCode,
        score,
        risk_band: riskBand(score),
        hits,
        checked_lists: checkedLists,
        subject: amlSubjectOf(input),
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
