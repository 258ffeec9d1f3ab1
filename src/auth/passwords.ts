import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Node's argon2 (node:crypto, Node ≥ 24.7, which the project's own runtime is), bound on first
 * use so that the rest of the service still starts on an older Node and only sign-in says why.
 */
function argon2Async(algorithm: 'argon2id', parameters: Parameters<typeof argon2>[1]): Promise<Buffer> {
  if (typeof argon2 !== 'function')
    throw new Error(`Operator passwords need node:crypto argon2 (Node 24.7 or later); this is Node ${process.versions.node}.`);
  return promisify(argon2)(algorithm, parameters);
}

/**
 * argon2id cost, OWASP's first recommended setting: 19 MiB of memory, 2 passes, 1 lane. About
 * 0.1 s per hash on this project's machines: cheap for one sign-in, ruinous for guessing.
 */
export const ARGON2_PARAMETERS = { memoryKiB: 19_456, passes: 2, parallelism: 1 } as const;
/** Bytes of random salt per password. */
const SALT_BYTES = 16;
/** Bytes of the derived hash. */
const HASH_BYTES = 32;
/** Shortest password accepted for an operator, in characters (NIST SP 800-63B asks at least 8; we ask more). */
export const PASSWORD_MIN_LENGTH = 12;
/** Longest password accepted, in characters: bounds the work a sign-in request can cause. */
export const PASSWORD_MAX_LENGTH = 256;

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Derives the argon2id hash with Node's own implementation (node:crypto, Node ≥ 24.7). */
async function derive(password: string, salt: Buffer, memoryKiB: number, passes: number, parallelism: number): Promise<Buffer> {
  return argon2Async('argon2id', {
    message: Buffer.from(password, 'utf8'),
    nonce: salt,
    memory: memoryKiB,
    passes,
    parallelism,
    tagLength: HASH_BYTES,
  });
}

/** Hashes a password for storage as a PHC string, so the cost can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { memoryKiB, passes, parallelism } = ARGON2_PARAMETERS;
  const hash = await derive(password, salt, memoryKiB, passes, parallelism);
  const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${memoryKiB},t=${passes},p=${parallelism}$${b64(salt)}$${b64(hash)}`;
}

/** True when `password` matches the stored PHC string; a malformed string matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [, memory, passes, parallelism, salt, expected] = match;
  const expectedBytes = Buffer.from(expected!, 'base64');
  const actual = await derive(password, Buffer.from(salt!, 'base64'), Number(memory), Number(passes), Number(parallelism));
  return actual.length === expectedBytes.length && timingSafeEqual(actual, expectedBytes);
}

/**
 * A hash of a password nobody has, verified when the account does not exist, so that an unknown
 * address takes as long to refuse as a wrong password (no account enumeration by timing).
 */
let decoyHash: Promise<string> | undefined;
/** The decoy hash, computed once per process. */
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(24).toString('base64'));
  return decoyHash;
}
