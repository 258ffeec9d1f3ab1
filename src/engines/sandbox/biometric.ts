/** Sandbox `biometric_kyc`: outcome chosen by the `selfie` token. */
import type { BiometricKycDetails } from '../details.js';
import type { BiometricKycInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, resolveOutcome } from './shared.js';

/** Creates the sandbox selfie engine. */
export function createSandboxBiometricEngine(): NodeEngine<BiometricKycInput> {
  const provider = NODE_CATALOGUE.biometric_kyc.sandboxProvider;
  return {
    provider,
    nodeType: 'biometric_kyc',
    async run(input) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.biometric_kyc, input.selfie);
      const details: BiometricKycDetails = {
        resultCode: outcome.resultCode,
        checks: { liveness: outcome.effect.liveness, faceMatch: outcome.effect.faceMatch },
        similarity: outcome.effect.similarity,
      };
      return { status: outcome.status, provider, warnings: copyWarnings(outcome.warnings), details };
    },
  };
}
