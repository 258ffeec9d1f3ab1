/**
 * The document portrait: a live document step in a workflow with a selfie step keeps the face
 * embedding of the document's largest face (never the image), sealed, so that the selfie step can
 * compare against it; the selfie step drops it. An input observer of the decision flow
 * (`Services.decisionHooks`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionPortraitSchema } from '../../entities/session.entity.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { analyzeFaceOffThread } from '../engines/pool/executor.js';
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

/** The stored document portrait embedding of a session, if the document step kept one. */
export async function loadPortrait(em: EntityManager, services: Services, sessionId: string): Promise<number[] | undefined> {
  const row = await em.findOne(SessionPortraitSchema, { sessionId });
  return row ? (JSON.parse(services.secrets.decrypt(row.embeddingEncrypted)) as number[]) : undefined;
}

/** The face embedding of a document image's largest face, or null when it shows none or is unreadable. */
async function portraitEmbedding(services: Services, imageFront: string): Promise<number[] | null> {
  try {
    const image = decodeDataUri(imageFront, 'image_front', ['image/jpeg', 'image/png', 'image/webp']);
    return (await analyzeFaceOffThread(services.engines.executor, image.bytes, { field: 'image_front', pick: 'largest' })).embedding;
  } catch (error) {
    // The document step already judged the image; a portrait without a face only means the
    // selfie step will ask for review.
    if (error instanceof ApiError) return null;
    throw error;
  }
}
