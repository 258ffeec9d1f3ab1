/**
 * The field rules every input shares, in one place: calendar dates, country codes, phone numbers,
 * ids, and dropping the nulls GraphQL uses for "not given". Sessions, node inputs, the standalone
 * checks, lists and webhooks build their schemas from these, so a rule cannot drift between them.
 */
import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import { ApiError } from './errors.js';
import { countryToIso2 } from './country-names.js';
import { icaoToIso2 } from './icao-countries.js';

/** ISO 3166-1 alpha-2 codes Node knows a name for: the offline list we validate countries against. */
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Codes ICU names that are not countries (user-assigned and grouping codes). */
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
export function isCountryCode(value: string): boolean {
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

/** Like CountryCode, for the standalone checks and lists that have always accepted lower case (`gb` is GB). */
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

/** Any 8-4-4-4-12 hex string: what PostgreSQL's uuid type accepts in its canonical form. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID: ids we issue are, so anything else is answered as not found without a query. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * What a service accepts before its schema checks it: the schema's input with every string-literal
 * union widened to string, since GraphQL types such fields String and the service's schema is
 * what refuses an unknown value.
 */
export type Unchecked<T> = T extends string
  ? string
  : T extends readonly (infer Item)[]
    ? Unchecked<Item>[]
    : T extends object
      ? { [K in keyof T]: Unchecked<T[K]> }
      : T;

/** A field GraphQL may send as null: null reads as "not given", as an absent field does, so the output has no null. */
export function notGiven<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/** Like notGiven, with the value a field takes when it is not given. */
export function givenOr<T extends z.ZodType>(schema: T, fallback: z.output<T>) {
  return schema.nullish().transform((value): z.output<T> => value ?? fallback);
}

/**
 * An error with its field errors renamed (and the field at the start of each message with them):
 * how a transport or a service hands an error to a caller who writes the fields another way.
 */
export function withRenamedFields(error: unknown, rename: (field: string) => string): unknown {
  if (!(error instanceof ApiError) || error.fieldErrors.length === 0) return error;
  const fieldErrors = error.fieldErrors.map((fieldError) => {
    const field = rename(fieldError.field);
    const { message } = fieldError;
    return {
      ...fieldError,
      field,
      message: message.startsWith(fieldError.field) ? field + message.slice(fieldError.field.length) : message,
    };
  });
  const renamed = new ApiError(error.code, error.message, fieldErrors, error.headers);
  // What else the error carries (the attempts left of a wrong code, say) goes with it; the
  // renamed field errors stay.
  for (const [key, value] of Object.entries(error.extensions)) if (!(key in renamed.extensions)) renamed.extensions[key] = value;
  return renamed;
}

/**
 * The snake_case name of a camelCase field path (`expectedDetails.dateOfBirth` →
 * `expected_details.date_of_birth`): the spec's names, which REST uses, are the same words as
 * GraphQL's and the engines'.
 */
export function snakeFieldName(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * A 400 about one input field, `message` naming the field first: its field error names the
 * caller's camelCase field (`imageFront is required`), which the REST facade renames to
 * snake_case; the error's own message, never renamed, speaks the spec's name
 * (`image_front is required`), as both APIs have always shown it.
 */
export function fieldValidationError(field: string, code: string, message: string): ApiError {
  const ownMessage = message.startsWith(field) ? snakeFieldName(field) + message.slice(field.length) : message;
  return new ApiError('validation_failed', ownMessage, [{ field, code, message }]);
}

/** The camelCase form of a snake_case name, as a type (`issuing_state` → `issuingState`). */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The fields of an object that are neither null nor undefined: GraphQL's null and an absent REST field both mean "not given". */
export function definedFields<T extends object>(value: T): { [K in keyof T]?: NonNullable<T[K]> } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null && field !== undefined)) as {
    [K in keyof T]?: NonNullable<T[K]>;
  };
}

/**
 * A schema's output with the fields not given left out, one level into nested objects: what the
 * schemas built with notGiven() validate, typed as the optional fields their readers take.
 */
export type GivenFields<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? Flattened<
        { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
          [K in keyof T as undefined extends T[K] ? K : never]?: GivenFields<Exclude<T[K], undefined>>;
        }
      >
    : T;

/** An intersection of object types as one object type, so editors and errors show its fields. */
type Flattened<T> = { [K in keyof T]: T[K] };
