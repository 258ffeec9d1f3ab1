import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** Prefix of Standard Webhooks signing secrets; the rest is the base64 key. */
export const SECRET_PREFIX = 'whsec_';

/** The three Standard Webhooks headers of one attempt. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The HMAC key of a `whsec_…` secret (the base64-decoded part after the prefix), as a KeyObject:
 * Node turns a Buffer key into one on every `createHmac`, which tripled the cost of a signature.
 */
export function signingKeyOf(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'));
}

/**
 * Signs a message per Standard Webhooks: `v1,` + base64 HMAC-SHA256 over
 * `{id}.{timestamp}.{body}`. `timestampSeconds` is Unix seconds, fresh on every attempt.
 */
export function signWebhook(key: KeyObject | Buffer, id: string, timestampSeconds: number, body: string): SignatureHeaders {
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
