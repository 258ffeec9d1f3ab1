/**
 * The sandbox's magic values, like a card network's test card numbers: with a sandbox key, these
 * inputs produce a known outcome so an integrator can reach every branch without real documents.
 * This one constant drives the engines, the input check and `docs/sandbox.md`. It is a data table,
 * longer than ~400 lines on purpose: one entry per magic value, all in one place.
 */
import { normaliseName } from '../../domain/node-outcome.js';
import type { NodeType, Warning } from '../../domain/types.js';
import type { FieldError } from '../../shared/errors.js';
import type { AmlHit, CheckOutcome, DocumentChecks } from '../details.js';
import type {
  AmlScreeningInput,
  BiometricKycInput,
  BusinessRegistryInput,
  DocumentVerificationInput,
  PhoneVerificationConfirmInput,
  ProofOfAddressInput,
} from '../inputs.js';

/** Prefix of image tokens; a value with this prefix that is not in the catalogue is refused, so typos do not pass silently. */
export const SANDBOX_TOKEN_PREFIX = 'sandbox:';

/** Node statuses a sandbox value can produce (pending and skipped are not outcomes of a run). */
export type SandboxStatus = 'passed' | 'failed' | 'review';

/** How the catalogue's values are compared with the input field. */
export type SandboxMatching =
  /** Exact `sandbox:<outcome>` token; other `sandbox:` values are refused; anything else is `otherwise`. */
  | 'token'
  /** Case- and accent-insensitive substring of the field; the first value in catalogue order wins. */
  | 'name_contains'
  /** Exact string equality. */
  | 'exact';

/** What one value produces. */
export interface SandboxOutcome<Effect> {
  /** Node status; for AML, the status at the default threshold (80). */
  status: SandboxStatus;
  /** `details.result_code` of the result. */
  resultCode: string;
  /** Warnings put on the result (a passed node with warnings sends the session to review). */
  warnings: readonly Warning[];
  /** What the value simulates, for the docs. */
  description: string;
  /** Node-specific inputs to the details (check outcomes, scores, hits). */
  effect: Effect;
}

/** One magic value and its outcome. */
export interface SandboxMagicValue<Effect> extends SandboxOutcome<Effect> {
  /** The value to put in the field. */
  value: string;
}

/** The magic values of one node type, whose engine reads `InputField` in its input. */
export interface SandboxNodeCatalogue<Effect, InputField extends string = string> {
  /** The input field the values go in, as the spec and the docs name it (`image_front`). */
  field: string;
  /** The same field as the engine's input names it (`imageFront`): where the values are read, and what an unknown token's error names. */
  inputField: InputField;
  /** How values are compared with the field. */
  matching: SandboxMatching;
  /** The outcome of every value not listed, with a label saying what those values are. */
  otherwise: SandboxOutcome<Effect> & { label: string };
  /** The listed values, in matching priority order. */
  values: readonly SandboxMagicValue<Effect>[];
}

/** Document effect: checks that differ from the happy path (`nfc_signature` otherwise follows `enable_nfc`). */
export interface SandboxDocumentEffect {
  /** Overrides of the happy-path checks. */
  checks: Partial<DocumentChecks>;
  /** True when the document's expiry date is in the past. */
  expired: boolean;
}

/** Selfie effect. */
export interface SandboxBiometricEffect {
  /** Outcome of the liveness check. */
  liveness: CheckOutcome;
  /** Outcome of the face comparison. */
  faceMatch: CheckOutcome;
  /** Similarity reported, 0 to 1. */
  similarity: number;
}

/** AML effect: the hits found; the score is the highest hit score among the lists screened. */
export interface SandboxAmlEffect {
  /** Hits, each on one list; hits on lists not screened are dropped. */
  hits: readonly AmlHit[];
}

/** Phone confirmation effect. */
export interface SandboxPhoneEffect {
  /** Outcome of the code comparison. */
  codeMatch: CheckOutcome;
  /** Outcome of the line-risk check. */
  lineRisk: CheckOutcome;
}

