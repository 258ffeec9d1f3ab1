/**
 * The document portrait: a live document step in a workflow with a selfie step keeps the face
 * embedding of the document's largest face and its aligned, normalised 24×24 grey crop (never the
 * image; face/aligned-crop.ts), sealed, so that the selfie step can compare against both; the
 * selfie step drops them. The portrait image itself is kept only as evidence, under the evidence's
 * rules. An input observer of the decision flow (`Services.decisionHooks`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionPortraitSchema } from '../../entities/session.entity.js';
import { decodeDataUri } from '../engines/data-uri.js';
import type { DocumentVerificationInput } from '../engines/inputs.js';
import { alignedCrop } from '../engines/face/aligned-crop.js';
import { MAX_ANALYSIS_SIDE_PX } from '../engines/face/analyze.js';
import { decodeUpright } from '../engines/recapture-evidence.js';
import { ApiError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { analyzeKeptFace, cutPortrait } from '../evidence/evidence-faces.js';
import { keepEvidence, retentionDays } from '../evidence/evidence.service.js';
import type { NodeInputObserver } from './decision-hooks.js';

/**
 * The document portrait of a document step: its face embedding, kept (sealed) for the selfie step
 * of a live workflow, and the portrait cut from the document front, kept as evidence
 * (`document_portrait`, with its face box) whenever the tenant keeps evidence, so a reviewer sees
 * it beside the selfie at the same face size. One face analysis serves both. The selfie step drops
 * the embedding; the cut portrait follows the evidence's retention and erasure.
 */
export const capturePortrait: NodeInputObserver = async (em, services, session, nodeType, input, workflow) => {
  if (nodeType === 'biometric_kyc') {
    return async (tx) => {
      await tx.nativeDelete(SessionPortraitSchema, { sessionId: session.id });
    };
  }
  if (nodeType !== 'document_verification') return undefined;
  const front = (input as Partial<DocumentVerificationInput>).imageFront;
  if (typeof front !== 'string' || !front.startsWith('data:')) return undefined;
  const forSelfie = session.environment === 'live' && workflow.nodes.some((candidate) => candidate.type === 'biometric_kyc');
  const forEvidence = (await retentionDays(em, session.tenant.id)) > 0;
  if (!forSelfie && !forEvidence) return undefined;
  const image = decodedFront(front);
  const analysis = image ? await analyzeKeptFace(services, image, 'imageFront') : null;
  if (!image || !analysis) return undefined;
  const portrait = forEvidence ? await cutPortrait(image, analysis) : null;
  const crop = forSelfie ? alignedCrop(await decodeUpright(image, MAX_ANALYSIS_SIDE_PX), analysis) : null;
  const kept: StoredPortrait = crop ? { embedding: analysis.embedding, crop } : { embedding: analysis.embedding };
  const keep = portrait
    ? await keepEvidence(em, services, session, nodeType, [{ kind: 'document_portrait', mimeType: 'image/jpeg', ...portrait }])
    : undefined;
  return async (tx, stored) => {
    await keep?.(tx, stored);
    if (stored.retake || !forSelfie) return;
    tx.create(SessionPortraitSchema, {
      sessionId: session.id,
      embeddingEncrypted: services.secrets.encrypt(JSON.stringify(kept)),
      createdAt: stored.now,
    });
  };
};

/** What is kept of a document portrait: its embedding, and its aligned crop when landmarks were found. */
export interface StoredPortrait {
  embedding: number[];
  crop?: number[];
}

/** The stored document portrait of a session, if the document step kept one (rows written before the crop was kept hold the embedding alone). */
export async function loadPortrait(em: EntityManager, services: Services, sessionId: string): Promise<StoredPortrait | undefined> {
  const row = await em.findOne(SessionPortraitSchema, { sessionId });
  if (!row) return undefined;
  const stored = JSON.parse(services.secrets.decrypt(row.embeddingEncrypted)) as number[] | StoredPortrait;
  return Array.isArray(stored) ? { embedding: stored } : stored;
}

/** The document front's bytes, or null when it is not an image the face detector reads (the document step judged it already). */
function decodedFront(imageFront: string): Buffer | null {
  try {
    return decodeDataUri(imageFront, 'imageFront', ['image/jpeg', 'image/png', 'image/webp']).bytes;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}
