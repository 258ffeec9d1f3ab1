/**
 * What the end user submits for each node type. Live and sandbox engines take the same inputs,
 * so an integration written against sandbox keys works unchanged with live keys.
 */
import type { NodeType } from '../domain/types.js';
import type { AmlSubject } from './details.js';

/** ID document types the spec names; the list is open-ended, so inputs keep `id_type` a string. */
export const ID_TYPES = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'RESIDENCE_PERMIT'] as const;
/** One of the ID document types the spec names. */
export type IdType = (typeof ID_TYPES)[number];

/** Document types printed on two sides, for which `image_back` is required (spec Errors, item 7). */
export const TWO_SIDED_ID_TYPES: readonly string[] = ['DRIVERS_LICENSE', 'NATIONAL_ID', 'RESIDENCE_PERMIT'];

/** Default maximum age of a proof-of-address document, in days (spec Limits). */
export const POA_DEFAULT_MAX_AGE_DAYS = 90;

/** Input of `document_verification`, also the body of the standalone `POST /v1/id-verification`. */
export interface DocumentVerificationInput {
  /** Issuing country, ISO 3166-1 alpha-2. */
  country: string;
  /** Document type, one of `ID_TYPES` or a future value. */
  id_type: string;
  /** Front image as a `data:` URI (or a sandbox token with sandbox keys). */
  image_front: string;
  /** Back image, required for two-sided documents (`TWO_SIDED_ID_TYPES`). */
  image_back?: string | null;
  /** Read the NFC chip where the capture device could; otherwise the NFC check is skipped. */
  enable_nfc?: boolean;
  /** Document number as typed by the end user, compared with the MRZ. */
  document_number?: string;
  /** Given name as typed by the end user, compared with `expected_details`. */
  first_name?: string;
  /** Family name as typed by the end user, compared with `expected_details`. */
  last_name?: string;
  /** Date of birth `YYYY-MM-DD`, compared with `expected_details`. */
  date_of_birth?: string;
  /** Chip data for NFC passive authentication, base64 as read from the chip (EF.SOD, EF.DG1, EF.DG2). */
  nfc?: { sod: string; dg1: string; dg2?: string };
}

/** Input of `biometric_kyc`: the selfie compared with the document portrait. */
export interface BiometricKycInput {
  /** Selfie as a `data:` URI (or a sandbox token with sandbox keys). */
  selfie: string;
}

/** Input of `aml_screening`, also the body of the standalone `POST /v1/aml`. */
export interface AmlScreeningInput {
  /** Name to screen; the only required field (docs/design.md "Smaller decisions"). */
  full_name: string;
  /** Date of birth `YYYY-MM-DD`, narrows matches. */
  date_of_birth?: string;
  /** Country ISO-2, narrows matches. */
  country?: string;
  /** Lists to screen against (`AML_LISTS`); every list the service holds when omitted. */
  lists?: string[];
}

/** First step of `phone_verification`: where the one-time code is sent. */
export interface PhoneVerificationStartInput {
  /** Phone number in E.164, already validated by the caller. */
  phone: string;
}

/** Second step of `phone_verification`: the code the end user received; this is what engines run on. */
export interface PhoneVerificationConfirmInput {
  /** Phone number in E.164 the code was sent to. */
  phone: string;
  /** The one-time code the end user typed (6 digits). */
  code: string;
}

/** Input of `proof_of_address`, also the body of the standalone `POST /v1/poa`. */
export interface ProofOfAddressInput {
  /** Utility bill, bank statement or government letter as a `data:` URI (JPEG, PNG or PDF). */
  document_image: string;
  /** Name the document should carry; a different name is a `name_mismatch` warning. */
  expected_name?: string;
  /** Country ISO-2, used for geocoding and issuer validation. */
  country?: string;
  /** Documents issued more than this many days ago fail; `POA_DEFAULT_MAX_AGE_DAYS` when omitted. */
  max_age_days?: number;
}

/** Input of `business_registry`: the company to look up. */
export interface BusinessRegistryInput {
  /** Company name as declared, compared with the registry's name. */
  company_name: string;
  /** Registration number in the country's registry. */
  registration_number: string;
  /** Registry country, ISO-2. */
  country: string;
}

/** The input an engine of each node type runs on, so engine registries stay type-safe. */
export interface NodeInputs extends Record<NodeType, unknown> {
  /** See `DocumentVerificationInput`. */
  document_verification: DocumentVerificationInput;
  /** See `BiometricKycInput`. */
  biometric_kyc: BiometricKycInput;
  /** See `AmlScreeningInput`. */
  aml_screening: AmlScreeningInput;
  /** The confirm step; the start step only sends a code. */
  phone_verification: PhoneVerificationConfirmInput;
  /** See `ProofOfAddressInput`. */
  proof_of_address: ProofOfAddressInput;
  /** See `BusinessRegistryInput`. */
  business_registry: BusinessRegistryInput;
}

/** The input type of one node type, for engines generic over it. */
export type NodeInputFor<T extends NodeType> = NodeInputs[T];

/** Whom an AML input screens: its name, date of birth and country, without `lists` (where, not whom); sandbox and live alike. */
export function amlSubjectOf(input: AmlScreeningInput): AmlSubject {
  return {
    full_name: input.full_name,
    ...(input.date_of_birth ? { date_of_birth: input.date_of_birth } : {}),
    ...(input.country ? { country: input.country } : {}),
  };
}
