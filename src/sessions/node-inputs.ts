import { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import { AML_LISTS } from '../engines/aml/entity.js';
import { CountryCode, IsoDate, PhoneNumber } from '../input-rules.js';

/** Longest string field of a node input other than images, in characters. */
const TEXT_MAX_LENGTH = 300;
/** Longest image field (data URI or sandbox token), in characters; the body limit caps it too. */
export const IMAGE_MAX_LENGTH = 20 * 1024 * 1024;
/** Longest base64 EF.SOD or EF.DG1, in characters (a SOD with its certificate is a few KB). */
const NFC_FIELD_MAX_LENGTH = 64 * 1024;

const Text = z.string().trim().min(1).max(TEXT_MAX_LENGTH);
const Image = z.string().min(1).max(IMAGE_MAX_LENGTH);

/** What each node type accepts from the end user, validated strictly before any engine runs. */
export const NODE_INPUT_SCHEMAS = {
  document_verification: z
    .object({
      country: CountryCode,
      id_type: z.string().regex(/^[A-Z][A-Z_]{1,39}$/, 'must be an upper-case document type such as PASSPORT'),
      image_front: Image,
      image_back: Image.nullable().optional(),
      enable_nfc: z.boolean().optional(),
      /** Chip data for NFC passive authentication (base64 EF.SOD, EF.DG1, optional EF.DG2). */
      nfc: z
        .object({
          sod: z.string().min(1).max(NFC_FIELD_MAX_LENGTH),
          dg1: z.string().min(1).max(NFC_FIELD_MAX_LENGTH),
          dg2: z.string().min(1).max(IMAGE_MAX_LENGTH).optional(),
        })
        .strict()
        .optional(),
      document_number: Text.optional(),
      first_name: Text.optional(),
      last_name: Text.optional(),
      date_of_birth: IsoDate.optional(),
    })
    .strict(),
  biometric_kyc: z.object({ selfie: Image }).strict(),
  aml_screening: z
    .object({
      full_name: Text,
      date_of_birth: IsoDate.optional(),
      country: CountryCode.optional(),
      lists: z.array(z.enum(AML_LISTS)).min(1).optional(),
    })
    .strict(),
  phone_verification: z.object({ phone: PhoneNumber, code: z.string().regex(/^\d{6}$/, 'must be the 6-digit code') }).strict(),
  proof_of_address: z
    .object({
      document_image: Image,
      expected_name: Text.optional(),
      country: CountryCode.optional(),
      max_age_days: z.number().int().min(1).max(3650).optional(),
    })
    .strict(),
  business_registry: z.object({ company_name: Text, registration_number: Text, country: CountryCode }).strict(),
} satisfies Record<NodeType, z.ZodType>;
