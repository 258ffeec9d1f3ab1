/**
 * SMS one-time codes of `phone_verification`: issue (rate limited, stored as a keyed digest, sent
 * after commit) and check (expiry, attempt limit). Each step runs in its own short transaction on
 * its own EntityManager, so it must be called with no other transaction open (PGlite: one
 * connection; a second one would wait forever).
 *
 * Raw SQL: (b) transaction-scoped advisory locks (`pg_advisory_xact_lock`) and `count(distinct
 * …)`/`bool_or` aggregates for the send caps.
 */
import { randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PhoneOtpSchema, type PhoneOtp } from '../../../entities/phone-otp.entity.js';
import { SessionSchema } from '../../../entities/session.entity.js';
import { phoneDigest } from '../../auth/personal-data.js';
import type { ServiceSecrets } from '../../auth/secrets.js';
import { ApiError, validationError } from '../../shared/errors.js';
import { rateLimitedError } from '../../shared/rate-limited.js';
import type { E164, SmsProvider } from './sms.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** How long a code stays valid, in seconds (10 minutes). */
export const OTP_TTL_SECONDS = 10 * 60;
/** Wrong confirmations a code survives; the last one kills it and fails the step. */
export const OTP_MAX_ATTEMPTS = 5;
/** Digits in a code. */
export const OTP_DIGITS = 6;

/** Send limits, checked before every new code. Windows and intervals in seconds. */
export const OTP_RATE_LIMITS = {
  /** Shortest wait between two codes of one session. */
  sessionMinIntervalSeconds: 30,
  /** Codes one session may get per window. */
  sessionMaxPerWindow: 3,
  /** Window of `sessionMaxPerWindow`. */
  sessionWindowSeconds: 10 * 60,
  /** Codes one number may get per window across every session and tenant (SMS pumping, harassment). */
  phoneMaxPerWindow: 5,
  /** Window of `phoneMaxPerWindow`. */
  phoneWindowSeconds: 60 * 60,
} as const;

/** What the code service needs. */
export interface OtpDependencies {
  /** A fresh EntityManager per call; used for one short transaction. */
  em(): EntityManager;
  /** Derives the key the code digests are made with. */
  secrets: ServiceSecrets;
  /** Delivers the message. */
  sms: SmsProvider;
  /** Records gateway failures (never the code). */
  logger?: Logger;
  /** Distinct numbers a session and a tenant may send to (SMS pumping); defaults below. */
  numberLimits?: OtpNumberLimits;
}

/** Caps on distinct destination numbers per hour: the end user picks the number, so pumping is one loop away. */
export interface OtpNumberLimits {
  /** Distinct numbers one session may send codes to per `phoneWindowSeconds`. */
  perSession: number;
  /** Distinct numbers one tenant may send codes to per `phoneWindowSeconds` (live; sandbox sends nothing). */
  perTenant: number;
}

/** The defaults of OTP_MAX_NUMBERS_PER_SESSION and OTP_MAX_NUMBERS_PER_TENANT_HOUR. */
export const DEFAULT_OTP_NUMBER_LIMITS: OtpNumberLimits = { perSession: 3, perTenant: 500 };

/** Who a code is for. */
export interface OtpRecipient {
  tenantId: string;
  sessionId: string;
  /** E.164. */
  phone: E164;
}

/** Outcome of a confirmation that ends the step (a wrong code below the limit throws instead). */
export type OtpCheck = { outcome: 'verified' } | { outcome: 'exhausted' };

/** Six random digits from the CSPRNG, zero-padded. */
export function generateCode(): string {
  return randomInt(0, 10 ** OTP_DIGITS)
    .toString()
    .padStart(OTP_DIGITS, '0');
}

/** The SMS text; short enough for one GSM-7 segment. */
export function otpMessage(code: string): string {
  return `Your verification code is ${code}. It expires in ${OTP_TTL_SECONDS / 60} minutes. Never share it.`;
}

/** 429 with `Retry-After` (seconds) and the draft RateLimit headers naming the limit that fired. */
function rateLimited(retryAfterSeconds: number, policy: string, quota: number, windowSeconds: number, message: string): ApiError {
  return rateLimitedError({ name: policy, quota, windowSeconds }, retryAfterSeconds, message);
}

/**
 * Throws `rate_limited` when a number new to the session (or to the tenant) would exceed its cap of
 * distinct numbers in the last `phoneWindowSeconds`; numbers already used in the window pass.
 */
