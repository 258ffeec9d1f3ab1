/**
 * Cancelable face templates (docs/design.md "Lists"): the embedding passes through a secret,
 * per-tenant random rotation before it is stored.
 * - Template v3 (face-api's 128-d embedding): the embedding, padded with zeros to
 *   `TEMPLATE_DIMENSION` (256) values, is multiplied by a random orthogonal 256×256 matrix Q,
 *   built as the product of Householder reflections with Gaussian vectors of decreasing length and
 *   a sign flip per coordinate (as in Stewart 1980, "The efficient generation of random orthogonal
 *   matrices"). Q is a rotation, so cosine similarity is kept exactly (up to byte rounding) and
 *   the list gate uses the face engine's own threshold; being random and secret, a leaked table of
 *   templates cannot be mapped back to the model's embedding space without the tenant's secret.
 * - The 256 values are scaled so the largest is ±127 and rounded to signed bytes: 256 bytes per
 *   template, the same storage as v2 (`bytea`, pgvector `vector(256)`). Rounding moves a cosine by
 *   about 0.001.
 * - v2 templates (human's 1024-d faceres embedding, projected) cannot be converted: a different
 *   model, and no image is kept. Migration20261125000100H15FaceTemplatesV3 moves every tenant's
 *   key to a new version, so v2 entries stay listed but no longer match (docs/face.md).
 * - Randomness: AES-256-CTR keystream (node:crypto) keyed by HMAC-SHA256(secret, version
 *   label), turned into Gaussians by Box–Muller. Same secret, same matrix, on every machine; the
 *   label names the version, so v3 matrices are unrelated to v2 ones under the same secret.
 * - Rotating the tenant secret gives an unrelated matrix: every stored template is revoked.
 * - Q is kept as its reflection vectors (about d²/2 floats, 256 KB for d = 256); applying it costs
 *   about d² multiply-adds. The last few matrices are cached per secret.
 */
import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { EMBEDDING_DIMENSION, l2Normalize } from './analyze.js';

/** Values in a template (one signed byte each): the rotated, zero-padded embedding; 256 keeps the v2 storage (`vector(256)`). */
export const TEMPLATE_DIMENSION = 256;
/** Largest magnitude of a template value: the projected embedding is scaled so its largest coordinate is ±127. */
export const TEMPLATE_VALUE_MAX = 127;
/** Label mixed into the HMAC, so a change of construction (v3: another model) yields new matrices rather than silently different ones. */
const DERIVATION_LABEL = 'openkyc/face-template/v3';
/** How many tenants' matrices stay in memory; the least recently used is dropped first. */
const CACHE_SIZE = 8;

/** A secret rotation: reflection vectors (unit length) and the final sign flips. */
interface Rotation {
  /** `reflections[k]` acts on coordinates k..d-1; length d − k. */
  reflections: Float64Array[];
  /** ±1 per coordinate, applied last (Stewart's sign correction for a Haar-distributed result). */
  signs: Float64Array;
}

const cache = new LRUCache<string, Rotation>({ max: CACHE_SIZE });

