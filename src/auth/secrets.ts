import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { ConfigError } from '../shared/config.js';
import { DATA_FILE_MODE, ensurePrivateDirectory } from '../db/private-files.js';

/** Length of derived keys and data keys, in bytes (AES-256, HMAC-SHA256). */
const KEY_BYTES = 32;
/** AES-GCM nonce length, in bytes. */
const GCM_IV_BYTES = 12;
/** AES-GCM tag length, in bytes. */
const GCM_TAG_BYTES = 16;
/** Prefix of envelope-sealed values (a random data key, wrapped by the master key, stored with each value). */
const ENVELOPE_PREFIX = 'v2.';
/** Binds a wrapped data key to its role, so a wrapped key is never accepted as a sealed value. */
const WRAP_AAD = Buffer.from('openkyc data key');
/** File name of the generated master key inside the embedded data directory. */
export const MASTER_KEY_FILE = 'master.key';

/**
 * Keys derived from the master key, one per purpose, so that a key used for one job can never be
 * replayed for another: wrapping the data keys of secrets at rest, and signing end-user session
 * links and one-time codes.
 */
export interface ServiceSecrets {
  /**
   * Seals a UTF-8 string with envelope encryption: an AES-256-GCM data key (drawn afresh every
   * DATA_KEY_USES values or DATA_KEY_LIFETIME_MS) encrypts it with a random nonce and the master key
   * wraps that data key, stored with the value, so a master key rotation rewrites 60 bytes per value.
   * Output `v2.<wrapped key>.<iv>.<tag>.<ciphertext>` in base64url.
   */
  encrypt(plaintext: string): string;
  /** Opens what {@link encrypt} (or the older direct `v1.` format) produced; throws when tampered with or under another key. */
  decrypt(sealed: string): string;
  /** True when `value` is in the sealed format (not necessarily under this key). */
  isSealed(value: string): boolean;
  /** The end-user token carried in a session's URL: an HMAC of the session id. */
  sessionLinkToken(sessionId: string): string;
  /** Constant-time check of an end-user token against a session id. */
  verifySessionLinkToken(sessionId: string, token: string): boolean;
  /**
   * Keyed digest (HMAC-SHA256, base64url) of a one-time code bound to the row that stores it, so
   * a leaked table reveals no code and a digest cannot be moved to another row.
   */
  oneTimeCodeDigest(boundTo: string, code: string): string;
  /** Signature (HMAC-SHA256, base64url) of a short-lived evidence URL's parameters, with a key of its own. */
  evidenceUrlSignature(payload: string): string;
  /** Signature (HMAC-SHA256, base64url) of a capture nonce's binding (id, session, step, expiry), with a key of its own. */
  captureNonceSignature(payload: string): string;
  /**
   * Keyed digest (HMAC-SHA256, base64url) of the person an AML screening screened, with a key of
   * its own: remembers a false positive for that person without storing whom.
   */
  amlSubjectDigest(payload: string): string;
}

/** The keys one master key yields. */
interface DerivedKeys {
  /** Wraps data keys (envelope format). */
  wrapping: KeyObject;
  /** Encrypted values directly in the first format (`v1.`); still read, never written. */
  legacy: KeyObject;
  link: KeyObject;
  oneTimeCode: KeyObject;
  evidenceUrl: KeyObject;
  captureNonce: KeyObject;
  amlSubject: KeyObject;
}

/** Derives every purpose key from a master key. Key objects are made once: one per HMAC showed in request profiles. */
function deriveKeys(masterKey: string): DerivedKeys {
  const derive = (purpose: string) => createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, 'openkyc', purpose, KEY_BYTES)));
  return {
    wrapping: derive('key-wrapping/v1'),
    legacy: derive('secrets-at-rest/v1'),
    link: derive('session-link/v1'),
    oneTimeCode: derive('one-time-code/v1'),
    evidenceUrl: derive('evidence-url/v1'),
    captureNonce: derive('capture-nonce/v1'),
    amlSubject: derive('aml-subject/v1'),
  };
}

/** AES-256-GCM: `[iv, tag, ciphertext]`. */
function seal(key: KeyObject | Buffer, plaintext: Buffer, aad?: Buffer): [Buffer, Buffer, Buffer] {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext];
}

