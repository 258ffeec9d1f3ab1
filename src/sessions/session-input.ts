import { z } from 'zod';
import type { ExpectedDetails } from '../../entities/session.entity.js';
import { CountryCode, definedFields, IsoDate, notGiven, PhoneNumber, type Unchecked } from '../shared/input-rules.js';
import { SUPPORTED_LANGUAGES } from '../tenants/flow-settings.service.js';

/** Largest `metadata` object, in bytes of its JSON. */
export const METADATA_MAX_BYTES = 16 * 1024;
/** Longest `vendor_data`, in characters. */
export const VENDOR_DATA_MAX_LENGTH = 256;
/** Longest `callback` URL, in characters. */
export const CALLBACK_MAX_LENGTH = 2048;

/** A JSON object (not an array, not null) no larger than METADATA_MAX_BYTES once serialised. */
export const MetadataObject = z
  .record(z.string(), z.unknown())
  .refine(
    (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
    `must serialise to at most ${METADATA_MAX_BYTES} bytes`,
  );

/** An absolute http(s) URL. */
export const HttpUrl = z
  .string()
  .max(CALLBACK_MAX_LENGTH)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/**
 * The rule of each create field, once: the service's camelCase schema and the REST body's
 * snake_case one (src/rest/routes/sessions.ts) are both built from these.
 */
export const CREATE_SESSION_FIELDS = {
  workflowId: z.string().trim().min(1, 'must not be empty').max(200),
  vendorData: z.string().trim().min(1, 'must not be empty').max(VENDOR_DATA_MAX_LENGTH),
  callback: HttpUrl,
  /** Where the hosted flow sends the browser at the end; its origin must be allowed in the flow settings. */
  redirectUrl: z.string().max(CALLBACK_MAX_LENGTH),
  /** Language of the hosted flow; otherwise `?lang=`, then the browser's, then the tenant's default. */
  language: z.enum(SUPPORTED_LANGUAGES),
  metadata: MetadataObject,
  email: z.email().max(320),
  phone: PhoneNumber,
  name: z.string().trim().min(1).max(200),
  dateOfBirth: IsoDate,
  country: CountryCode,
} as const;

const fields = CREATE_SESSION_FIELDS;

/** Input of createSession (GraphQL `CreateSessionInput`, and `POST /v1/sessions` once mapped), validated by the service. */
export const CreateSessionInputSchema = z
  .object({
    workflowId: fields.workflowId,
    vendorData: fields.vendorData,
    callback: notGiven(fields.callback),
    redirectUrl: notGiven(fields.redirectUrl),
    language: notGiven(fields.language),
    metadata: notGiven(fields.metadata),
    contactDetails: notGiven(z.object({ email: notGiven(fields.email), phone: notGiven(fields.phone) }).strict()),
    expectedDetails: notGiven(
      z
        .object({
          firstName: notGiven(fields.name),
          lastName: notGiven(fields.name),
          dateOfBirth: notGiven(fields.dateOfBirth),
          country: notGiven(fields.country),
        })
        .strict(),
    ),
  })
  .strict();

/** What createSession accepts before validation: GraphQL's `CreateSessionInput` as is. */
export type CreateSessionInput = Unchecked<z.input<typeof CreateSessionInputSchema>>;
/** Validated create input: nulls dropped, text trimmed, phone in E.164. */
export type ValidCreateSessionInput = z.output<typeof CreateSessionInputSchema>;

/** The stored form of the expected details (the `expected_details` jsonb column keeps the spec's names), without empty fields. */
export function storedExpectedDetails(expected: ValidCreateSessionInput['expectedDetails']): ExpectedDetails | null {
  if (!expected) return null;
  return definedFields({
    first_name: expected.firstName,
    last_name: expected.lastName,
    date_of_birth: expected.dateOfBirth,
    country: expected.country,
  });
}
