/**
 * What the end user submits for each node type. Live and sandbox engines take the same inputs,
 * so an integration written against sandbox keys works unchanged with live keys. The names are
 * the service's camelCase (`imageFront`); outputs (`details`, warnings) keep the spec's snake_case.
 */
import type { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import type { GivenFields } from '../shared/input-rules.js';
import type { NODE_INPUT_SCHEMAS } from '../shared/node-input-schemas.js';
import { isAmlList } from '../domain/aml-lists.js';
import type { AmlSubject } from './details.js';
import type { AmlQuery } from './aml/score.js';
import { storedDetails } from './stored-details.js';

/**
 * The validated input of a node type, camelCase as the caller wrote it, without the fields not
 * given: each field's rule and meaning are in NODE_INPUT_SCHEMAS.
 */
type InputOf<T extends NodeType> = GivenFields<z.output<(typeof NODE_INPUT_SCHEMAS)[T]>>;

/** ID document types the spec names; the list is open-ended, so inputs keep `idType` a string. */
export const ID_TYPES = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'RESIDENCE_PERMIT'] as const;
/** One of the ID document types the spec names. */
export type IdType = (typeof ID_TYPES)[number];

/** Document types printed on two sides, for which `imageBack` is required (spec Errors, item 7). */
export const TWO_SIDED_ID_TYPES: readonly string[] = ['DRIVERS_LICENSE', 'NATIONAL_ID', 'RESIDENCE_PERMIT'];

/** Default maximum age of a proof-of-address document, in days (spec Limits). */
export const POA_DEFAULT_MAX_AGE_DAYS = 90;

/** Input of `document_verification`, also what the standalone `POST /v1/id-verification` runs on. */
export type DocumentVerificationInput = InputOf<'document_verification'>;

/** Input of `biometric_kyc`: the selfie compared with the document portrait. */
export type BiometricKycInput = InputOf<'biometric_kyc'>;

/** Input of `aml_screening`, also what the standalone `POST /v1/aml` screens. */
export type AmlScreeningInput = InputOf<'aml_screening'>;

/** First step of `phone_verification`: where the one-time code is sent. */
export interface PhoneVerificationStartInput {
  /** Phone number in E.164, already validated by the caller. */
  phone: string;
}

/** Second step of `phone_verification`: the code the end user received; this is what engines run on. */
export type PhoneVerificationConfirmInput = InputOf<'phone_verification'>;

/** Input of `proof_of_address`, also what the standalone `POST /v1/poa` runs on. */
export type ProofOfAddressInput = InputOf<'proof_of_address'>;

/** Input of `business_registry`: the company to look up. */
export type BusinessRegistryInput = InputOf<'business_registry'>;

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

/** Whom an AML input screens, as a session keeps it (`full_name`, …): the stored shape of {@link amlQueryOf}; sandbox and live alike. */
export function amlSubjectOf(input: AmlScreeningInput): AmlSubject {
  return storedDetails(amlQueryOf(input));
}

/** The query an AML engine screens and keeps as `subject`: the input without `lists` (where, not whom); sandbox and live alike. */
export function amlQueryOf(input: AmlScreeningInput): AmlQuery {
  return {
    fullName: input.fullName,
    ...(input.dateOfBirth ? { dateOfBirth: input.dateOfBirth } : {}),
    ...(input.country ? { country: input.country } : {}),
  };
}

/**
 * The AML input that screens `subject` (a document's identity, or typed data kept in a result's
 * details) against `lists`, every list when none: the inverse of amlSubjectOf.
 */
export function amlInputOf(subject: AmlSubject, lists?: readonly string[]): AmlScreeningInput {
  return {
    fullName: subject.full_name,
    ...(subject.date_of_birth ? { dateOfBirth: subject.date_of_birth } : {}),
    ...(subject.country ? { country: subject.country } : {}),
    ...(lists ? { lists: lists.filter(isAmlList) } : {}),
  };
}

/** Image types a selfie may be sent as (here, not in the face engine, so that the API checks them without loading it). */
export const SELFIE_MIME_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;

/** MIME types a proof-of-address document may have (here, not in the PoA engine, so that the API checks them without loading it). */
export const POA_MIME_TYPES = ['image/jpeg', 'image/png', 'application/pdf'] as const;
