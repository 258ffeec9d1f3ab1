import { fieldValidationError } from '../shared/input-rules.js';

/** Largest decoded image or document, in bytes (10 MB); the body limit caps the base64 text too. */
export const MAX_DECODED_BYTES = 10 * 1024 * 1024;

/**
 * Most pixels any engine lets sharp decode (40 megapixels: a 12-megapixel phone photo fits three
 * times over). One cap for documents, selfies, face entries, PoA OCR and ELA, so a small file
 * declaring 30000×30000 pixels is refused from its header instead of filling memory.
 */
export const MAX_INPUT_PIXELS = 40_000_000;

/**
 * Thrown when sharp cannot decode an image the client sent (corrupt, truncated, over the pixel
 * cap): the caller answers 400. sharp's own messages vary (even "Unknown error" for a truncated
 * PNG), so the decoding call sites wrap them instead of callers matching text.
 */
export class UndecodableImageError extends Error {
  override name = 'UndecodableImageError';
  /** True when the image has more than MAX_INPUT_PIXELS pixels. */
  readonly overPixelLimit: boolean;
  constructor(cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(message);
    this.overPixelLimit = /pixel limit/i.test(message);
  }
}

/** Runs a sharp decode of client input, turning any failure into UndecodableImageError. */
export async function decodingClientImage<T>(decode: () => Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (error) {
    throw new UndecodableImageError(error);
  }
}

/** A decoded `data:` URI. */
export interface DecodedDataUri {
  /** MIME type as declared, lower-cased (`image/jpeg`). */
  mimeType: string;
  /** The decoded bytes. */
  bytes: Buffer;
}

/** Magic numbers of the formats we accept, so a declared type is checked against the content. */
const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  'image/jpeg': (bytes) => bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/png': (bytes) => bytes.length > 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/webp': (bytes) =>
    bytes.length > 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
  'application/pdf': (bytes) => bytes.length > 5 && bytes.subarray(0, 5).toString('latin1') === '%PDF-',
};

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i;

/**
 * Decodes a `data:<mime>;base64,<data>` string, checking the declared type is one of `accepted`,
 * that the bytes really are of that type, and the size limit. Every failure is a 400 naming `field`.
 */
export function decodeDataUri(value: unknown, field: string, accepted: readonly string[], maxBytes = MAX_DECODED_BYTES): DecodedDataUri {
  const fail = (code: string, message: string) => fieldValidationError(field, code, message);
  if (typeof value !== 'string' || value.length === 0) throw fail('required', `${field} is required`);
  const match = DATA_URI.exec(value);
  if (!match) throw fail('invalid', `${field} must be a data URI: data:<mime_type>;base64,<data>`);
  const mimeType = match[1].toLowerCase();
  if (!accepted.includes(mimeType)) throw fail('unsupported_type', `${field} must be one of ${accepted.join(', ')}; got ${mimeType}`);
  // base64 expands 3 bytes into 4 characters: refuse before decoding what would exceed the limit.
  if ((match[2].length * 3) / 4 > maxBytes + 4) throw fail('too_large', `${field} exceeds ${maxBytes} bytes`);
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length === 0) throw fail('invalid', `${field} is empty`);
  if (bytes.length > maxBytes) throw fail('too_large', `${field} exceeds ${maxBytes} bytes`);
  const looksRight = SIGNATURES[mimeType];
  if (looksRight && !looksRight(bytes)) throw fail('content_mismatch', `${field} does not contain ${mimeType} data`);
  return { mimeType, bytes };
}
