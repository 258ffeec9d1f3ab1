import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import { AML_LISTS } from '../engines/aml/entity.js';
import { countryToIso2 } from '../engines/aml/countries.js';
import { icaoToIso2 } from '../engines/document/countries.js';

/** Longest string field of a node input other than images, in characters. */
const TEXT_MAX_LENGTH = 300;
/** Longest image field (data URI or sandbox token), in characters; the body limit caps it too. */
export const IMAGE_MAX_LENGTH = 20 * 1024 * 1024;
/** Longest base64 EF.SOD or EF.DG1, in characters (a SOD with its certificate is a few KB). */
const NFC_FIELD_MAX_LENGTH = 64 * 1024;

/** ISO 3166-1 alpha-2 codes Node knows a name for: the offline list we validate countries against. */
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Codes ICU names that are not countries. */
const PSEUDO_REGIONS = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);
/** Longest value we try to read as a country name for a suggestion, in characters. */
const COUNTRY_SUGGESTION_MAX_LENGTH = 100;

/** The current code of a region code ICU knows (`UK` → GB, `YU` → RS), or undefined; only for two-letter input. */
function canonicalRegion(code: string): string | undefined {
  // The shape is checked first: Intl.DisplayNames.of() and Intl.Locale throw on anything but a well-formed region code.
  if (!/^[A-Z]{2}$/.test(code) || PSEUDO_REGIONS.has(code) || REGION_NAMES.of(code) === undefined) return undefined;
  return new Intl.Locale(`und-${code}`).region;
}

/** Whether a string is an upper-case ISO-2 code of a real country (deprecated aliases such as `UK` are not). */
function isCountryCode(value: string): boolean {
  return canonicalRegion(value) === value;
}

/** The ISO-2 code a client probably meant ("GBR", "gb", "UK", "United Kingdom" → GB), or undefined. */
export function suggestCountryCode(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > COUNTRY_SUGGESTION_MAX_LENGTH) return undefined;
  const guess = /^[A-Za-z]{3}$/.test(trimmed) ? (icaoToIso2(trimmed) ?? undefined) : countryToIso2(trimmed);
  return guess === undefined ? undefined : canonicalRegion(guess.toUpperCase());
}

/** An ISO-2 country code that names a real region (upper case); anything else is refused with a suggestion where one exists. */
export const CountryCode = z.string().superRefine((value, context) => {
  if (isCountryCode(value)) return;
  const suggestion = suggestCountryCode(value);
  context.addIssue({
    code: 'custom',
    message: suggestion
      ? `must be an ISO 3166-1 alpha-2 code; did you mean ${suggestion}?`
      : 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. GB',
  });
});

/** Like CountryCode, for the standalone checks that have always accepted lower case (`gb` is GB). */
export const CountryCodeAnyCase = z
  .string()
  .transform((value) => (/^[a-z]{2}$/i.test(value) ? value.toUpperCase() : value))
  .pipe(CountryCode);

/** A calendar date `YYYY-MM-DD` that exists (no 2023-02-30). */
export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'must be a real calendar date YYYY-MM-DD');

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
