/**
 * SMS delivery for phone one-time codes: one small interface, a development provider that writes
 * the message to the log, and an HTTP gateway provider for production.
 */
import type { Logger } from 'pino';
import { request } from 'undici';
import type { Config } from '../../shared/config.js';

/** A phone number in E.164 (`+447911123456`), already validated with libphonenumber-js. */
export type E164 = string;

/** Sends one SMS; rejects when the message was not accepted for delivery. */
export interface SmsProvider {
  /** Delivers `text` to `to`; resolves once the provider accepted it. */
  send(to: E164, text: string): Promise<void>;
}

/** How long the gateway may take to answer one message, in milliseconds. */
export const SMS_GATEWAY_TIMEOUT_MS = 10_000;

/** Thrown when a provider could not hand a message over; callers turn it into a 503. */
export class SmsDeliveryError extends Error {
  override name = 'SmsDeliveryError';
}

/**
 * Development only: writes the message (code included) to the log at info instead of sending it,
 * so a local setup can complete phone steps without a gateway.
 */
export class DevelopmentSmsProvider implements SmsProvider {
  constructor(private readonly logger: Logger) {}

  async send(to: E164, text: string): Promise<void> {
    this.logger.info({ to, text }, 'development SMS provider: message not sent, logged instead');
  }
}

/** What the HTTP gateway provider needs. */
export interface HttpSmsGatewayOptions {
  /** Endpoint receiving `POST {"to","text"}` as JSON. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when present. */
  token?: string;
  /** Per-message timeout, in milliseconds (default {@link SMS_GATEWAY_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Posts each message as JSON to an SMS gateway; any non-2xx answer, network error or timeout is a failure. */
export class HttpSmsGatewayProvider implements SmsProvider {
  constructor(private readonly options: HttpSmsGatewayOptions) {}

  async send(to: E164, text: string): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let statusCode: number;
    try {
      const response = await request(this.options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ to, text }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? SMS_GATEWAY_TIMEOUT_MS),
      });
      statusCode = response.statusCode;
      // Drain the body so the connection returns to the pool.
      await response.body.dump();
    } catch (error) {
      throw new SmsDeliveryError(`SMS gateway unreachable: ${(error as Error).message}`, { cause: error });
    }
    if (statusCode < 200 || statusCode >= 300) throw new SmsDeliveryError(`SMS gateway answered HTTP ${statusCode}`);
  }
}

/** The provider SMS_PROVIDER selects (config validation guarantees the gateway URL for `http`). */
export function createSmsProvider(
  config: Pick<Config, 'SMS_PROVIDER' | 'SMS_GATEWAY_URL' | 'SMS_GATEWAY_TOKEN'>,
  logger: Logger,
): SmsProvider {
  if (config.SMS_PROVIDER === 'http' && config.SMS_GATEWAY_URL) {
    return new HttpSmsGatewayProvider({
      url: config.SMS_GATEWAY_URL,
      ...(config.SMS_GATEWAY_TOKEN ? { token: config.SMS_GATEWAY_TOKEN } : {}),
    });
  }
  logger.warn('SMS_PROVIDER=log: phone one-time codes are written to the log, not sent; use it in development only');
  return new DevelopmentSmsProvider(logger);
}
