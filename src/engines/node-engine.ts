import type { NodeResult, NodeType } from '../domain/types.js';

/** Which family of providers runs a node: the real engines for live keys, the deterministic sandbox for sandbox keys. */
export type EngineMode = 'live' | 'sandbox';

/**
 * One provider job for one node type. Engines are plain modules: they take the node's input
 * (already validated against the node's input schema) and return a node result without
 * touching sessions or workflows; persistence is the caller's business.
 */
export interface NodeEngine<Input = unknown> {
  /** `<provider_name>:<job>`, as it appears in workflow nodes. */
  provider: string;
  /** The node type this engine serves. */
  nodeType: NodeType;
  /** Runs the check. `required` is copied into the result by the caller. */
  run(input: Input, context: EngineContext): Promise<Omit<NodeResult, 'required'>>;
}

/** What an engine may know about the session it runs for. */
export interface EngineContext {
  tenantId: string;
  sessionId: string;
  /** Expected details given at session creation (names, date of birth, country), for mismatch warnings. */
  expectedDetails?: {
    first_name?: string;
    last_name?: string;
    date_of_birth?: string;
    country?: string;
  };
  /** The AML score threshold of the workflow (0–100); scores at or above it decline. */
  amlScoreThreshold: number;
  /**
   * Image bytes (JPEG, PNG or WebP) holding the portrait of the session's ID document, for
   * `biometric_kyc`: the cropped portrait or the whole document front (the largest face is
   * used). Absent when the session has no verified document yet.
   */
  documentPortrait?: Buffer;
  /** L2-normalised face embedding of the document portrait, kept from the document step (preferred over `documentPortrait`). */
  documentPortraitEmbedding?: number[];
  /** The document portrait's aligned, normalised face crop (aligned-crop.ts), kept from the document step beside the embedding: the image-level replay signal. */
  documentPortraitCrop?: number[];
}
