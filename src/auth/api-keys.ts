import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';

/** Characters of the random part of a key: 32 bytes in base64url. */
const KEY_SECRET_BYTES = 32;
/** Length of the random part kept in the visible prefix. */
const VISIBLE_SECRET_CHARS = 8;

/** A freshly issued key: `raw` is shown once and never stored. */
export interface IssuedKey {
  raw: string;
  prefix: string;
  hash: string;
}

/** Generates a key of the form `idv_<env>_<random>` with its visible prefix and hash. */
export function generateApiKey(environment: ApiKeyEnvironment): IssuedKey {
  const secret = randomBytes(KEY_SECRET_BYTES).toString('base64url');
  const raw = `idv_${environment}_${secret}`;
  return { raw, prefix: `idv_${environment}_${secret.slice(0, VISIBLE_SECRET_CHARS)}`, hash: hashApiKey(raw) };
}

/**
 * Hex SHA-256 of a key; keys have 256 bits of entropy, so a fast hash is the right tool. The
 * one-shot `hash` runs on every request: half the cost of a `Hash` object (issue 29 profiles).
 */
export function hashApiKey(raw: string): string {
  return hash('sha256', raw, 'hex');
}

/** Generates a Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