async function assertWithinNumberLimits(
  tx: EntityManager,
  recipient: OtpRecipient,
  digest: string,
  now: Date,
  caps: OtpNumberLimits,
): Promise<void> {
  const windowSeconds = OTP_RATE_LIMITS.phoneWindowSeconds;
  const since = new Date(now.getTime() - windowSeconds * 1000);
  const scopes = [
    { column: 'session_id', id: recipient.sessionId, cap: caps.perSession, policy: 'otp_session_numbers', what: 'this session' },
    { column: 'tenant_id', id: recipient.tenantId, cap: caps.perTenant, policy: 'otp_tenant_numbers', what: 'this tenant' },
  ] as const;
  for (const scope of scopes) {
    const [row] = await tx.execute<{ numbers: string; known: boolean | null; first_at: Date | null }[]>(
      `select count(distinct phone_digest) as numbers, bool_or(phone_digest = ?) as known, min(created_at) as first_at
         from phone_otp where ${scope.column} = ? and created_at > ?`,
      [digest, scope.id, since],
    );
    if (!row || row.known || Number(row.numbers) < scope.cap) continue;
    const firstAt = row.first_at ? new Date(row.first_at).getTime() : now.getTime();
    throw rateLimited(
      (firstAt + windowSeconds * 1000 - now.getTime()) / 1000,
      scope.policy,
      scope.cap,
      windowSeconds,
      `Codes went to ${scope.cap} different numbers for ${scope.what} within the hour; use one of them or wait.`,
    );
  }
}

/** Throws `rate_limited` when a new code for this session and number would exceed a limit. */
async function assertWithinSendLimits(tx: EntityManager, recipient: OtpRecipient, digest: string, now: Date): Promise<void> {
  const limits = OTP_RATE_LIMITS;
  const nowMs = now.getTime();
  const sessionRows = await tx.find(
    PhoneOtpSchema,
    { sessionId: recipient.sessionId, createdAt: { $gt: new Date(nowMs - limits.sessionWindowSeconds * 1000) } },
    { orderBy: { createdAt: 'asc' }, fields: ['createdAt'] },
  );
  const latest = sessionRows.at(-1);
  if (latest) {
    const waitSeconds = limits.sessionMinIntervalSeconds - (nowMs - latest.createdAt.getTime()) / 1000;
    if (waitSeconds > 0)
      throw rateLimited(waitSeconds, 'otp_interval', 1, limits.sessionMinIntervalSeconds, 'A code was sent moments ago.');
  }
  if (sessionRows.length >= limits.sessionMaxPerWindow) {
    const oldest = sessionRows[sessionRows.length - limits.sessionMaxPerWindow]!;
    const waitSeconds = (oldest.createdAt.getTime() + limits.sessionWindowSeconds * 1000 - nowMs) / 1000;
    throw rateLimited(
      waitSeconds,
      'otp_session',
      limits.sessionMaxPerWindow,
      limits.sessionWindowSeconds,
      'Too many codes for this session.',
    );
  }
  const phoneRows = await tx.find(
    PhoneOtpSchema,
    { phoneDigest: digest, createdAt: { $gt: new Date(nowMs - limits.phoneWindowSeconds * 1000) } },
    { orderBy: { createdAt: 'asc' }, fields: ['createdAt'] },
  );
  if (phoneRows.length >= limits.phoneMaxPerWindow) {
    const oldest = phoneRows[phoneRows.length - limits.phoneMaxPerWindow]!;
    const waitSeconds = (oldest.createdAt.getTime() + limits.phoneWindowSeconds * 1000 - nowMs) / 1000;
    throw rateLimited(waitSeconds, 'otp_phone', limits.phoneMaxPerWindow, limits.phoneWindowSeconds, 'Too many codes for this number.');
  }
}

/**
 * Country calling codes of networks no person's handset is on by country: Inmarsat (870),
 * international premium rate (979), global networks and satellite phones (881 Iridium and
 * Globalstar, 882, 883). A code sent there earns its carrier, not a verification (SMS pumping).
 */
const NON_GEOGRAPHIC_CALLING_CODES = new Set(['870', '878', '881', '882', '883', '888', '979']);
/** Line types a code is never sent to: the sender pays the receiver's premium (audit N10, Twilio's geo-permissions). */
const UNSENDABLE_LINE_TYPES = new Set(['PREMIUM_RATE', 'SHARED_COST']);

/** Refuses, before anything is stored or sent, a number whose SMS would pay its owner: premium-rate lines and satellite or global networks. */
export function assertSendable(phone: string): void {
  const parsed = parsePhoneNumberFromString(phone);
  const callingCode = parsed?.countryCallingCode ?? '';
  const type = parsed?.getType();
  if (NON_GEOGRAPHIC_CALLING_CODES.has(callingCode) || (type && UNSENDABLE_LINE_TYPES.has(type)))
    throw validationError(
      [
        {
          field: 'phone',
          code: 'unsendable_number',
          message: 'Codes are not sent to premium-rate, shared-cost, satellite or global-network numbers; use a mobile number.',
        },
      ],
      'This number cannot receive verification codes.',
    );
}

/**
 * Issues a code: checks the send limits, supersedes the session's previous code, stores the new
 * one as a digest, commits, then sends the SMS. When the provider fails the row is removed (it
 * neither works nor counts against the limits) and the caller gets 503 `service_unavailable`.
 */