/** Inverse of {@link seal}; throws on any tampering or a wrong key. */
function open(key: KeyObject | Buffer, iv: Buffer, tag: Buffer, ciphertext: Buffer, aad?: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

/** Wraps a data key under the wrapping key: base64url of iv ‖ tag ‖ encrypted key. */
function wrapDataKey(wrapping: KeyObject, dataKey: Buffer): string {
  return Buffer.concat(seal(wrapping, dataKey, WRAP_AAD)).toString('base64url');
}

/** Unwraps what {@link wrapDataKey} produced. */
function unwrapDataKey(wrapping: KeyObject, wrapped: string): Buffer {
  const bytes = Buffer.from(wrapped, 'base64url');
  if (bytes.length !== GCM_IV_BYTES + GCM_TAG_BYTES + KEY_BYTES) throw new Error('Malformed wrapped data key');
  return open(
    wrapping,
    bytes.subarray(0, GCM_IV_BYTES),
    bytes.subarray(GCM_IV_BYTES, GCM_IV_BYTES + GCM_TAG_BYTES),
    bytes.subarray(GCM_IV_BYTES + GCM_TAG_BYTES),
    WRAP_AAD,
  );
}

/** Parts of a sealed value, whichever format. */
type ParsedSealed =
  | { format: 'v2'; wrapped: string; iv: Buffer; tag: Buffer; ciphertext: Buffer }
  | { format: 'v1'; iv: Buffer; tag: Buffer; ciphertext: Buffer };

/** Splits a sealed value; throws on anything else. */
function parseSealed(sealed: string): ParsedSealed {
  const parts = sealed.split('.');
  const bytes = (part: string | undefined) => {
    if (part === undefined) throw new Error('Unknown sealed secret format');
    return Buffer.from(part, 'base64url');
  };
  if (parts[0] === 'v2' && parts.length === 5)
    return { format: 'v2', wrapped: parts[1]!, iv: bytes(parts[2]), tag: bytes(parts[3]), ciphertext: bytes(parts[4]) };
  if (parts[0] === 'v1' && parts.length === 4)
    return { format: 'v1', iv: bytes(parts[1]), tag: bytes(parts[2]), ciphertext: bytes(parts[3]) };
  throw new Error('Unknown sealed secret format');
}

/**
 * Values one data key seals before a fresh one is drawn: far under AES-GCM's 2^32 random nonces
 * per key, and enough that the outbox snapshots and webhook bodies sealed on every event cost one
 * AES-GCM pass each, not two and a key draw (issue 29: a fifth of a create's CPU went there).
 */
export const DATA_KEY_USES = 1 << 16;
/** Longest a data key is used, in milliseconds, however few values it sealed. */
export const DATA_KEY_LIFETIME_MS = 60_000;

/** The data key values are sealed with now, and its wrapped form. */
interface CurrentDataKey {
  /** A KeyObject: Node converts a Buffer key on every cipher, which tripled an AES-GCM pass on a webhook body. */
  key: KeyObject;
  wrapped: string;
  uses: number;
  until: number;
}

/** Seals with a data key wrapped by `wrapping`, drawn afresh every DATA_KEY_USES values or DATA_KEY_LIFETIME_MS. */
function envelopeSealer(wrapping: KeyObject): (plaintext: string) => string {
  let current: CurrentDataKey | null = null;
  return (plaintext) => {
    const now = Date.now();
    if (!current || current.uses >= DATA_KEY_USES || now >= current.until) {
      const key = randomBytes(KEY_BYTES);
      current = { key: createSecretKey(key), wrapped: wrapDataKey(wrapping, key), uses: 0, until: now + DATA_KEY_LIFETIME_MS };
    }
    current.uses += 1;
    const [iv, tag, ciphertext] = seal(current.key, Buffer.from(plaintext, 'utf8'));
    return (
      ENVELOPE_PREFIX + [current.wrapped, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.')
    );
  };
}

/** Seals with a fresh data key wrapped by `wrapping` (key rotation, which re-seals values one at a time). */
function envelopeSeal(wrapping: KeyObject, plaintext: string): string {
  return envelopeSealer(wrapping)(plaintext);
}

/** Unwrapped data keys remembered per master key: one data key seals up to DATA_KEY_USES values, so reading them back unwraps it once, not per value. */
const UNWRAPPED_KEYS_KEPT = 256;

/** Opens a sealed value of either format with the keys of one master key (`unwrapped`: data keys already opened, by wrapped form). */
function openSealed(keys: DerivedKeys, sealed: string, unwrapped?: Map<string, KeyObject>): string {
  const parsed = parseSealed(sealed);
  let key: Buffer | KeyObject = keys.legacy;
  if (parsed.format === 'v2') {
    let dataKey = unwrapped?.get(parsed.wrapped);
    if (!dataKey) {
      dataKey = createSecretKey(unwrapDataKey(keys.wrapping, parsed.wrapped));
      if (unwrapped) {
        if (unwrapped.size >= UNWRAPPED_KEYS_KEPT) unwrapped.delete(unwrapped.keys().next().value!);
        unwrapped.set(parsed.wrapped, dataKey);
      }
    }
    key = dataKey;
  }
  return open(key, parsed.iv, parsed.tag, parsed.ciphertext).toString('utf8');
}

/** Builds the derived keys from a master key of at least 32 characters. */
export function createServiceSecrets(masterKey: string): ServiceSecrets {
  const keys = deriveKeys(masterKey);
  const link = (sessionId: string) => createHmac('sha256', keys.link).update(sessionId).digest('base64url');
  const encrypt = envelopeSealer(keys.wrapping);
  const unwrapped = new Map<string, KeyObject>();
  return {
    encrypt,
    // A tampered ciphertext still fails: the data key only opens what its tag authenticates.
    decrypt: (sealed) => openSealed(keys, sealed, unwrapped),
    isSealed: (value) => value.startsWith(ENVELOPE_PREFIX) || value.startsWith('v1.'),
    sessionLinkToken: link,
    verifySessionLinkToken(sessionId, token) {
      const expected = Buffer.from(link(sessionId));
      const given = Buffer.from(token);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
    oneTimeCodeDigest(boundTo, code) {
      return createHmac('sha256', keys.oneTimeCode).update(`${boundTo}\0${code}`).digest('base64url');
    },
    evidenceUrlSignature(payload) {
      return createHmac('sha256', keys.evidenceUrl).update(payload).digest('base64url');
    },
    captureNonceSignature(payload) {
      return createHmac('sha256', keys.captureNonce).update(payload).digest('base64url');
    },
    amlSubjectDigest(payload) {
      return createHmac('sha256', keys.amlSubject).update(payload).digest('base64url');
    },
  };
}

/**
 * Re-wraps sealed values from one master key to another for a key rotation: the data key of an
 * envelope value is unwrapped and wrapped again (its ciphertext is kept), a value in the older
 * direct format is opened and sealed anew. Throws when a value is not under `fromMasterKey`.
 */
export function createRewrapper(fromMasterKey: string, toMasterKey: string): (sealed: string) => string {
  const from = deriveKeys(fromMasterKey);
  const to = deriveKeys(toMasterKey);
  return (sealed) => {
    const parsed = parseSealed(sealed);
    if (parsed.format === 'v1') return envelopeSeal(to.wrapping, openSealed(from, sealed));
    const wrapped = wrapDataKey(to.wrapping, unwrapDataKey(from.wrapping, parsed.wrapped));
    return (
      ENVELOPE_PREFIX +
      [wrapped, parsed.iv.toString('base64url'), parsed.tag.toString('base64url'), parsed.ciphertext.toString('base64url')].join('.')
    );
  };
}

/** Where the embedded mode keeps its generated master key: inside the data directory, null when there is none. */
export function masterKeyPathOf(config: Config): string | null {
  if (config.MASTER_KEY || config.DATABASE_URL || config.PGLITE_DATA_DIR === 'memory') return null;
  return join(resolve(config.PGLITE_DATA_DIR), MASTER_KEY_FILE);
}

/** Refuses a key file that group or others may read or write: a copied key decrypts every secret. */
function assertPrivateKeyFile(path: string): void {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new ConfigError(
      `Refusing to use the master key ${path}: its mode is ${mode.toString(8).padStart(4, '0')}, readable or writable by other users. ` +
        `Check who could have copied it, then run: chmod 600 ${path}`,
    );
}

/** Generates a new random master key (43 base64url characters). */
export function generateMasterKey(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

/**
 * Writes a master key file atomically with mode 0600: a temporary file beside it, then a rename,
 * so a crash leaves either the old key or the new one, never half of either.
 */
export function writeMasterKeyFile(path: string, key: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, key + '\n', { mode: DATA_FILE_MODE, flag: 'wx' });
  renameSync(temporary, path);
}

/**
 * The master key: `MASTER_KEY` when set; in embedded mode a key generated once into the data
 * directory (`master.key`, 0600, in the 0700 directory it protects); in memory a per-process key.
 * A server database without MASTER_KEY is refused, because a generated key would not survive a
 * redeploy. A key file others may read is refused (the message names the `chmod`). Installations
 * from before kept the key in the data directory's PARENT, where a planted file would be adopted
 * and sibling data directories shared it; such a key is moved inside, with a log line, but only
 * for a data directory that already holds a database (a new one never adopts a stray key).
 */
export function resolveMasterKey(config: Config, logger?: Pick<Logger, 'warn'>): string {
  if (config.MASTER_KEY) return config.MASTER_KEY;
  if (config.DATABASE_URL)
    throw new ConfigError('Invalid configuration:\n  MASTER_KEY: required (32+ characters) when DATABASE_URL is set');
  const path = masterKeyPathOf(config);
  if (!path) return generateMasterKey();
  const dataDir = dirname(path);
  ensurePrivateDirectory(dataDir);
  if (!existsSync(path)) {
    const legacyPath = join(dirname(dataDir), MASTER_KEY_FILE);
    if (existsSync(legacyPath) && existsSync(join(dataDir, 'PG_VERSION'))) {
      assertPrivateKeyFile(legacyPath);
      renameSync(legacyPath, path);
      logger?.warn({ from: legacyPath, to: path }, 'master key moved into the data directory (it used to live in its parent)');
    } else writeMasterKeyFile(path, generateMasterKey());
  }
  assertPrivateKeyFile(path);
  return readFileSync(path, 'utf8').trim();
}
