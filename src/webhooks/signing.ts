import { createHmac } from 'node:crypto';

/** Prefix of Standard Webhooks signing secrets; the rest is the base64 key. */
export const SECRET_PREFIX = 'whsec_';

/** The three Standard Webhooks headers of one attempt. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The HMAC key of a `whsec_…` secret: the base64-decoded part after the prefix. */
export function signingKeyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * Signs a message per Standard Webhooks: `v1,` + base64 HMAC-SHA256 over
 * `{id}.{timestamp}.{body}`. `timestampSeconds` is Unix seconds, fresh on every attempt.
 */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): SignatureHeaders {
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
