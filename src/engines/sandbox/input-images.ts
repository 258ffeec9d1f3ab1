/**
 * Sandbox inputs are checked like live ones (issue 17): an image or document a live engine would
 * decode must be a data URI of an accepted type whose bytes decode, whatever the key. Only the
 * verdict comes from the sandbox: a magic `sandbox:` token is the one non-image value accepted.
 */
import sharp from 'sharp';
import type { NodeType } from '../../domain/types.js';
import { fieldValidationError } from '../../shared/input-rules.js';
import { decodeDataUri, MAX_INPUT_PIXELS } from '../data-uri.js';
import { DOCUMENT_IMAGE_TYPES } from '../document/image.js';
import { POA_MIME_TYPES, SELFIE_MIME_TYPES } from '../inputs.js';
import { SANDBOX_TOKEN_PREFIX } from './catalogue.js';

/** The image fields of each node's input, with the types its live engine accepts. */
const IMAGE_FIELDS: Partial<Record<NodeType, { field: string; types: readonly string[] }[]>> = {
  document_verification: [
    { field: 'imageFront', types: DOCUMENT_IMAGE_TYPES },
    { field: 'imageBack', types: DOCUMENT_IMAGE_TYPES },
  ],
  biometric_kyc: [{ field: 'selfie', types: SELFIE_MIME_TYPES }],
  proof_of_address: [{ field: 'documentImage', types: POA_MIME_TYPES }],
};

/** Side the decode check scales an image to: decoding every pixel finds a truncated file, the size keeps it cheap. */
const CHECK_SIDE_PX = 32;

/**
 * Refuses, with the live engines' errors, an image field of a sandbox submission that is not a
 * decodable image of an accepted type (a URL, "hello", a GIF, a truncated JPEG). Magic tokens pass.
 */
export async function assertSandboxImagesDecode(nodeType: NodeType, input: Record<string, unknown>): Promise<void> {
  for (const { field, types } of IMAGE_FIELDS[nodeType] ?? []) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' && value.startsWith(SANDBOX_TOKEN_PREFIX)) continue;
    const { mimeType, bytes } = decodeDataUri(value, field, types);
    if (mimeType === 'application/pdf') continue; // its signature was checked; pages are the engine's business
    try {
      await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated' })
        .resize({ width: CHECK_SIDE_PX, height: CHECK_SIDE_PX, fit: 'inside' })
        .raw()
        .toBuffer();
    } catch {
      const message = `${field} is not a readable ${types.filter((type) => type.startsWith('image/')).join(' or ')} image (or exceeds ${MAX_INPUT_PIXELS} pixels)`;
      throw fieldValidationError(field, 'invalid_image', message);
    }
  }
}