/** Proof-of-address effect. */
export interface SandboxPoaEffect {
  /** Name printed on the document; null echoes `expected_name` (or a placeholder). */
  addressee: string | null;
  /** Name-match outcome; `auto` is passed with an `expected_name`, skipped without. */
  nameMatch: CheckOutcome | 'auto';
  /** Outcome of the address lookup. */
  geocode: CheckOutcome;
  /** True when the document is older than `max_age_days` (it then fails freshness). */
  stale: boolean;
  /** Tamper score reported, 0 to 1. */
  tamperScore: number;
}

/** Business registry effect. */
export interface SandboxRegistryEffect {
  /** Registry status of the company; null when no company was found. */
  companyStatus: 'active' | 'dormant' | 'dissolved' | null;
  /** Name as registered; null echoes the declared `company_name`. */
  registeredName: string | null;
  /** Outcome of the lookup. */
  registryFound: CheckOutcome;
  /** Outcome of the status check. */
  companyActive: CheckOutcome;
  /** Outcome of the name comparison. */
  nameMatch: CheckOutcome;
}

/** The shape of the whole catalogue: one entry per node type, each with its own effect type. */
export interface SandboxCatalogue {
  /** Tokens in `image_front`. */
  document_verification: SandboxNodeCatalogue<SandboxDocumentEffect, keyof DocumentVerificationInput & string>;
  /** Tokens in `selfie`. */
  biometric_kyc: SandboxNodeCatalogue<SandboxBiometricEffect, keyof BiometricKycInput & string>;
  /** Names contained in `full_name`. */
  aml_screening: SandboxNodeCatalogue<SandboxAmlEffect, keyof AmlScreeningInput & string>;
  /** Codes at confirmation. */
  phone_verification: SandboxNodeCatalogue<SandboxPhoneEffect, keyof PhoneVerificationConfirmInput & string>;
  /** Tokens in `document_image`. */
  proof_of_address: SandboxNodeCatalogue<SandboxPoaEffect, keyof ProofOfAddressInput & string>;
  /** Registration numbers. */
  business_registry: SandboxNodeCatalogue<SandboxRegistryEffect, keyof BusinessRegistryInput & string>;
}

const NO_WARNINGS: readonly Warning[] = [];

