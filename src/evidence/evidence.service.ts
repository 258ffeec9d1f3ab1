/**
 * Raw SQL: (b) a tenant's data key is created once by `insert … on conflict do nothing`, and
 * retention is clamped by `created_at + make_interval(days => ?)`.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { EvidenceSchema, EvidenceViewSchema } from '../../entities/evidence.entity.js';
import { TenantDataKeySchema } from '../../entities/secrets.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { OperatorPrincipal } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { NodeType } from '../domain/types.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { ApiError } from '../shared/errors.js';
import { isUuid } from '../shared/input-rules.js';
import type { Services } from '../services.js';
import type { InputObservation, NodeInputObserver } from '../sessions/decision-hooks.js';
import type { Session } from '../../entities/session.entity.js';
import { analyzeKeptFace, faceBoxIn, type FaceBox } from './evidence-faces.js';

/**
 * How long an evidence URL works after it is handed out, in seconds: long enough for the page or
 * the viewer that asked for it to load the image, too short to keep (audit N13; it was 5 minutes).
 */
export const EVIDENCE_URL_TTL_SECONDS = 60;
/** Longest retention a tenant may set, in days (ten years). */
export const EVIDENCE_RETENTION_MAX_DAYS = 3650;
/** The types evidence is kept in: those the engines accept. */
const EVIDENCE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] as const;
/** Bytes of a tenant's data key (AES-256). */
const DATA_KEY_BYTES = 32;
/** AES-GCM nonce length, in bytes. */
const GCM_IV_BYTES = 12;

/** The input fields each step keeps as evidence, by the kind they are shown as. */
const EVIDENCE_FIELDS: Partial<Record<NodeType, Record<string, string>>> = {
  document_verification: { imageFront: 'document_front', imageBack: 'document_back' },
  biometric_kyc: { selfie: 'selfie' },
  proof_of_address: { documentImage: 'proof_of_address' },
};

/**
 * The tenant's evidence data key, made on first use and stored sealed by the master key (so a
 * master key rotation re-wraps it with the other sealed columns, src/auth/sealed-columns.ts).
 */
async function tenantDataKey(em: EntityManager, secrets: ServiceSecrets, tenantId: string): Promise<Buffer> {
  const read = () => em.findOne(TenantDataKeySchema, { tenantId }, { fields: ['keySealed'], disableIdentityMap: true });
  let row = await read();
  if (!row) {
    // Two first submissions at once: one insert wins, both read the winner's key.
    await em.execute(
      'insert into tenant_data_key (tenant_id, key_sealed) values (?, ?) on conflict (tenant_id) do nothing',
      [tenantId, secrets.encrypt(randomBytes(DATA_KEY_BYTES).toString('base64'))],
      'run',
    );
    row = await read();
  }
  return Buffer.from(secrets.decrypt(row!.keySealed), 'base64');
}

/** One piece of evidence sealed for storage: AES-256-GCM under the tenant key, bound to its row id. */
interface SealedEvidence {
  id: string;
  kind: string;
  contentType: string;
  byteLength: number;
  face: FaceBox | null;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** Decrypts one file sealed by sealEvidence under its row id (a tampered or moved ciphertext throws). */
function openSealed(key: Buffer, id: string, sealed: { iv: Buffer; tag: Buffer; ciphertext: Buffer }): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv));
  decipher.setAAD(Buffer.from(id));
  decipher.setAuthTag(Buffer.from(sealed.tag));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext)), decipher.final()]);
}

/**
 * The latest selfie kept for a session of the tenant, decrypted, as a data URI; null when none
 * is kept (retention 0, purged, erased, or no selfie). For the server's own use (a face list entry
 * made from a case, which keeps only the template): nothing leaves the process.
 */
export async function keptSelfie(em: EntityManager, secrets: ServiceSecrets, tenantId: string, sessionId: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string; content_type: string; iv: Buffer; tag: Buffer; ciphertext: Buffer }[]>(
    `select id, content_type, iv, tag, ciphertext from evidence
      where tenant_id = ? and session_id = ? and kind = 'selfie' and expires_at > now()
      order by created_at desc limit 1`,
    [tenantId, sessionId],
  );
  if (!row) return null;
  const bytes = openSealed(await tenantDataKey(em, secrets, tenantId), row.id, row);
  return `data:${row.content_type};base64,${bytes.toString('base64')}`;
}

