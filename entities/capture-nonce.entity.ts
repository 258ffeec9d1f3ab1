import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/** What a capture nonce is for: one photo taken through the camera, or an active liveness challenge. */
export const CAPTURE_NONCE_PURPOSES = ['capture', 'liveness'] as const;

/**
 * A per-capture nonce the hosted flow asks for before it takes a photo or starts a liveness
 * challenge (docs/capture-integrity.md): single use, short-lived, bound to one session and step.
 */
export const CaptureNonceSchema = defineEntity({
  name: 'CaptureNonce',
  tableName: 'capture_nonce',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sessionId: p.uuid(),
    nodeType: p.text(),
    purpose: p.enum(CAPTURE_NONCE_PURPOSES),
    /** The head turns a liveness challenge asks for, in order; null for a plain capture. */
    moves: p.json<string[]>().nullable(),
    issuedAt: p.datetime(),
    expiresAt: p.datetime(),
    /** When it was spent; a nonce is accepted once. */
    usedAt: p.datetime().nullable(),
  },
});
/** A capture nonce row. */
export type CaptureNonce = InferEntity<typeof CaptureNonceSchema>;
