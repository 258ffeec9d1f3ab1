/** Sandbox `business_registry`: outcome chosen by the registration number. */
import type { BusinessRegistryDetails } from '../details.js';
import type { BusinessRegistryInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, resolveOutcome } from './shared.js';

/** Incorporation date of every sandbox company; fixed because nothing depends on it. */
const INCORPORATED_ON = '2015-03-02';

/** Creates the sandbox registry engine. */
export function createSandboxRegistryEngine(): NodeEngine<BusinessRegistryInput> {
  const provider = NODE_CATALOGUE.business_registry.sandboxProvider;
  return {
    provider,
    nodeType: 'business_registry',
    async run(input) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.business_registry, input.registrationNumber);
      const { effect } = outcome;
      const company =
        effect.companyStatus === null
          ? null
          : {
              name: effect.registeredName ?? input.companyName,
              registrationNumber: input.registrationNumber,
              country: input.country,
              status: effect.companyStatus,
              incorporatedOn: INCORPORATED_ON,
            };
      const details: BusinessRegistryDetails = {
        resultCode: outcome.resultCode,
        company,
        checks: {
          registryFound: effect.registryFound,
          companyActive: effect.companyActive,
          nameMatch: effect.nameMatch,
        },
      };
      return { status: outcome.status, provider, warnings: copyWarnings(outcome.warnings), details };
    },
  };
}