/** Encrypts one file; the row id is the additional data, so a ciphertext moved to another row does not open. */
function sealEvidence(key: Buffer, id: string, bytes: Buffer): Pick<SealedEvidence, 'iv' | 'tag' | 'ciphertext'> {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(id));
  const ciphertext = Buffer.concat([cipher.update(bytes), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ciphertext };
}

/** The tenant's retention in days (0: keep nothing). */
export async function retentionDays(em: EntityManager, tenantId: string): Promise<number> {
  const tenant = await em.findOne(TenantSchema, { id: tenantId }, { fields: ['evidenceRetentionDays'], disableIdentityMap: true });
  return tenant?.evidenceRetentionDays ?? 0;
}

/** One file to keep, with its face box when it shows a face the console lines up. */
export interface EvidenceFile {
  kind: string;
  mimeType: string;
  bytes: Buffer;
  face: FaceBox | null;
}

/**
 * Seals files of a submission under the tenant's key for its retention period and returns the
 * step that writes them through the decision transaction; nothing when the tenant keeps nothing.
 */
export async function keepEvidence(
  em: EntityManager,
  services: Services,
  session: Session,
  nodeType: NodeType,
  files: EvidenceFile[],
): Promise<InputObservation | undefined> {
  if (files.length === 0) return undefined;
  const days = await retentionDays(em, session.tenant.id);
  if (days === 0) return undefined;
  const key = await tenantDataKey(em, services.secrets, session.tenant.id);
  const sealed: SealedEvidence[] = files.map((file) => {
    const id = randomUUID();
    return {
      id,
      kind: file.kind,
      contentType: file.mimeType,
      byteLength: file.bytes.length,
      face: file.face,
      ...sealEvidence(key, id, file.bytes),
    };
  });
  return async (tx) => {
    for (const item of sealed)
      await tx.execute(
        `insert into evidence (id, tenant_id, environment, session_id, node_type, kind, content_type, byte_length, iv, tag, ciphertext, face, expires_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, now() + make_interval(days => ?))`,
        [
          item.id,
          session.tenant.id,
          session.environment,
          session.id,
          nodeType,
          item.kind,
          item.contentType,
          item.byteLength,
          item.iv,
          item.tag,
          item.ciphertext,
          item.face ? JSON.stringify(item.face) : null,
          days,
        ],
        'run',
      );
  };
}

/**
 * Keeps the images and documents of an accepted submission as evidence, encrypted, for the
 * tenant's retention period; written in the decision's transaction, so a submission that fails
 * leaves none. Sandbox magic tokens are not files and are not kept. A selfie keeps where its face
 * is, so the console can show it beside the document portrait at the same face size.
 */
export const captureEvidence: NodeInputObserver = async (em, services, session, nodeType, input) => {
  const fields = EVIDENCE_FIELDS[nodeType];
  if (!fields) return undefined;
  const decoded = Object.entries(fields).flatMap(([field, kind]) => {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value !== 'string' || !value.startsWith('data:')) return [];
    try {
      return [{ kind, ...decodeDataUri(value, field, EVIDENCE_TYPES) }];
    } catch (error) {
      // The engine accepted the submission already: a file of a type we do not keep is not kept, rather than failing it.
      if (error instanceof ApiError) return [];
      throw error;
    }
  });
  if (decoded.length === 0 || (await retentionDays(em, session.tenant.id)) === 0) return undefined;
  const files: EvidenceFile[] = [];
  for (const file of decoded) {
    let face: FaceBox | null = null;
    if (file.kind === 'selfie') {
      const analysis = await analyzeKeptFace(services, file.bytes, 'selfie');
      face = analysis ? await faceBoxIn(file.bytes, analysis) : null;
    }
    files.push({ kind: file.kind, mimeType: file.mimeType, bytes: file.bytes, face });
  }
  return keepEvidence(em, services, session, nodeType, files);
};

/** Evidence of a session as listed to an operator, with a URL that works for a few minutes. */
export interface EvidenceItem {
  id: string;
  sessionId: string;
  nodeType: string;
  kind: string;
  contentType: string;
  byteLength: number;
  /**
   * Which submission of its kind in the session it was, from 1: every attempt of a step is kept
   * (a retake the engine asked for, a reviewer's retake), not only the latest.
   */
  attempt: number;
  /** Where the face is (fractions of the upright image): selfies and document portraits; null otherwise or when none was found. */
  face: FaceBox | null;
  createdAt: Date;
  expiresAt: Date;
}

