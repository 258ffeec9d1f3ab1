/** The sandbox catalogue as test cases: a happy-path input per node type and every magic value, shared by the sandbox and stored-details tests. */
import { NODE_TYPES, type NodeType } from '../../src/domain/types.js';
import type { NodeInputs } from '../../src/engines/inputs.js';
import { SANDBOX_CATALOGUE, type SandboxNodeCatalogue } from '../../src/engines/sandbox/index.js';
import type { EngineContext } from '../../src/engines/node-engine.js';

/** The pinned clock of the sandbox's invented dates. */
export const NOW = new Date('2025-06-15T12:00:00Z');
/** The engine context of every case. */
export const CONTEXT: EngineContext = { tenantId: 'tenant-1', sessionId: 'session-1', amlScoreThreshold: 80 };
/** The smallest JPEG data URI the sandbox accepts. */
export const JPEG = 'data:image/jpeg;base64,/9j/4AAQSkZJRg==';

/** A valid happy-path input per node type; each case puts its magic value in the catalogue's field. */
export const BASE_INPUTS: NodeInputs = {
  document_verification: { country: 'FR', idType: 'PASSPORT', imageFront: JPEG },
  biometric_kyc: { selfie: JPEG },
  aml_screening: { fullName: 'Ada Lovelace' },
  phone_verification: { phone: '+33612345678', code: '000000' },
  proof_of_address: { documentImage: JPEG },
  business_registry: { companyName: 'Acme SAS', registrationNumber: '552100554', country: 'FR' },
};

/** The happy-path input of `nodeType` with `fieldValue` in its catalogue field. */
export function inputWith<T extends NodeType>(nodeType: T, fieldValue: string): NodeInputs[T] {
  const field = SANDBOX_CATALOGUE[nodeType].inputField;
  return { ...BASE_INPUTS[nodeType], [field]: fieldValue };
}

/** The catalogue of one node type, its effect type erased. */
export const catalogueOf = (nodeType: NodeType) => SANDBOX_CATALOGUE[nodeType] as SandboxNodeCatalogue<unknown>;

/** Every listed value of every node type, plus the value standing for "otherwise". */
export const CATALOGUE_CASES = NODE_TYPES.flatMap((nodeType) => {
  const node = catalogueOf(nodeType);
  const listed = node.values.map((entry) => ({
    nodeType,
    // Names match by containment, so the magic name is embedded in a longer one.
    value: node.matching === 'name_contains' ? `Dr ${entry.value} Junior` : entry.value,
    outcome: entry,
  }));
  const otherwiseValue = String((BASE_INPUTS[nodeType] as unknown as Record<string, string>)[node.field]);
  const fallback = nodeType === 'phone_verification' ? '424242' : otherwiseValue;
  return [...listed, { nodeType, value: fallback, outcome: node.otherwise }];
});
