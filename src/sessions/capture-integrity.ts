/**
 * Capture integrity (docs/capture-integrity.md): how each photo of a step was made, and the
 * signals that it may have been injected rather than taken. The hosted flow asks the server for a
 * nonce when it takes a photo (signed, single use, a few minutes long, bound to one session and
 * step) and sends it back with what the browser knows of the camera (its label, its frame rate,
 * the rate frames actually arrived at). Every step records the path (`capture`: `camera` or
 * `upload`) and the evidence in its details; a doubtful capture adds a `capture_integrity`
 * warning, which sends the session to review. An API integrator that sends no capture evidence
 * keeps the plain upload path; only a workflow with `capture: camera` treats that as a signal.
 *
 * Raw SQL: (b) nonces are spent by a compare-and-set `update … returning`.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { Session } from '../../entities/session.entity.js';
import type { Workflow } from '../../entities/workflow.entity.js';
import type { Principal } from '../auth/context.js';
import type { NodeType, Warning } from '../domain/types.js';
import { validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { loadSession } from './read.js';
import { assertAcceptsInput } from './submit.js';
import { workflowOfSession } from '../workflows/revisions.js';

/** How long a capture nonce stays good, in seconds: from the shutter to the submission, review screen included. */
export const CAPTURE_NONCE_TTL_SECONDS = 300;
/** The steps whose photos carry capture evidence. */
export const CAPTURE_STEPS = ['document_verification', 'biometric_kyc'] as const;
/** A step with photos. */
export type CaptureStep = (typeof CAPTURE_STEPS)[number];
/** How an image reached the page. */
export const CAPTURE_SOURCES = ['camera', 'upload'] as const;
/** What a nonce is for: one photo, or an active-liveness challenge (its moves stored with it). */
export type NoncePurpose = 'capture' | 'liveness';

/**
 * Device labels of virtual cameras, which hand a page any video a program chooses (a recording,
 * a deepfake) as if a lens saw it. Chromium's own test device (`fake_device_0`, or the path of the
 * file it plays) is not listed: it exists only behind a command-line switch and is what the
 * browser tests drive.
 */
export const VIRTUAL_CAMERA_LABELS: readonly RegExp[] = [
  /\bobs\b/i,
  /manycam/i,
  /snap ?camera/i,
  /xsplit/i,
  /v4l2 ?loopback/i,
  /dummy video device/i,
  /droidcam/i,
  /e2esoft|vcam/i,
  /splitcam/i,
  /camtwist/i,
  /youcam/i,
  /mmhmm/i,
  /virtual ?cam/i,
  /unity ?video ?capture/i,
];

/**
 * How much faster than the camera's own rate frames may arrive before that is a signal: a real
 * camera delivers at most its configured rate; an injected stream is often pushed faster.
 */
export const FRAME_RATE_TOLERANCE = 1.5;

/** Each finding that makes a capture doubtful, as named in the step's details. */
export type CaptureSignal =
  | 'virtual_camera'
  | 'frames_faster_than_camera'
  | 'nonce_missing'
  | 'nonce_invalid'
  | 'nonce_expired'
  | 'nonce_reused'
  | 'upload_where_camera_required';

/** What the page says about how one image was made (GraphQL's `CaptureInput`). */
export const CaptureEvidenceSchema = z
  .object({
    source: z.enum(CAPTURE_SOURCES),
    nonce: z.string().min(1).max(300).nullish(),
    deviceLabel: z.string().max(200).nullish(),
    frameRate: z.number().positive().max(1000).nullish(),
    measuredFrameRate: z.number().positive().max(10_000).nullish(),
  })
  .strict();
/** One image's capture evidence as sent. */
export type CaptureEvidence = z.input<typeof CaptureEvidenceSchema>;

/** A nonce the server issued, as the page receives it. */
export interface IssuedNonce {
  nonce: string;
  expiresAt: Date;
}

/** `<id>.<expiry seconds>.<signature>`: the signature binds the id to the session, step, purpose and expiry. */
function signedNonce(services: Services, id: string, sessionId: string, nodeType: string, purpose: NoncePurpose, expires: number): string {
  return `${id}.${expires}.${services.secrets.captureNonceSignature(`${id}.${sessionId}.${nodeType}.${purpose}.${expires}`)}`;
}

/** Refuses a step that takes no photo, or that the session's workflow does not have. */
function assertCaptureStep(workflow: Workflow, nodeType: string): asserts nodeType is CaptureStep {
  const field = 'node_type';
  if (!(CAPTURE_STEPS as readonly string[]).includes(nodeType))
    throw validationError([{ field, code: 'not_a_photo_step', message: `${nodeType} takes no photo; use ${CAPTURE_STEPS.join(' or ')}` }]);
  if (!workflow.nodes.some((node) => node.type === nodeType))
    throw validationError([{ field, code: 'not_in_workflow', message: `workflow ${workflow.id} has no ${nodeType} step` }]);
}

