/**
 * The deterministic sandbox provider used for sandbox API keys: one engine per node type, driven
 * by the magic values of `SANDBOX_CATALOGUE`.
 */
import type { NodeType } from '../../domain/types.js';
import type { NodeInputs } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { createSandboxAmlEngine } from './aml-sandbox.js';
import { createSandboxBiometricEngine } from './biometric.js';
import { createSandboxRegistryEngine } from './business-registry.js';
import { createSandboxDocumentEngine } from './document-sandbox.js';
import { createSandboxPhoneEngine } from './phone-sandbox.js';
import { createSandboxPoaEngine } from './proof-of-address.js';
import type { SandboxEngineOptions } from './shared.js';

export * from './catalogue.js';
export { renderSandboxDocs, SANDBOX_DOCS_PATH } from './docs.js';
export { createSandboxAmlEngine } from './aml-sandbox.js';
export { createSandboxBiometricEngine } from './biometric.js';
export { createSandboxRegistryEngine } from './business-registry.js';
export { createSandboxDocumentEngine } from './document-sandbox.js';
export { createSandboxPhoneEngine } from './phone-sandbox.js';
export { createSandboxPoaEngine } from './proof-of-address.js';
export type { SandboxEngineOptions } from './shared.js';

/** One engine per node type, each typed with its node's input. Assignable to `Record<NodeType, NodeEngine>`. */
export type SandboxEngines = { [T in NodeType]: NodeEngine<NodeInputs[T]> };

/** Builds the sandbox engines; pass `now` to pin the dates the sandbox invents. */
export function createSandboxEngines(options: SandboxEngineOptions = {}): SandboxEngines {
  return {
    document_verification: createSandboxDocumentEngine(options),
    biometric_kyc: createSandboxBiometricEngine(),
    aml_screening: createSandboxAmlEngine(),
    phone_verification: createSandboxPhoneEngine(),
    proof_of_address: createSandboxPoaEngine(options),
    business_registry: createSandboxRegistryEngine(),
  };
}

/** The sandbox engines on the real clock, as the server uses them for sandbox keys. */
export const sandboxEngines: Record<NodeType, NodeEngine> = createSandboxEngines();