/** Every magic value of the sandbox, per node type. The single source of engines, input checks and docs. */
export const SANDBOX_CATALOGUE: SandboxCatalogue = {
  document_verification: {
    field: 'image_front',
    inputField: 'imageFront',
    matching: 'token',
    otherwise: {
      label: 'any readable image (`data:` URI)',
      status: 'passed',
      resultCode: 'clear',
      warnings: NO_WARNINGS,
      description: 'A genuine, valid document. `nfc_signature` is `passed` with `enable_nfc: true`, else `skipped`.',
      effect: { checks: {}, expired: false },
    },
    values: [
      {
        value: 'sandbox:expired',
        status: 'failed',
        resultCode: 'document_expired',
        warnings: NO_WARNINGS,
        description: 'The document expired a year ago.',
        effect: { checks: { expiryCheck: 'failed' }, expired: true },
      },
      {
        value: 'sandbox:tampered',
        status: 'failed',
        resultCode: 'document_tampered',
        warnings: NO_WARNINGS,
        description: 'Security features show the document was edited.',
        effect: { checks: { documentAuthentic: 'failed' }, expired: false },
      },
      {
        value: 'sandbox:mrz_mismatch',
        status: 'failed',
        resultCode: 'mrz_mismatch',
        warnings: NO_WARNINGS,
        description: 'MRZ check digits or fields disagree with the visual zone.',
        effect: { checks: { mrzMatch: 'failed' }, expired: false },
      },
      {
        value: 'sandbox:blurry',
        status: 'failed',
        resultCode: 'image_blurry',
        warnings: NO_WARNINGS,
        description:
          "The photo is too blurred to read: the step asks for a retake (`resubmission_requested`, reason `image_blurry`) until the workflow's `max_attempts`, then fails.",
        effect: { checks: { mrzMatch: 'failed' }, expired: false },
      },
      {
        value: 'sandbox:nfc_invalid',
        status: 'failed',
        resultCode: 'nfc_signature_invalid',
        warnings: NO_WARNINGS,
        description: 'The chip signature does not verify (reported whatever `enable_nfc` says).',
        effect: { checks: { nfcSignature: 'failed' }, expired: false },
      },
      {
        value: 'sandbox:review',
        status: 'review',
        resultCode: 'manual_review_required',
        warnings: NO_WARNINGS,
        description: 'Authenticity is inconclusive (glare, unusual template): a human must look.',
        effect: { checks: { documentAuthentic: 'review' }, expired: false },
      },
      {
        value: 'sandbox:low_quality',
        status: 'passed',
        resultCode: 'clear',
        warnings: [
          {
            code: 'image_quality_low',
            message: 'The front image is blurred; fields were read with low confidence.',
            field: 'image_front',
          },
        ],
        description: 'Passed, with a warning, so the session goes to review.',
        effect: { checks: {}, expired: false },
      },
    ],
  },

  biometric_kyc: {
    field: 'selfie',
    inputField: 'selfie',
    matching: 'token',
    otherwise: {
      label: 'any readable image (`data:` URI)',
      status: 'passed',
      resultCode: 'clear',
      warnings: NO_WARNINGS,
      description: 'A live person who matches the document portrait.',
      effect: { liveness: 'passed', faceMatch: 'passed', similarity: 0.94 },
    },
    values: [
      {
        value: 'sandbox:face_mismatch',
        status: 'failed',
        resultCode: 'face_mismatch',
        warnings: NO_WARNINGS,
        description: 'A live person who is not the document holder.',
        effect: { liveness: 'passed', faceMatch: 'failed', similarity: 0.18 },
      },
      {
        value: 'sandbox:spoof',
        status: 'failed',
        resultCode: 'liveness_failed',
        warnings: NO_WARNINGS,
        description: 'A photo of a photo, a screen or a mask.',
        effect: { liveness: 'failed', faceMatch: 'passed', similarity: 0.91 },
      },
      {
        value: 'sandbox:review',
        status: 'review',
        resultCode: 'face_match_inconclusive',
        warnings: NO_WARNINGS,
        description: 'Similarity in the grey zone: a human must compare.',
        effect: { liveness: 'passed', faceMatch: 'review', similarity: 0.64 },
      },
    ],
  },

  aml_screening: {
    field: 'full_name',
    inputField: 'fullName',
    matching: 'name_contains',
    otherwise: {
      label: 'any other name',
      status: 'passed',
      resultCode: 'clear',
      warnings: NO_WARNINGS,
      description: 'No match on any list.',
      effect: { hits: [] },
    },
    values: [
      {
        value: 'Sandbox Sanctioned',
        status: 'failed',
        resultCode: 'sanctions_match',
        warnings: NO_WARNINGS,
        description: 'Strong match on a sanctions list: declines at any threshold up to 95.',
        effect: {
          hits: [
            {
              list: 'OFAC_SDN',
              entryId: 'sandbox-ofac-0001',
              category: 'sanctions',
              matchedName: 'SANDBOX SANCTIONED',
              score: 95,
            },
          ],
        },
      },
      {
        value: 'Sandbox Borderline',
        status: 'review',
        resultCode: 'possible_sanctions_match',
        warnings: NO_WARNINGS,
        description: 'Weak sanctions match scoring just below the default threshold: review at 80, decline at 79 or less.',
        effect: {
          hits: [
            {
              list: 'UN_SC',
              entryId: 'sandbox-unsc-0001',
              category: 'sanctions',
              matchedName: 'SANDBOX BORDERLINE',
              score: 79,
            },
          ],
        },
      },
      {
        value: 'Sandbox Pep',
        status: 'review',
        resultCode: 'pep_match',
        warnings: NO_WARNINGS,
        description: 'A politically exposed person: review.',
        effect: {
          hits: [{ list: 'PEP', entryId: 'sandbox-pep-0001', category: 'pep', matchedName: 'SANDBOX PEP', score: 60 }],
        },
      },
      {
        value: 'Sandbox Adverse Media',
        status: 'review',
        resultCode: 'adverse_media_match',
        warnings: NO_WARNINGS,
        description: 'Named in adverse media: review.',
        effect: {
          hits: [
            {
              list: 'ADVERSE_MEDIA',
              entryId: 'sandbox-media-0001',
              category: 'adverse_media',
              matchedName: 'SANDBOX ADVERSE MEDIA',
              score: 45,
            },
          ],
        },
      },
    ],
  },

  phone_verification: {
    field: 'code',
    inputField: 'code',
    matching: 'exact',
    otherwise: {
      label: 'any other code',
      status: 'failed',
      resultCode: 'code_mismatch',
      warnings: NO_WARNINGS,
      description:
        'Wrong code: fails at once (no SMS is sent in sandbox). A live key answers 422 otp_invalid and keeps the step pending until the fifth wrong code.',
      effect: { codeMatch: 'failed', lineRisk: 'passed' },
    },
    values: [
      {
        value: '000000',
        status: 'passed',
        resultCode: 'clear',
        warnings: NO_WARNINGS,
        description: 'The right code.',
        effect: { codeMatch: 'passed', lineRisk: 'passed' },
      },
      {
        value: '111111',
        status: 'failed',
        resultCode: 'code_mismatch',
        warnings: NO_WARNINGS,
        description: 'A wrong code (explicit value for tests).',
        effect: { codeMatch: 'failed', lineRisk: 'passed' },
      },
      {
        value: '222222',
        status: 'review',
        resultCode: 'high_risk_line',
        warnings: NO_WARNINGS,
        description: 'The right code, but the number is a disposable or VoIP line.',
        effect: { codeMatch: 'passed', lineRisk: 'review' },
      },
    ],
  },

  proof_of_address: {
    field: 'document_image',
    inputField: 'documentImage',
    matching: 'token',
    otherwise: {
      label: 'any readable image (`data:` URI)',
      status: 'passed',
      resultCode: 'clear',
      warnings: NO_WARNINGS,
      description: 'A recent bill addressed to `expected_name`. `name_match` is `passed` with `expected_name`, else `skipped`.',
      effect: { addressee: null, nameMatch: 'auto', geocode: 'passed', stale: false, tamperScore: 0.04 },
    },
    values: [
      {
        value: 'sandbox:name_mismatch',
        status: 'passed',
        resultCode: 'clear',
        warnings: [{ code: 'name_mismatch', message: 'The addressee differs from the expected name.', field: 'expected_name' }],
        description: 'Addressed to someone else: passed with a warning, so the session goes to review.',
        effect: {
          addressee: 'Jordan Sample',
          nameMatch: 'warning',
          geocode: 'passed',
          stale: false,
          tamperScore: 0.04,
        },
      },
      {
        value: 'sandbox:unverifiable_address',
        status: 'review',
        resultCode: 'address_unverifiable',
        warnings: NO_WARNINGS,
        description: 'The address cannot be geocoded: a human must check it.',
        effect: { addressee: null, nameMatch: 'auto', geocode: 'review', stale: false, tamperScore: 0.04 },
      },
      {
        value: 'sandbox:too_old',
        status: 'failed',
        resultCode: 'document_too_old',
        warnings: NO_WARNINGS,
        description: 'Issued 30 days before the `max_age_days` limit (the standalone endpoint answers 422).',
        effect: { addressee: null, nameMatch: 'auto', geocode: 'passed', stale: true, tamperScore: 0.04 },
      },
      {
        value: 'sandbox:tampered',
        status: 'failed',
        resultCode: 'document_tampered',
        warnings: NO_WARNINGS,
        description: 'The document was edited (tamper score 0.93).',
        effect: { addressee: null, nameMatch: 'auto', geocode: 'passed', stale: false, tamperScore: 0.93 },
      },
    ],
  },

  business_registry: {
    field: 'registration_number',
    inputField: 'registrationNumber',
    matching: 'exact',
    otherwise: {
      label: 'any other number',
      status: 'passed',
      resultCode: 'clear',
      warnings: NO_WARNINGS,
      description: 'An active company registered under the declared name.',
      effect: {
        companyStatus: 'active',
        registeredName: null,
        registryFound: 'passed',
        companyActive: 'passed',
        nameMatch: 'passed',
      },
    },
    values: [
      {
        value: '00000000',
        status: 'failed',
        resultCode: 'company_not_found',
        warnings: NO_WARNINGS,
        description: 'No company with this number.',
        effect: {
          companyStatus: null,
          registeredName: null,
          registryFound: 'failed',
          companyActive: 'skipped',
          nameMatch: 'skipped',
        },
      },
      {
        value: '11111111',
        status: 'review',
        resultCode: 'company_dormant',
        warnings: NO_WARNINGS,
        description: 'The company exists but is dormant: a human must decide.',
        effect: {
          companyStatus: 'dormant',
          registeredName: null,
          registryFound: 'passed',
          companyActive: 'review',
          nameMatch: 'passed',
        },
      },
      {
        value: '22222222',
        status: 'passed',
        resultCode: 'clear',
        warnings: [
          {
            code: 'name_mismatch',
            message: 'The registered name differs from the declared name.',
            field: 'company_name',
          },
        ],
        description: 'Registered under another name: passed with a warning, so the session goes to review.',
        effect: {
          companyStatus: 'active',
          registeredName: 'Sandbox Holdings Limited',
          registryFound: 'passed',
          companyActive: 'passed',
          nameMatch: 'warning',
        },
      },
      {
        value: '33333333',
        status: 'failed',
        resultCode: 'company_dissolved',
        warnings: NO_WARNINGS,
        description: 'The company was dissolved.',
        effect: {
          companyStatus: 'dissolved',
          registeredName: null,
          registryFound: 'passed',
          companyActive: 'failed',
          nameMatch: 'passed',
        },
      },
    ],
  },
};

