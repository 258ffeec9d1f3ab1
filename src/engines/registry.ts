import type { NodeType } from '../domain/types.js';
import { ApiError } from '../errors.js';
import { NODE_CATALOGUE } from '../workflows/node-catalogue.js';
import { sandboxEngines } from './sandbox/index.js';
import type { EngineMode, NodeEngine } from './types.js';

/**
 * Live engines by provider name (`openkyc:<job>`). Each engine module registers itself here with
 * one line; a provider missing from this map has no real engine yet, and a live session that
 * needs it is refused with `provider_unavailable` rather than passed.
 */
export const LIVE_ENGINES: Partial<Record<string, NodeEngine>> = {};

/** The engine that runs a workflow node: the sandbox engine for sandbox keys, the live provider otherwise. */
export function engineFor(mode: EngineMode, nodeType: NodeType, provider: string): NodeEngine {
  if (mode === 'sandbox') return sandboxEngines[nodeType];
  const engine = LIVE_ENGINES[provider];
  if (!engine || engine.nodeType !== nodeType) {
    throw new ApiError(
      'provider_unavailable',
      `Provider ${provider} for ${nodeType} has no live engine on this server; use a sandbox key or another workflow.`,
    );
  }
  return engine;
}

/** True when every node of a workflow can run in the given mode (checked when a session is created). */
export function missingLiveProviders(nodes: readonly { type: NodeType; provider: string }[]): string[] {
  return nodes
    .filter((node) => !LIVE_ENGINES[node.provider] || LIVE_ENGINES[node.provider]?.nodeType !== node.type)
    .map((node) => node.provider);
}

/** Every provider a node type accepts, with whether a live engine backs it (for docs and clients). */
export function providerAvailability(): { nodeType: NodeType; provider: string; live: boolean }[] {
  return (Object.keys(NODE_CATALOGUE) as NodeType[]).flatMap((nodeType) =>
    NODE_CATALOGUE[nodeType].providers.map((provider) => ({ nodeType, provider, live: LIVE_ENGINES[provider] !== undefined })),
  );
}
