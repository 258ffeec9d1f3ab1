/** Sandbox `phone_verification`: outcome chosen by the confirmation code; no SMS is sent. */
import type { PhoneVerificationDetails } from '../details.js';
import type { PhoneVerificationConfirmInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, resolveOutcome } from './shared.js';

/** Creates the sandbox phone engine (confirm step). */
export function createSandboxPhoneEngine(): NodeEngine<PhoneVerificationConfirmInput> {
  const provider = NODE_CATALOGUE.phone_verification.sandboxProvider;
  return {
    provider,
    nodeType: 'phone_verification',
    async run(input) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.phone_verification, input.code);
      const details: PhoneVerificationDetails = {
        resultCode: outcome.resultCode,
        phone: input.phone,
        checks: { codeMatch: outcome.effect.codeMatch, lineRisk: outcome.effect.lineRisk },
      };
      return { status: outcome.status, provider, warnings: copyWarnings(outcome.warnings), details };
    },
  };
}
