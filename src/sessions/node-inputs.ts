import { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import type { NodeInputs } from '../engines/inputs.js';
import { AML_LISTS } from '../engines/aml/entity.js';
import { CountryCode, definedFields, IsoDate, notGiven, PhoneNumber, snakeFieldName } from '../shared/input-rules.js';
import { parseOrThrow } from '../shared/validation.js';

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
 * once mapped), validated strictly before any engine runs; null means "not given".
 */
export const NODE_INPUT_SCHEMAS = {
  document_verification: z
    .object({
      country: fields.country,
      idType: fields.idType,
      imageFront: fields.image,
      imageBack: notGiven(fields.image),
      enableNfc: notGiven(fields.flag),
      nfc: notGiven(z.object({ sod: fields.nfcGroup, dg1: fields.nfcGroup, dg2: notGiven(fields.nfcPortrait) }).strict()),
      documentNumber: notGiven(fields.text),
      firstName: notGiven(fields.text),
      lastName: notGiven(fields.text),
      dateOfBirth: notGiven(fields.dateOfBirth),
    })
    .strict(),
  biometric_kyc: z.object({ selfie: fields.image }).strict(),
  aml_screening: z
    .object({
      fullName: fields.text,
      dateOfBirth: notGiven(fields.dateOfBirth),
      country: notGiven(fields.country),
      lists: notGiven(fields.lists),
    })
    .strict(),
  phone_verification: z.object({ phone: fields.phone, code: fields.code }).strict(),
  proof_of_address: z
    .object({
      documentImage: fields.image,
      expectedName: notGiven(fields.text),
      country: notGiven(fields.country),
      maxAgeDays: notGiven(fields.maxAgeDays),
    })
    .strict(),
  business_registry: z.object({ companyName: fields.text, registrationNumber: fields.text, country: fields.country }).strict(),
} satisfies Record<NodeType, z.ZodType>;

/** What submitNodeInput accepts for a node type before validation: GraphQL's step input as is. */
export type NodeInput = z.input<(typeof NODE_INPUT_SCHEMAS)[NodeType]>;

/**
 * Validates a node's input and returns it as the engines read it: the spec's snake_case names
 * (`image_front`), which are the camelCase fields' words, without the fields not given.
 */
export function parseNodeInput(nodeType: NodeType, input: unknown): NodeInputs[NodeType] & Record<string, unknown> {
  const valid = parseOrThrow(NODE_INPUT_SCHEMAS[nodeType], input) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(definedFields(valid)).map(([field, value]) => [
      snakeFieldName(field),
      field === 'nfc' ? definedFields(value as object) : value,
    ]),
  ) as NodeInputs[NodeType] & Record<string, unknown>;
}
