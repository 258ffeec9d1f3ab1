/** Sandbox `document_verification`: outcome chosen by the `image_front` token. */
import type { DocumentChecks, DocumentVerificationDetails } from '../details.js';
import type { DocumentVerificationInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { expectedDetailsWarnings, type ComparedDetails } from '../../domain/node-outcome.js';
import { SANDBOX_CATALOGUE } from './catalogue.js';
import { copyWarnings, isoDay, resolveOutcome, type SandboxEngineOptions } from './shared.js';

/** Placeholder identity when neither the end user nor `expected_details` gave one. */
const PLACEHOLDER = {
  first_name: 'Sandbox',
  last_name: 'User',
  date_of_birth: '1990-01-01',
  document_number: 'SBX000000',
};

/** Creates the sandbox document engine. */
export function createSandboxDocumentEngine(options: SandboxEngineOptions = {}): NodeEngine<DocumentVerificationInput> {
  const now = options.now ?? (() => new Date());
  return {
    provider: NODE_CATALOGUE.document_verification.sandboxProvider,
    nodeType: 'document_verification',
    async run(input, context) {
      const outcome = resolveOutcome(SANDBOX_CATALOGUE.document_verification, input.imageFront);
      const happyChecks: DocumentChecks = {
        documentAuthentic: 'passed',
        mrzMatch: 'passed',
        expiryCheck: 'passed',
        nfcSignature: input.enableNfc === true ? 'passed' : 'skipped',
      };
      const today = now();
      const details: DocumentVerificationDetails = {
        resultCode: outcome.resultCode,
        documentType: input.idType,
        issuingCountry: input.country,
        checks: { ...happyChecks, ...outcome.effect.checks },
        extracted: {
          // The sandbox "reads" what the end user typed, else what the integrator expected, so
          // the happy path never raises mismatch warnings by accident.
          firstName: input.firstName ?? context.expectedDetails?.first_name ?? PLACEHOLDER.first_name,
          lastName: input.lastName ?? context.expectedDetails?.last_name ?? PLACEHOLDER.last_name,
          dateOfBirth: input.dateOfBirth ?? context.expectedDetails?.date_of_birth ?? PLACEHOLDER.date_of_birth,
          documentNumber: input.documentNumber ?? PLACEHOLDER.document_number,
          expiryDate: isoDay(today, outcome.effect.expired ? -365 : 5 * 365),
          // A passport's holder is a national of the state that issued it.
          nationality: input.country,
          // The sandbox reads no MRZ: the fields only a real document prints stay empty.
          nationalityCode: null,
          issuingState: null,
          sex: null,
          documentCode: null,
          mrzFormat: null,
        },
      };
      return {
        status: outcome.status,
        provider: NODE_CATALOGUE.document_verification.sandboxProvider,
        warnings: [...copyWarnings(outcome.warnings), ...expectedDetailsWarnings(typedDetails(input), context.expectedDetails)],
        details,
      };
    },
  };
}

/** What the end user typed of the fields compared with `expected_details`: the sandbox's stand-in for what a document shows. */
function typedDetails(input: DocumentVerificationInput): ComparedDetails {
  return { first_name: input.firstName, last_name: input.lastName, date_of_birth: input.dateOfBirth, country: input.country };
}
