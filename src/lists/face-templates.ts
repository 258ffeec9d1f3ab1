/**
 * Cancelable face templates per tenant (docs/design.md "Lists"): each tenant has a random secret,
 * sealed at rest with the service's key, that seeds the orthogonal projection of
 * src/engines/face/template.ts (256 signed bytes per template). Rotating the secret bumps its version and revokes every template
 * made under the old one. The raw image never leaves this module's callers' memory.
 *
 * Raw SQL: (b) a tenant's template key is created once by `insert … on conflict (tenant_id) do
 * nothing`.
 */
import { randomBytes } from 'node:crypto';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { FaceTemplateKeySchema, ListEntrySchema } from '../../entities/list.entity.js';
import { SessionDocumentPrintSchema, SessionListSubjectSchema } from '../../entities/session-index.entity.js';
import { toTemplate } from '../engines/face/template.js';
import { analyzeFaceOffThread } from '../engines/pool/executor.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { SELFIE_MIME_TYPES } from '../engines/inputs.js';
import type { Services } from '../services.js';

/** Random bytes in a tenant's template secret (256 bits). */
const TEMPLATE_SECRET_BYTES = 32;

/** A tenant's current template key, unsealed. */
export interface FaceTemplateKey {
  /** Version stored beside every template made with it. */
  version: number;
  /** The projection secret. */
  secret: string;
}

/** The tenant's current face template key, created on first use (race-safe). */
export async function faceTemplateKey(em: EntityManager, services: Services, tenantId: string): Promise<FaceTemplateKey> {
  const read = () =>
    em.execute<{ version: number; sealed_secret: string }[]>(
      'select version, sealed_secret from face_template_key where tenant_id = ?',
      [tenantId],
      'all',
    );
  let [row] = await read();
  if (!row) {
    const sealed = services.secrets.encrypt(randomBytes(TEMPLATE_SECRET_BYTES).toString('base64url'));
    await em.execute(
      'insert into face_template_key (tenant_id, version, sealed_secret) values (?, 1, ?) on conflict (tenant_id) do nothing',
      [tenantId, sealed],
      'run',
    );
    [row] = await read();
  }
  if (!row) throw new Error(`face template key of tenant ${tenantId} could not be created`);
  return { version: Number(row.version), secret: services.secrets.decrypt(row.sealed_secret) };
}

/**
 * Rotates the tenant's template secret: a new random secret under the next version, and every
 * face entry and session template made under an older version deleted, since they can no longer
 * be compared with anything. Run it inside a transaction so the revocation is all or nothing.
 */
export async function rotateFaceTemplateKey(
  tx: EntityManager,
  services: Services,
  tenantId: string,
): Promise<{ version: number; revokedEntries: number }> {
  const current = await faceTemplateKey(tx, services, tenantId);
  const version = current.version + 1;
  const sealed = services.secrets.encrypt(randomBytes(TEMPLATE_SECRET_BYTES).toString('base64url'));
  await tx.nativeUpdate(FaceTemplateKeySchema, { tenantId }, { version, sealedSecret: sealed, createdAt: raw('now()') });
  const revokedEntries = await tx.nativeDelete(ListEntrySchema, { tenantId, entryType: 'face' });
  await tx.nativeDelete(SessionListSubjectSchema, { tenantId, kind: 'face' });
  // Document prints are keyed with the same secret: under a new one they can no longer match.
  await tx.nativeDelete(SessionDocumentPrintSchema, { tenantId });
  return { version, revokedEntries };
}

/**
 * The template of the one face in a `data:` image under the tenant's key. Bad data URIs, images
 * that do not decode, and images with no face or several faces are 400s naming `field`.
 */
export async function templateOfImage(
  em: EntityManager,
  services: Services,
  tenantId: string,
  image: unknown,
  field: string,
): Promise<{ template: Int8Array; keyVersion: number }> {
  const { bytes } = decodeDataUri(image, field, SELFIE_MIME_TYPES);
  const face = await analyzeFaceOffThread(services.engines.executor, bytes, { field, pick: 'only' });
  const key = await faceTemplateKey(em, services, tenantId);
  return { template: toTemplate(face.embedding, key.secret), keyVersion: key.version };
}
