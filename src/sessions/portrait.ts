/**
 * The document portrait: a live document step in a workflow with a selfie step keeps the face
 * embedding of the document's largest face and its aligned, normalised 24×24 grey crop (never the
 * image; face/aligned-crop.ts), sealed, so that the selfie step can compare against both; the
 * selfie step drops them. An input observer of the decision flow
 * (`Services.decisionHooks`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionPortraitSchema } from '../../entities/session.entity.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { alignedCrop } from '../engines/face/aligned-crop.js';
import { MAX_ANALYSIS_SIDE_PX } from '../engines/face/analyze.js';
import { analyzeFaceOffThread } from '../engines/pool/executor.js';
import { decodeUpright } from '../engines/recapture-evidence.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';
import type { NodeInputObserver } from './decision-hooks.js';

/** Keeps the document portrait's embedding for the selfie step, and drops it once the selfie step ran. */
export const capturePortrait: NodeInputObserver = async (_em, services, session, nodeType, input, workflow) => {
  if (nodeType === 'biometric_kyc') {
    return async (tx) => {
      await tx.nativeDelete(SessionPortraitSchema, { sessionId: session.id });
    };
  }
  if (nodeType !== 'document_verification' || session.environment !== 'live') return undefined;
  if (!workflow.nodes.some((candidate) => candidate.type === 'biometric_kyc')) return undefined;
  const portrait = await portraitEmbedding(services, (input as { image_front: string }).image_front);
  if (!portrait) return undefined;
  return async (tx, stored) => {
    if (stored.retake) return;
    tx.create(SessionPortraitSchema, {
      sessionId: session.id,
      embeddingEncrypted: services.secrets.encrypt(JSON.stringify(portrait)),
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

/** The face embedding and aligned crop of a document image's largest face, or null when it shows none or is unreadable. */
async function portraitEmbedding(services: Services, imageFront: string): Promise<StoredPortrait | null> {
  try {
    const image = decodeDataUri(imageFront, 'image_front', ['image/jpeg', 'image/png', 'image/webp']);
    const face = await analyzeFaceOffThread(services.engines.executor, image.bytes, { field: 'image_front', pick: 'largest' });
    const crop = alignedCrop(await decodeUpright(image.bytes, MAX_ANALYSIS_SIDE_PX), face);
    return crop ? { embedding: face.embedding, crop } : { embedding: face.embedding };
  } catch (error) {
    // The document step already judged the image; a portrait without a face only means the
    // selfie step will ask for review.
    if (error instanceof ApiError) return null;
    throw error;
  }
}
