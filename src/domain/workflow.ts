/**
 * Workflow vocabulary every layer shares: the node catalogue (node types and the providers that
 * run them) and the default AML threshold (the default attempts live in resubmission.ts, beside
 * their rule). Plain data: src/workflows composes and stores workflows from it, the engines name
 * their providers from it, the verdict reads the threshold.
 */
import type { NodeType } from './types.js';

/** Default AML score (0–100) at or above which a session auto-declines (spec Limits). */
export const DEFAULT_AML_SCORE_THRESHOLD = 80;

/** What the service knows about one node type: the providers that can run it. */
export interface NodeTypeEntry {
  /** One-line description for clients and the OpenAPI document. */
  description: string;
  /** Providers (`<provider_name>:<job>`) a workflow may name for this node type. */
  providers: readonly string[];
  /** The deterministic provider that replaces any of them for sandbox keys. */
  sandboxProvider: string;
}

/** The registry of node types and providers that workflow composition is validated against. */
export const NODE_CATALOGUE: Record<NodeType, NodeTypeEntry> = {
  document_verification: {
    description: 'ID document: image quality, MRZ reading and check digits, expiry, optional NFC.',
    providers: ['openkyc:mrz_ocr'],
    sandboxProvider: 'sandbox:document',
  },
  biometric_kyc: {
    description: 'Selfie to document portrait match, with liveness where the model gives a signal.',
    providers: ['openkyc:face_match'],
    sandboxProvider: 'sandbox:face_match',
  },
  aml_screening: {
    description: 'Sanctions, PEP and adverse-media screening.',
    providers: ['openkyc:aml_screen'],
    sandboxProvider: 'sandbox:aml_screen',
  },
  phone_verification: {
    description: 'Phone ownership through a one-time code.',
    providers: ['openkyc:sms_otp'],
    sandboxProvider: 'sandbox:sms_otp',
  },
  proof_of_address: {
    description: 'Proof-of-address document: extraction, name match, freshness, address check, tamper score.',
    providers: ['openkyc:poa_ocr'],
    sandboxProvider: 'sandbox:poa',
  },
  business_registry: {
    description: 'Company registration lookup.',
    providers: ['openkyc:registry_lookup'],
    sandboxProvider: 'sandbox:registry',
  },
};

/** Shape every provider name must have. */
export const PROVIDER_PATTERN = /^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$/;
