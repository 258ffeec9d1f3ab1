/** Sandbox `proof_of_address`: outcome chosen by the `document_image` token. */
import type { ProofOfAddressDetails } from '../details.js';
import { POA_DEFAULT_MAX_AGE_DAYS, type ProofOfAddressInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, isoDay, resolveOutcome, type SandboxEngineOptions } from './shared.js';

/** Age of a fresh sandbox bill, in days; capped at `max_age_days` so a small limit still passes. */
const FRESH_AGE_DAYS = 3;
/** How far past `max_age_days` a stale sandbox bill is, in days. */
const STALE_MARGIN_DAYS = 30;

/** Creates the sandbox proof-of-address engine. */
export function createSandboxPoaEngine(options: SandboxEngineOptions = {}): NodeEngine<ProofOfAddressInput> {
  const now = options.now ?? (() => new Date());
  const provider = NODE_CATALOGUE.proof_of_address.sandboxProvider;
  return {
    provider,
    nodeType: 'proof_of_address',
    async run(input) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.proof_of_address, input.documentImage);
      const { effect } = outcome;
      const maxAgeDays = input.maxAgeDays ?? POA_DEFAULT_MAX_AGE_DAYS;
      const ageDays = effect.stale ? maxAgeDays + STALE_MARGIN_DAYS : Math.min(FRESH_AGE_DAYS, maxAgeDays);
      const autoNameMatch = input.expectedName === undefined ? 'skipped' : 'passed';
      const details: ProofOfAddressDetails = {
        resultCode: outcome.resultCode,
        extracted: {
          name: effect.addressee ?? input.expectedName ?? 'Sandbox User',
          address: '1 Sandbox Street, 75001 Paris',
          issuer: 'Sandbox Energy',
          issuedAt: isoDay(now(), -ageDays),
        },
        checks: {
          nameMatch: effect.nameMatch === 'auto' ? autoNameMatch : effect.nameMatch,
          geocode: effect.geocode,
          freshness: effect.stale ? 'failed' : 'passed',
          tamperScore: effect.tamperScore,
        },
      };
      return { status: outcome.status, provider, warnings: copyWarnings(outcome.warnings), details };
    },
  };
}