export async function issueOtp(dependencies: OtpDependencies, recipient: OtpRecipient): Promise<{ expiresAt: Date }> {
  assertSendable(recipient.phone);
  const code = generateCode();
  const id = randomUUID();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + OTP_TTL_SECONDS * 1000);
  await dependencies.em().transactional(async (tx) => {
    // The number is stored and compared only as its keyed digest (audit N11).
    const digest = await phoneDigest(tx, dependencies.secrets, recipient.phone);
    // Serialises requests of one session (row lock) and of one number (advisory lock), so
    // concurrent requests cannot all pass the limit check.
    await tx.findOneOrFail(SessionSchema, { id: recipient.sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, fields: ['id'] });
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`phone_otp:${digest}`], 'all');
    // And of one tenant, so concurrent sessions cannot all pass the tenant's distinct-number cap.
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`phone_otp_tenant:${recipient.tenantId}`], 'all');
    // The distinct-number caps first: a new number past them is refused whatever the interval.
    await assertWithinNumberLimits(tx, recipient, digest, now, dependencies.numberLimits ?? DEFAULT_OTP_NUMBER_LIMITS);
    await assertWithinSendLimits(tx, recipient, digest, now);
    await tx.nativeUpdate(PhoneOtpSchema, { sessionId: recipient.sessionId, status: 'active' }, { status: 'superseded', closedAt: now });
    tx.create(PhoneOtpSchema, {
      id,
      tenantId: recipient.tenantId,
      // Only the live engine sends codes, and it runs only for live sessions (sandbox sessions take magic codes).
      environment: 'live',
      sessionId: recipient.sessionId,
      phone: null,
      phoneDigest: digest,
      codeDigest: dependencies.secrets.oneTimeCodeDigest(id, code),
      attempts: 0,
      status: 'active',
      createdAt: now,
      expiresAt,
      closedAt: null,
    });
  });
  try {
    await dependencies.sms.send(recipient.phone, otpMessage(code));
  } catch (error) {
    dependencies.logger?.warn({ err: error, sessionId: recipient.sessionId }, 'SMS provider failed to send a one-time code');
    await dependencies.em().nativeDelete(PhoneOtpSchema, { id });
    throw new ApiError('service_unavailable', 'The code could not be sent; try again shortly.');
  }
  return { expiresAt };
}

/** Constant-time comparison of a typed code with a row's digest. */
function codeMatches(secrets: ServiceSecrets, row: PhoneOtp, code: string): boolean {
  const expected = Buffer.from(row.codeDigest);
  const given = Buffer.from(secrets.oneTimeCodeDigest(row.id, code));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** What one confirmation did to the stored code, decided inside the transaction. */
type Attempt = OtpCheck | { outcome: 'none' } | { outcome: 'expired' } | { outcome: 'mismatch'; attemptsRemaining: number };

/**
 * Checks a typed code against the session's live code for that number. The right code →
 * `verified`; the wrong code on the last allowed attempt → `exhausted` (the step fails). Below
 * the limit a wrong code throws 422 `otp_invalid` with the attempts left (the step stays
 * pending); an expired code throws 422 `otp_expired`; no code for the number throws 400.
 * The attempt is committed before anything is thrown.
 */
export async function checkOtp(
  dependencies: Pick<OtpDependencies, 'em' | 'secrets'>,
  recipient: OtpRecipient,
  code: string,
): Promise<OtpCheck> {
  const now = new Date();
  const attempt = await dependencies.em().transactional(async (tx): Promise<Attempt> => {
    const row = await tx.findOne(
      PhoneOtpSchema,
      { sessionId: recipient.sessionId, status: 'active' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!row || row.phoneDigest !== (await phoneDigest(tx, dependencies.secrets, recipient.phone))) return { outcome: 'none' };
    if (row.expiresAt.getTime() <= now.getTime()) return { outcome: 'expired' };
    if (codeMatches(dependencies.secrets, row, code)) {
      row.status = 'verified';
      row.closedAt = now;
      return { outcome: 'verified' };
    }
    row.attempts += 1;
    if (row.attempts >= OTP_MAX_ATTEMPTS) {
      row.status = 'exhausted';
      row.closedAt = now;
      return { outcome: 'exhausted' };
    }
    return { outcome: 'mismatch', attemptsRemaining: OTP_MAX_ATTEMPTS - row.attempts };
  });
  switch (attempt.outcome) {
    case 'verified':
    case 'exhausted':
      return attempt;
    case 'none':
      throw validationError([
        { field: 'code', code: 'not_requested', message: 'no code is pending for this number; request one first (requestPhoneCode)' },
      ]);
    case 'expired':
      throw new ApiError('otp_expired', 'The code has expired; request a new one.');
    case 'mismatch': {
      const error = new ApiError('otp_invalid', `Wrong code; ${attempt.attemptsRemaining} attempt(s) left.`, [
        { field: 'code', code: 'mismatch', message: `wrong code; ${attempt.attemptsRemaining} attempt(s) left` },
      ]);
      error.extensions.attemptsRemaining = attempt.attemptsRemaining;
      throw error;
    }
  }
}
