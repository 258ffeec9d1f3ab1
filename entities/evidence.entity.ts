import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/** Where a face is in an evidence image, as fractions (0–1) of the upright image. */
export interface EvidenceFaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * One image or PDF a step was given, kept for review (src/evidence/evidence.service.ts): encrypted
 * with the tenant's data key (AES-256-GCM), deleted when `expiresAt` passes or the session is erased.
 * The ciphertext is written and read with SQL; the entity never loads it.
 */
export const EvidenceSchema = defineEntity({
  name: 'Evidence',
  tableName: 'evidence',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sessionId: p.uuid(),
    /** The step it was given to (`document_verification`, `biometric_kyc`, `proof_of_address`). */
    nodeType: p.text(),
    /** What it shows: `document_front`, `document_back`, `selfie`, `proof_of_address`, `document_portrait`. */
    kind: p.text(),
    contentType: p.text(),
    /** Size of the plaintext. */
    byteLength: p.integer(),
    /** AES-GCM nonce. */
    iv: p.blob().lazy(),
    /** AES-GCM authentication tag. */
    tag: p.blob().lazy(),
    ciphertext: p.blob().lazy(),
    createdAt: p.datetime().defaultRaw('now()'),
    expiresAt: p.datetime(),
    /** Where the face is, for selfies and document portraits; null otherwise or when none was found. */
    face: p.json<EvidenceFaceBox>().nullable(),
  },
});
/** An evidence row. */
export type Evidence = InferEntity<typeof EvidenceSchema>;

/** Who looked at a piece of evidence and when: the access trail of personal images. */
export const EvidenceViewSchema = defineEntity({
  name: 'EvidenceView',
  tableName: 'evidence_view',
  properties: {
    id: p.uuid().primary(),
    /** Not a foreign key: the trail outlives the evidence it names. */
    evidenceId: p.uuid(),
    sessionId: p.uuid(),
    tenantId: p.uuid(),
    /** The operator who viewed it (nullable so the trail stays when the account goes). */
    operatorId: p.uuid().nullable(),
    operatorName: p.text(),
    viewedAt: p.datetime().defaultRaw('now()'),
    /** The client address the view came from. */
    clientAddress: p.text().nullable(),
  },
});
/** An evidence view row. */
export type EvidenceView = InferEntity<typeof EvidenceViewSchema>;
