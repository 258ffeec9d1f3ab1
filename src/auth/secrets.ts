import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';

/** Length of derived keys, in bytes (AES-256, HMAC-SHA256). */
const DERIVED_KEY_BYTES = 32;
/** AES-GCM nonce length, in bytes. */
const GCM_IV_BYTES = 12;

/**
 * Keys derived from the master key, one per purpose, so that a key used for one job can never be
 * replayed for another: encrypting secrets at rest, and signing end-user session links.
 */
export interface ServiceSecrets {
  /** Encrypts a UTF-8 string (AES-256-GCM); output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plaintext: string): string;
  /** Decrypts what {@link encrypt} produced; throws when tampered with or under another key. */
  decrypt(sealed: string): string;
  /** The end-user token carried in a session's URL: an HMAC of the session id. */
  sessionLinkToken(sessionId: string): string;
  /** Constant-time check of an end-user token against a session id. */
  verifySessionLinkToken(sessionId: string, token: string): boolean;
  /**
   * Keyed digest (HMAC-SHA256, base64url) of a one-time code bound to the row that stores it, so
   * a leaked table reveals no code and a digest cannot be moved to another row.
   */
  oneTimeCodeDigest(boundTo: string, code: string): string;
}

/** Builds the derived keys from a master key of at least 32 characters. */
export function createServiceSecrets(masterKey: string): ServiceSecrets {
  // Key objects made once: building one per HMAC showed in request profiles.
  const derive = (purpose: string) => createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, 'openkyc', purpose, DERIVED_KEY_BYTES)));
  const encryptionKey = derive('secrets-at-rest/v1');
  const linkKey = derive('session-link/v1');
  const oneTimeCodeKey = derive('one-time-code/v1');
  const link = (sessionId: string) => createHmac('sha256', linkKey).update(sessionId).digest('base64url');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(GCM_IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
    sessionLinkToken: link,
    verifySessionLinkToken(sessionId, token) {
      const expected = Buffer.from(link(sessionId));
      const given = Buffer.from(token);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
    oneTimeCodeDigest(boundTo, code) {
      return createHmac('sha256', oneTimeCodeKey).update(`${boundTo}\0${code}`).digest('base64url');
    },
  };
}

/**
 * The master key: `MASTER_KEY` when set; in embedded mode a key generated once into the data
 * directory's parent (kept beside the data it protects); in memory a per-process key. A server
 * database without MASTER_KEY is refused, because a generated key would not survive a redeploy.
 */
export function resolveMasterKey(config: Config): string {
  if (config.MASTER_KEY) return config.MASTER_KEY;
  if (config.DATABASE_URL)
    throw new ConfigError('Invalid configuration:\n  MASTER_KEY: required (32+ characters) when DATABASE_URL is set');
  if (config.PGLITE_DATA_DIR === 'memory') return randomBytes(32).toString('base64url');
  const path = join(dirname(resolve(config.PGLITE_DATA_DIR)), 'master.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(path, key + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}
