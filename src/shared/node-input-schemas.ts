/**
 * What each node type accepts from the end user, as zod schemas in the service's camelCase: the
 * session steps validate with them (src/sessions/node-inputs.ts) and the engines' input types are
 * their outputs (src/engines/inputs.ts), so the fields an engine reads are the fields validated.
 */
import { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import { AML_LISTS } from '../domain/aml-lists.js';
import { CountryCode, IsoDate, notGiven, PhoneNumber } from './input-rules.js';

/** Longest string field of a node input other than images, in characters. */
const TEXT_MAX_LENGTH = 300;
/** Longest image field (data URI or sandbox token), in characters; the body limit caps it too. */
export const IMAGE_MAX_LENGTH = 20 * 1024 * 1024;
/** Longest base64 EF.SOD or EF.DG1, in characters (a SOD with its certificate is a few KB). */
const NFC_FIELD_MAX_LENGTH = 64 * 1024;

/**
 * The rule of each node input field, once: the service's camelCase schemas below and the REST
 * step bodies' snake_case ones (src/rest/routes/steps.ts) are built from these.
 */
export const NODE_INPUT_FIELDS = {
  text: z.string().trim().min(1).max(TEXT_MAX_LENGTH),
  image: z.string().min(1).max(IMAGE_MAX_LENGTH),
  country: CountryCode,
  idType: z.string().regex(/^[A-Z][A-Z_]{1,39}$/, 'must be an upper-case document type such as PASSPORT'),
  /** Chip data for NFC passive authentication (base64 EF.SOD, EF.DG1, optional EF.DG2). */
  nfcGroup: z.string().min(1).max(NFC_FIELD_MAX_LENGTH),
  nfcPortrait: z.string().min(1).max(IMAGE_MAX_LENGTH),
  dateOfBirth: IsoDate,
  lists: z.array(z.enum(AML_LISTS)).min(1),
  phone: PhoneNumber,
  code: z.string().regex(/^\d{6}$/, 'must be the 6-digit code'),
  maxAgeDays: z.number().int().min(1).max(3650),
  flag: z.boolean(),
} as const;

const fields = NODE_INPUT_FIELDS;

/**
 * What each node type accepts from the end user (GraphQL's step inputs, and the REST step bodies
 * once mapped), validated strictly before any engine runs; null means "not given". Each field's
 * comment is what the engines make of it.
 */
export const NODE_INPUT_SCHEMAS = {
  document_verification: z
    .object({
      /** Issuing country, ISO 3166-1 alpha-2. */
      country: fields.country,
      /** Document type, one of `ID_TYPES` or a future value. */
      idType: fields.idType,
      /** Front image as a `data:` URI (or a sandbox token with sandbox keys). */
      imageFront: fields.image,
      /** Back image, required for two-sided documents (`TWO_SIDED_ID_TYPES`). */
      imageBack: notGiven(fields.image),
      /** Read the NFC chip where the capture device could; otherwise the NFC check is skipped. */
      enableNfc: notGiven(fields.flag),
      /** Chip data for NFC passive authentication, base64 as read from the chip (EF.SOD, EF.DG1, EF.DG2). */
      nfc: notGiven(z.object({ sod: fields.nfcGroup, dg1: fields.nfcGroup, dg2: notGiven(fields.nfcPortrait) }).strict()),
      /** Document number as typed by the end user, compared with the MRZ. */
      documentNumber: notGiven(fields.text),
      /** Given name as typed by the end user, compared with `expected_details`. */
      firstName: notGiven(fields.text),
      /** Family name as typed by the end user, compared with `expected_details`. */
      lastName: notGiven(fields.text),
      /** Date of birth `YYYY-MM-DD`, compared with `expected_details`. */
      dateOfBirth: notGiven(fields.dateOfBirth),
    })
    .strict(),
  /** Selfie as a `data:` URI (or a sandbox token with sandbox keys), compared with the document portrait. */
  biometric_kyc: z.object({ selfie: fields.image }).strict(),
  aml_screening: z
    .object({
      /** Name to screen; the only required field (docs/design.md "Smaller decisions"). */
      fullName: fields.text,
      /** Date of birth `YYYY-MM-DD`, narrows matches. */
      dateOfBirth: notGiven(fields.dateOfBirth),
      /** Country ISO-2, narrows matches. */
      country: notGiven(fields.country),
      /** Lists to screen against (`AML_LISTS`); every list the service holds when omitted. */
      lists: notGiven(fields.lists),
    })
    .strict(),
  /** The confirm step of a phone: the E.164 number the code was sent to and the 6-digit code typed. */
  phone_verification: z.object({ phone: fields.phone, code: fields.code }).strict(),
  proof_of_address: z
    .object({
      /** Utility bill, bank statement or government letter as a `data:` URI (JPEG, PNG or PDF). */
      documentImage: fields.image,
      /** Name the document should carry; a different name is a `name_mismatch` warning. */
      expectedName: notGiven(fields.text),
      /** Country ISO-2, used for geocoding and issuer validation. */
      country: notGiven(fields.country),
      /** Documents issued more than this many days ago fail; `POA_DEFAULT_MAX_AGE_DAYS` when omitted. */
      maxAgeDays: notGiven(fields.maxAgeDays),
    })
    .strict(),
  /** The company to look up: its declared name (compared with the registry's), registration number and registry country. */
  business_registry: z.object({ companyName: fields.text, registrationNumber: fields.text, country: fields.country }).strict(),
} satisfies Record<NodeType, z.ZodType>;