/** Deterministic standard-normal numbers from a seed: AES-CTR keystream → uniforms → Box–Muller. */
function gaussianStream(seed: Buffer, count: number): Float64Array {
  const pairs = Math.ceil(count / 2);
  const cipher = createCipheriv('aes-256-ctr', seed, Buffer.alloc(16));
  const bytes = cipher.update(Buffer.alloc(pairs * 8));
  const out = new Float64Array(pairs * 2);
  for (let i = 0; i < pairs; i++) {
    // (x + 0.5) / 2^32 is in (0, 1): never 0, so the logarithm stays finite.
    const u1 = (bytes.readUInt32LE(i * 8) + 0.5) / 4294967296;
    const u2 = (bytes.readUInt32LE(i * 8 + 4) + 0.5) / 4294967296;
    const radius = Math.sqrt(-2 * Math.log(u1));
    out[2 * i] = radius * Math.cos(2 * Math.PI * u2);
    out[2 * i + 1] = radius * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

function rotationFor(secret: string | Buffer): Rotation {
  const seed = createHmac('sha256', secret).update(DERIVATION_LABEL).digest();
  const key = seed.toString('hex');
  const cached = cache.get(key);
  if (cached) return cached;
  const d = TEMPLATE_DIMENSION;
  const normals = gaussianStream(seed, (d * (d + 1)) / 2);
  const reflections: Float64Array[] = [];
  const signs = new Float64Array(d).fill(1);
  let offset = 0;
  for (let k = 0; k < d; k++) {
    const length = d - k;
    const v = normals.slice(offset, offset + length);
    offset += length;
    let norm = 0;
    for (let i = 0; i < length; i++) norm += v[i] * v[i];
    norm = Math.sqrt(norm);
    // Stewart: reflect x onto ±|x|e1 with the sign of x[0], then flip that coordinate's sign.
    const sign = v[0] >= 0 ? 1 : -1;
    signs[k] = -sign;
    v[0] += sign * norm;
    let vNorm = 0;
    for (let i = 0; i < length; i++) vNorm += v[i] * v[i];
    vNorm = Math.sqrt(vNorm);
    for (let i = 0; i < length; i++) v[i] /= vNorm;
    reflections.push(v);
  }
  cache.set(key, { reflections, signs });
  return { reflections, signs };
}

/** Applies the rotation: x ← H_{d-1} … H_1 H_0 x, then the sign flips. Orthogonal, so lengths and angles are kept. */
function rotate(rotation: Rotation, input: ArrayLike<number>): Float64Array {
  const x = Float64Array.from(input);
  for (let k = 0; k < rotation.reflections.length; k++) {
    const v = rotation.reflections[k];
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i] * x[k + i];
    const twiceDot = 2 * dot;
    for (let i = 0; i < v.length; i++) x[k + i] -= twiceDot * v[i];
  }
  for (let i = 0; i < x.length; i++) x[i] *= rotation.signs[i];
  return x;
}

/**
 * The storable template of an embedding under a tenant's secret: the secret rotation of the
 * zero-padded, L2-normalised embedding, scaled so the largest value is ±`TEMPLATE_VALUE_MAX` and
 * rounded to signed bytes (see the module comment). Compare templates of one tenant with
 * `similarity` (the cosine; the scale of the bytes does not matter).
 */
export function toTemplate(embedding: ArrayLike<number>, secret: string | Buffer): Int8Array {
  if (embedding.length !== EMBEDDING_DIMENSION)
    throw new Error(`embedding must have ${EMBEDDING_DIMENSION} values, got ${embedding.length}`);
  if (secret.length === 0) throw new Error('template secret must not be empty');
  const padded = new Float64Array(TEMPLATE_DIMENSION);
  padded.set(l2Normalize(embedding));
  return projectTemplate(rotate(rotationFor(secret), padded));
}

/**
 * The signed bytes of a rotated embedding (`TEMPLATE_DIMENSION` values): scaled so the largest is
 * ±`TEMPLATE_VALUE_MAX` and rounded. `toTemplate` ends with it; benchmarks make synthetic
 * templates with it.
 */
export function projectTemplate(rotated: ArrayLike<number>): Int8Array {
  if (rotated.length !== TEMPLATE_DIMENSION)
    throw new Error(`rotated embedding must have ${TEMPLATE_DIMENSION} values, got ${rotated.length}`);
  let largest = 0;
  for (let i = 0; i < rotated.length; i++) largest = Math.max(largest, Math.abs(rotated[i]));
  if (!(largest > 0)) throw new Error('cannot make a template of a zero (or non-finite) projection');
  const scale = TEMPLATE_VALUE_MAX / largest;
  return Int8Array.from(rotated, (value) => Math.round(value * scale));
}

/** The bytes stored for a template: its 256 signed bytes, two's complement (no byte order to settle). */
export function templateBytes(template: Int8Array): Buffer {
  if (template.length !== TEMPLATE_DIMENSION) throw new Error(`template must have ${TEMPLATE_DIMENSION} values, got ${template.length}`);
  return Buffer.from(template.buffer.slice(template.byteOffset, template.byteOffset + template.byteLength));
}

/** The template read back from its stored bytes (a copy). */
export function templateFromBytes(bytes: Uint8Array): Int8Array {
  if (bytes.length !== TEMPLATE_DIMENSION) throw new Error(`template must be ${TEMPLATE_DIMENSION} bytes, got ${bytes.length}`);
  return new Int8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** Face entry fingerprint (docs/design.md "Smaller decisions"): `sha256:` + hex SHA-256 of the stored template bytes. */
export function fingerprint(template: Int8Array): string {
  return `sha256:${createHash('sha256').update(templateBytes(template)).digest('hex')}`;
}
