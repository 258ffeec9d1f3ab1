import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/**
 * Life of a one-time code: `active` until confirmed (`verified`), replaced by a newer code
 * (`superseded`) or killed by too many wrong attempts (`exhausted`). Expiry is read from
 * `expiresAt`, not stored as a status.
 */
export const PHONE_OTP_STATUSES = ['active', 'superseded', 'verified', 'exhausted'] as const;
/** A one-time code's state. */
export type PhoneOtpStatus = (typeof PHONE_OTP_STATUSES)[number];

/**
 * One SMS one-time code sent for a session's `phone_verification` step. Only a keyed digest of
 * the code is stored; rows also count sends for rate limiting.
 */
export const PhoneOtpSchema = defineEntity({
  name: 'PhoneOtp',
  tableName: 'phone_otp',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** The session's environment: rate limits count per environment. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sessionId: p.uuid(),
    /** Emptied: numbers from before personal data was sealed, until the service's start replaces them by their digest. */
    phone: p.text().nullable(),
    /** Keyed digest of the E.164 number the code was sent to (src/auth/personal-data.ts `phoneDigest`); never the number. Null only on rows from before digests, until the service's start fills it. */
    phoneDigest: p.text().nullable(),
    /** `ServiceSecrets.oneTimeCodeDigest(id, code)`; never the code itself. */
    codeDigest: p.text(),
    /** Wrong confirmations so far. */
    attempts: p.integer(),
    status: p.enum(PHONE_OTP_STATUSES),
    createdAt: p.datetime(),
    /** After this instant the code is refused. */
    expiresAt: p.datetime(),
    /** When the code was confirmed, exhausted or superseded. */
    closedAt: p.datetime().nullable(),
  },
});
/** A phone one-time code row. */
export type PhoneOtp = InferEntity<typeof PhoneOtpSchema>;
