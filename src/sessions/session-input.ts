import { z } from 'zod';
import { SUPPORTED_LANGUAGES } from '../tenants/flow-settings.js';
import { CountryCode, IsoDate, PhoneNumber } from './node-inputs.js';

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

/** Body of `POST /v1/sessions` (snake_case, as the spec writes it). */
export const CreateSessionInputSchema = z
  .object({
    workflow_id: z.string().trim().min(1, 'workflow_id is required').max(200),
    vendor_data: z.string().trim().min(1, 'vendor_data is required').max(VENDOR_DATA_MAX_LENGTH),
    callback: HttpUrl.optional(),
    /** Where the hosted flow sends the browser at the end; its origin must be allowed in the flow settings. */
    redirect_url: z.string().max(CALLBACK_MAX_LENGTH).optional(),
    /** Language of the hosted flow; otherwise `?lang=`, then the browser's, then the tenant's default. */
    language: z.enum(SUPPORTED_LANGUAGES).optional(),
    metadata: MetadataObject.optional(),
    contact_details: z
      .object({ email: z.email().max(320).optional(), phone: PhoneNumber.optional() })
      .strict()
      .optional(),
    expected_details: z
      .object({
        first_name: z.string().trim().min(1).max(200).optional(),
        last_name: z.string().trim().min(1).max(200).optional(),
        date_of_birth: IsoDate.optional(),
        country: CountryCode.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Validated create input. */
export type CreateSessionInput = z.output<typeof CreateSessionInputSchema>;
