/** Validating a session step's input: the schemas are src/shared/node-input-schemas.ts, the engines read what they output. */
import type { z } from 'zod';
import type { NodeType } from '../domain/types.js';
import type { NodeInputs } from '../engines/inputs.js';
import { definedFields } from '../shared/input-rules.js';
import { NODE_INPUT_SCHEMAS } from '../shared/node-input-schemas.js';
import { parseOrThrow } from '../shared/validation.js';

/** What submitNodeInput accepts for a node type before validation: GraphQL's step input as is. */
export type NodeInput = z.input<(typeof NODE_INPUT_SCHEMAS)[NodeType]>;

/**
 * Validates a node's input and returns it as the engines read it: the caller's camelCase fields,
 * without the fields not given (nor those of `nfc`).
 */
export function parseNodeInput(nodeType: NodeType, input: unknown): NodeInputs[NodeType] & Record<string, unknown> {
  const valid = parseOrThrow(NODE_INPUT_SCHEMAS[nodeType], input) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(definedFields(valid)).map(([field, value]) => [field, field === 'nfc' ? definedFields(value as object) : value]),
  ) as NodeInputs[NodeType] & Record<string, unknown>;
}