/** What `findSandboxOutcome` answers: the outcome, or the refusal of an unknown token. */
export type SandboxLookup<Effect> =
  | {
      /** A listed value or the `otherwise` outcome applies. */
      kind: 'outcome';
      /** The outcome to produce. */
      outcome: SandboxOutcome<Effect>;
      /** The catalogue value that matched; null for `otherwise`. */
      value: string | null;
    }
  | {
      /** A `sandbox:` token that the catalogue does not list. */
      kind: 'unknown_token';
      /** The token as given. */
      token: string;
    };

/** Finds the outcome of one field value in one node's catalogue. */
export function findSandboxOutcome<Effect>(node: SandboxNodeCatalogue<Effect>, fieldValue: string): SandboxLookup<Effect> {
  const found = node.values.find((entry) => matches(node.matching, entry.value, fieldValue));
  if (found !== undefined) return { kind: 'outcome', outcome: found, value: found.value };
  if (node.matching === 'token' && fieldValue.startsWith(SANDBOX_TOKEN_PREFIX)) {
    return { kind: 'unknown_token', token: fieldValue };
  }
  return { kind: 'outcome', outcome: node.otherwise, value: null };
}

/**
 * Field errors for sandbox inputs that name an unknown `sandbox:` token, so input validation
 * can answer 400 before the engine runs. Empty when the input is acceptable to the sandbox.
 */
export function checkSandboxInput(nodeType: NodeType, input: unknown): FieldError[] {
  const node: SandboxNodeCatalogue<unknown> = SANDBOX_CATALOGUE[nodeType];
  if (typeof input !== 'object' || input === null) return [];
  const fieldValue: unknown = (input as Record<string, unknown>)[node.inputField];
  if (typeof fieldValue !== 'string') return [];
  const lookup = findSandboxOutcome(node, fieldValue);
  if (lookup.kind === 'outcome') return [];
  return [unknownTokenError(node, lookup.token)];
}

/** The field error for an unknown token; lists the valid ones so the fix is in the message. */
export function unknownTokenError(node: SandboxNodeCatalogue<unknown>, token: string): FieldError {
  const known = node.values.map((entry) => entry.value).join(', ');
  return {
    field: node.inputField,
    code: 'unknown_sandbox_token',
    message: `${token} is not a sandbox token for ${node.field}; use a data: URI or one of: ${known}.`,
  };
}

function matches(matching: SandboxMatching, catalogueValue: string, fieldValue: string): boolean {
  if (matching === 'name_contains') return normaliseName(fieldValue).includes(normaliseName(catalogueValue));
  return catalogueValue === fieldValue;
}