/** A stored face box: the driver may hand jsonb holding a JSON string back as that string. */
function faceOf(face: FaceBox | string | null | undefined): FaceBox | null {
  return typeof face === 'string' ? (JSON.parse(face) as FaceBox) : (face ?? null);
}

/** The evidence of sessions (already scoped by the caller), oldest first, without the ciphertext. */
export async function listEvidence(em: EntityManager, sessionIds: readonly string[]): Promise<EvidenceItem[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.find(
    EvidenceSchema,
    { sessionId: { $in: [...sessionIds] }, expiresAt: { $gt: raw('now()') } },
    {
      fields: ['id', 'sessionId', 'nodeType', 'kind', 'contentType', 'byteLength', 'face', 'createdAt', 'expiresAt'],
      orderBy: { createdAt: 'asc', kind: 'asc' },
      disableIdentityMap: true,
    },
  );
  const attempts = new Map<string, number>();
  const attemptOf = (row: { sessionId: string; kind: string }) => {
    const key = `${row.sessionId}/${row.kind}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    return attempt;
  };
  return rows.map((row) => ({
    id: row.id,
    sessionId: row.sessionId,
    nodeType: row.nodeType,
    kind: row.kind,
    contentType: row.contentType,
    byteLength: row.byteLength,
    attempt: attemptOf(row),
    face: faceOf(row.face as FaceBox | string | null | undefined),
    createdAt: new Date(row.createdAt),
    expiresAt: new Date(row.expiresAt),
  }));
}

/**
 * The parameters a signature covers: which file, for which console sign-in of which operator,
 * until when. The sign-in is not in the URL: it comes from the cookie of the request that opens
 * it, so the URL opens only inside the sign-in that asked for it (audit N13).
 */
export function evidenceUrlPayload(
  evidenceId: string,
  operator: Pick<OperatorPrincipal, 'operatorId' | 'loginId'>,
  expires: number,
): string {
  return `${evidenceId}.${operator.operatorId}.${operator.loginId}.${expires}`;
}

/** A short-lived URL of one file for one operator's sign-in; the view is audited when the URL is opened. */
export function signedEvidenceUrl(secrets: ServiceSecrets, evidenceId: string, operator: OperatorPrincipal, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + EVIDENCE_URL_TTL_SECONDS;
  const signature = secrets.evidenceUrlSignature(evidenceUrlPayload(evidenceId, operator, expires));
  return `/console/evidence/${evidenceId}?expires=${expires}&signature=${signature}`;
}

/** What opening an evidence URL gives: the file, decrypted. */
export interface OpenedEvidence {
  contentType: string;
  bytes: Buffer;
}

/**
 * Opens a signed evidence URL for the console sign-in of the request (its cookie): checks that
 * there is one, the signature (which covers that sign-in) and the time, decrypts the file with its
 * tenant's key and records the view with the operator's name, in that order, so no file leaves
 * without its audit row. No valid sign-in is a 401 (signed out, expired, another browser), a wrong
 * signature (another sign-in's URL included) or an unknown file a 404, an expired URL a 410.
 */
export async function openEvidence(
  em: EntityManager,
  services: Services,
  evidenceId: string,
  query: { expires?: unknown; signature?: unknown },
  /** The operator of the request's console cookie, when it carries a valid one. */
  viewer: OperatorPrincipal | null,
  /** Where the viewer is, for the audit log's "from where". */
  clientAddress: string | null = null,
): Promise<OpenedEvidence> {
  if (!viewer)
    throw new ApiError(
      'unauthenticated',
      'Evidence opens only inside the console sign-in that asked for it: sign in and open the case again.',
    );
  const { expires, signature } = query;
  if (!isUuid(evidenceId) || typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires))
    throw new ApiError('not_found', 'No such evidence.');
  const expected = Buffer.from(services.secrets.evidenceUrlSignature(evidenceUrlPayload(evidenceId, viewer, Number(expires))));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new ApiError('not_found', 'No such evidence.');
  if (Number(expires) * 1000 <= Date.now())
    throw new ApiError('link_expired', 'This evidence link has expired: open the case again for a new one.');
  const operator = viewer.operatorId;
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<
      {
        tenant_id: string;
        environment: ApiKeyEnvironment;
        session_id: string;
        content_type: string;
        iv: Buffer;
        tag: Buffer;
        ciphertext: Buffer;
        operator_name: string | null;
        operator_tenant_id: string | null;
      }[]
    >(
      `select e.tenant_id, e.environment, e.session_id, e.content_type, e.iv, e.tag, e.ciphertext,
              o.name as operator_name, o.tenant_id as operator_tenant_id
         from evidence e left join operator o on o.id = ?::uuid and o.disabled_at is null
        where e.id = ?::uuid and e.expires_at > now()`,
      [operator, evidenceId],
    );
    // The signature already binds file and sign-in; the tenant and environment checks keep it so if
    // an id ever moved or the sign-in switched environment since.
    if (!row || !row.operator_name || row.operator_tenant_id !== row.tenant_id || row.environment !== viewer.environment)
      throw new ApiError('not_found', 'No such evidence.');
    const key = await tenantDataKey(tx as EntityManager, services.secrets, row.tenant_id);
    const bytes = openSealed(key, evidenceId, row);
    await tx.insert(EvidenceViewSchema, {
      id: randomUUID(),
      evidenceId,
      sessionId: row.session_id,
      tenantId: row.tenant_id,
      operatorId: operator,
      operatorName: row.operator_name,
      clientAddress,
    });
    return { contentType: row.content_type, bytes };
  });
}

/** Deletes evidence past its retention; returns how many files went. Run by the job runner every few minutes. */
export async function purgeExpiredEvidence(em: EntityManager): Promise<number> {
  return em.nativeDelete(EvidenceSchema, { expiresAt: { $lte: raw('now()') } });
}

/** Sets a tenant's retention (0 keeps nothing); files already kept expire no later than the new period allows. */
export async function setEvidenceRetention(em: EntityManager, tenantId: string, days: number): Promise<number> {
  if (!Number.isInteger(days) || days < 0 || days > EVIDENCE_RETENTION_MAX_DAYS)
    throw new ApiError('validation_failed', `days must be a whole number from 0 to ${EVIDENCE_RETENTION_MAX_DAYS}.`, [
      { field: 'days', code: 'invalid', message: `days must be 0 to ${EVIDENCE_RETENTION_MAX_DAYS}` },
    ]);
  await em.nativeUpdate(TenantSchema, { id: tenantId }, { evidenceRetentionDays: days });
  await em.execute(
    `update evidence set expires_at = created_at + make_interval(days => ?)
      where tenant_id = ? and expires_at > created_at + make_interval(days => ?)`,
    [days, tenantId, days],
    'run',
  );
  return days;
}

/** One kept image opened for a case report, with what it shows. */
export interface OpenedImage {
  id: string;
  nodeType: string;
  kind: string;
  contentType: string;
  createdAt: Date;
  bytes: Buffer;
}

/**
 * The kept JPEG and PNG images of a session (already scoped by the caller), decrypted for a case
 * report an operator downloads: each file put in the report is a view, written to `evidence_view`
 * under the operator's name like a view through a signed URL.
 */
export async function openImagesForReport(
  em: EntityManager,
  secrets: ServiceSecrets,
  operator: OperatorPrincipal,
  sessionId: string,
): Promise<OpenedImage[]> {
  const rows = await em.execute<
    { id: string; node_type: string; kind: string; content_type: string; created_at: Date; iv: Buffer; tag: Buffer; ciphertext: Buffer }[]
  >(
    `select id, node_type, kind, content_type, created_at, iv, tag, ciphertext from evidence
      where tenant_id = ? and session_id = ? and expires_at > now() and content_type in ('image/jpeg', 'image/png')
      order by created_at, kind`,
    [operator.tenantId, sessionId],
  );
  if (rows.length === 0) return [];
  const key = await tenantDataKey(em, secrets, operator.tenantId);
  // One insert a view, in the order the files are opened, as the trail has always been written.
  for (const row of rows)
    await em.insert(EvidenceViewSchema, {
      id: randomUUID(),
      evidenceId: row.id,
      sessionId,
      tenantId: operator.tenantId,
      operatorId: operator.operatorId,
      operatorName: operator.operatorName,
      clientAddress: operator.clientAddress ?? null,
    });
  return rows.map((row) => ({
    id: row.id,
    nodeType: row.node_type,
    kind: row.kind,
    contentType: row.content_type,
    createdAt: new Date(row.created_at),
    bytes: openSealed(key, row.id, row),
  }));
}
