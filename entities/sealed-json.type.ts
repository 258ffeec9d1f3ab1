import { JsonType, type Platform, type TransformContext } from '@mikro-orm/core';

/**
 * How one ORM seals and opens the JSON columns of personal data (src/auth/personal-data.ts makes
 * it from the service's secrets). Entities only name the column type; the keys live above them.
 */
export interface SealedJsonCodec {
  /** The stored JSON text of a plain document (sealed when it holds anything personal). */
  seal(document: Record<string, unknown>): string;
  /** The plain document of a stored value, sealed or not. */
  open(stored: unknown): unknown;
}

/** The key of a sealed document's ciphertext inside its JSON column. */
export const SEALED_KEY = '_sealed';

/** The codec of each ORM, by its platform object (one per ORM; entity definitions are shared by every ORM of a process). */
const codecs = new WeakMap<Platform, SealedJsonCodec>();

/** Binds an ORM's platform to the codec its sealed JSON columns use. */
export function bindSealedJsonCodec(platform: Platform, codec: SealedJsonCodec): void {
  codecs.set(platform, codec);
}

/** The codec bound to a platform; throws when none is (a write would otherwise store personal data in clear). */
export function sealedJsonCodecOf(platform: Platform): SealedJsonCodec {
  const codec = codecs.get(platform);
  if (!codec) throw new Error('personal data sealing is not bound to this ORM (bindPersonalDataSealing)');
  return codec;
}

/** True for a JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON column holding personal data, sealed at rest: entities read and write plain objects.
 * The codec seals unchanged content to the same stored string, so the ORM's change detection
 * (which compares stored forms) writes a document only when it changed.
 */
export class SealedJsonType extends JsonType {
  override convertToDatabaseValue(value: unknown, platform: Platform, context?: TransformContext): string | null {
    if (value == null) return value as null;
    // Hydration hands the stored form back for the snapshot: already sealed, kept as is.
    if (!isObject(value) || SEALED_KEY in value) return super.convertToDatabaseValue(value, platform, context) as string;
    return sealedJsonCodecOf(platform).seal(value);
  }

  override convertToJSValue(value: unknown, platform: Platform, context?: TransformContext): unknown {
    const parsed: unknown = super.convertToJSValue(value, platform, context);
    return parsed == null ? parsed : sealedJsonCodecOf(platform).open(parsed);
  }
}