/**
 * Issues a nonce for one capture (or one liveness challenge) of a session's step to the end user
 * (or the tenant) who may see the session, while it still takes input. Stored so that it is used
 * once; the row belongs to the session's tenant and environment.
 */
export async function issueNonce(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
  nodeType: string,
  purpose: NoncePurpose,
  moves: string[] | null = null,
): Promise<IssuedNonce & { session: Session; workflow: Workflow }> {
  const session = await loadSession(em, services, principal, sessionId);
  assertAcceptsInput(session);
  const workflow = await workflowOfSession(em, session);
  assertCaptureStep(workflow, nodeType);
  const id = randomUUID();
  const issuedAt = new Date();
  const expiresAt = new Date(issuedAt.getTime() + CAPTURE_NONCE_TTL_SECONDS * 1000);
  await em.execute(
    `insert into capture_nonce (id, tenant_id, environment, session_id, node_type, purpose, moves, issued_at, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, session.tenant.id, session.environment, session.id, nodeType, purpose, moves ? JSON.stringify(moves) : null, issuedAt, expiresAt],
  );
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return { nonce: signedNonce(services, id, session.id, nodeType, purpose, expires), expiresAt, session, workflow };
}

/** A nonce checked against its row: its state, and (when good so far) the row's id, issue time and moves. */
export interface CheckedNonce {
  state: 'valid' | 'missing' | 'invalid' | 'expired' | 'reused';
  id?: string;
  issuedAt?: Date;
  moves?: string[] | null;
}

/**
 * Checks a nonce for a session's step: the signature (so a forged or altered one is `invalid`
 * without a lookup), then its row (other session, step or purpose: `invalid`; past its expiry:
 * `expired`; already used: `reused`). Using it up happens in the submission's transaction
 * ({@link consumeNonces}), so a refused submission leaves it unused.
 */
export async function checkNonce(
  em: EntityManager,
  services: Services,
  sessionId: string,
  nodeType: string,
  purpose: NoncePurpose,
  nonce: string | null | undefined,
): Promise<CheckedNonce> {
  if (!nonce) return { state: 'missing' };
  const [id, expires, signature] = nonce.split('.');
  if (!id || !expires || !signature || !/^\d{1,12}$/.test(expires) || !z.uuid().safeParse(id).success) return { state: 'invalid' };
  const expected = Buffer.from(signedNonce(services, id, sessionId, nodeType, purpose, Number(expires)));
  const given = Buffer.from(nonce);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { state: 'invalid' };
  const [row] = await em.execute<{ issued_at: Date | string; expires_at: Date | string; used_at: Date | string | null; moves: unknown }[]>(
    `select issued_at, expires_at, used_at, moves from capture_nonce where id = ? and session_id = ? and node_type = ? and purpose = ?`,
    [id, sessionId, nodeType, purpose],
  );
  if (!row) return { state: 'invalid' };
  const moves = (typeof row.moves === 'string' ? JSON.parse(row.moves) : row.moves) as string[] | null;
  const checked = { id, issuedAt: new Date(row.issued_at), moves };
  if (row.used_at !== null) return { ...checked, state: 'reused' };
  if (new Date(row.expires_at).getTime() <= Date.now()) return { ...checked, state: 'expired' };
  return { ...checked, state: 'valid' };
}

/**
 * Uses up nonces inside the submission's transaction; returns the ids that were still unused, so
 * two submissions racing with one nonce find it used by the other.
 */
export async function consumeNonces(tx: EntityManager, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx.execute<{ id: string }[]>(
    `update capture_nonce set used_at = ? where id in (${ids.map(() => '?').join(', ')}) and used_at is null returning id`,
    [new Date(), ...ids],
  );
  return new Set(rows.map((row) => row.id));
}

/** The evidence kept for one image in the step's details. */
interface ImageEvidence {
  source: (typeof CAPTURE_SOURCES)[number];
  device_label?: string;
  frame_rate?: number;
  measured_frame_rate?: number;
  nonce?: CheckedNonce['state'];
  /** Milliseconds from the nonce's issue (the shutter) to the submission. */
  nonce_age_ms?: number;
  signals: CaptureSignal[];
}

/** What the assessment of a step's captures adds to its result, before the nonces are used up. */
export interface CaptureAssessment {
  images: ImageEvidence[];
  /** Each image's valid nonce id (null when it has none), to use up in the transaction. */
  nonceIds: (string | null)[];
}

/** The capture evidence of a step's input, validated: a list (one per image, in the order of the images). */
export function parseCaptures(raw: unknown): CaptureEvidence[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  return parseOrThrow(z.array(CaptureEvidenceSchema).min(1).max(2), raw) as CaptureEvidence[];
}

/** The signals of one image's camera: a virtual camera's label, frames faster than its rate. */
export function cameraSignals(evidence: Pick<CaptureEvidence, 'deviceLabel' | 'frameRate' | 'measuredFrameRate'>): CaptureSignal[] {
  const signals: CaptureSignal[] = [];
  const label = evidence.deviceLabel ?? '';
  if (VIRTUAL_CAMERA_LABELS.some((pattern) => pattern.test(label))) signals.push('virtual_camera');
  if (evidence.frameRate && evidence.measuredFrameRate && evidence.measuredFrameRate > evidence.frameRate * FRAME_RATE_TOLERANCE)
    signals.push('frames_faster_than_camera');
  return signals;
}

/**
 * Judges the capture evidence of a step (none: the plain upload path of an API integrator) for
 * each of its `imageCount` images, checking each camera capture's nonce.
 */
export async function assessCaptures(
  em: EntityManager,
  services: Services,
  session: Pick<Session, 'id'>,
  workflow: Pick<Workflow, 'capture'>,
  nodeType: NodeType,
  captures: CaptureEvidence[] | undefined,
  imageCount: number,
): Promise<CaptureAssessment> {
  if (captures && captures.length !== imageCount)
    throw validationError([
      { field: 'capture', code: 'count_mismatch', message: `give one capture per image: ${imageCount} here, ${captures.length} given` },
    ]);
  const now = Date.now();
  const images: ImageEvidence[] = [];
  const nonceIds: (string | null)[] = [];
  for (let index = 0; index < imageCount; index++) {
    const evidence = captures?.[index] ?? { source: 'upload' as const };
    if (evidence.source === 'upload') {
      images.push({ source: 'upload', signals: workflow.capture === 'camera' ? ['upload_where_camera_required'] : [] });
      nonceIds.push(null);
      continue;
    }
    const nonce = await checkNonce(em, services, session.id, nodeType, 'capture', evidence.nonce);
    const signals = cameraSignals(evidence);
    // One nonce for two images of the same submission is a reuse too.
    const state = nonce.state === 'valid' && nonceIds.includes(nonce.id!) ? 'reused' : nonce.state;
    if (state !== 'valid') signals.push(`nonce_${state}`);
    nonceIds.push(state === 'valid' ? nonce.id! : null);
    images.push({
      source: 'camera',
      ...(evidence.deviceLabel ? { device_label: evidence.deviceLabel } : {}),
      ...(evidence.frameRate ? { frame_rate: evidence.frameRate } : {}),
      ...(evidence.measuredFrameRate ? { measured_frame_rate: Math.round(evidence.measuredFrameRate * 10) / 10 } : {}),
      nonce: state,
      ...(nonce.issuedAt ? { nonce_age_ms: now - nonce.issuedAt.getTime() } : {}),
      signals,
    });
  }
  return { images, nonceIds };
}

/** Plain words for each signal, for the warning a reviewer reads. */
const SIGNAL_WORDS: Record<CaptureSignal, string> = {
  virtual_camera: 'the camera is a known virtual camera',
  frames_faster_than_camera: "frames arrived faster than the camera's rate",
  nonce_missing: 'a camera capture came without its capture nonce',
  nonce_invalid: 'the capture nonce is not one this server issued for this session and step',
  nonce_expired: 'the capture nonce had expired',
  nonce_reused: 'the capture nonce was already used',
  upload_where_camera_required: 'the workflow asks for a camera capture and got an upload',
};

/**
 * Uses up the assessment's nonces in the submission's transaction and returns what the step's
 * result gains: `capture` (`camera` when every image came from the camera, else `upload`), the
 * per-image evidence, and a `capture_integrity` warning naming every signal.
 */
export async function settleCaptures(
  tx: EntityManager,
  assessment: CaptureAssessment,
): Promise<{ details: Record<string, unknown>; warnings: Warning[] }> {
  const consumed = await consumeNonces(
    tx,
    assessment.nonceIds.filter((id): id is string => id !== null),
  );
  // A nonce used by a concurrent submission since it was checked is a reuse as well.
  const images = assessment.images.map((image, index) => {
    const id = assessment.nonceIds[index];
    if (!id || consumed.has(id)) return image;
    return { ...image, nonce: 'reused' as const, signals: [...image.signals, 'nonce_reused' as const] };
  });
  const signals = [...new Set(images.flatMap((image) => image.signals))];
  const capture = images.every((image) => image.source === 'camera') ? 'camera' : 'upload';
  const warnings: Warning[] = signals.length
    ? [{ code: 'capture_integrity', message: `Capture integrity: ${signals.map((signal) => SIGNAL_WORDS[signal]).join('; ')}.` }]
    : [];
  return { details: { capture, capture_integrity: { signals, images } }, warnings };
}
