import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import { AML_LISTS } from '../engines/aml/entity.js';

/** Longest string field of a node input other than images, in characters. */
const TEXT_MAX_LENGTH = 300;
/** Longest image field (data URI or sandbox token), in characters; the body limit caps it too. */
const IMAGE_MAX_LENGTH = 20 * 1024 * 1024;
/** Longest base64 EF.SOD or EF.DG1, in characters (a SOD with its certificate is a few KB). */
const NFC_FIELD_MAX_LENGTH = 64 * 1024;

/** ISO 3166-1 alpha-2 codes Node knows a name for: the offline list we validate countries against. */
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** An ISO-2 country code that names a real region (upper case). */
export const CountryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. GB')
  .refine(
    (code) => REGION_NAMES.of(code) !== undefined && !['EU', 'UN', 'QO', 'XA', 'XB', 'ZZ'].includes(code),
    'is not a known country code',
  );

/** A calendar date `YYYY-MM-DD` that exists (no 2023-02-30). */
export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'is not a real calendar date');

/** A phone number that libphonenumber-js accepts, normalised to E.164. */
export const PhoneNumber = z
  .string()
  .max(40)
  .refine((value) => isValidPhoneNumber(value), 'must be a valid phone number in international format, e.g. +447911123456')
  .transform((value) => parsePhoneNumberFromString(value)!.number);

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
