import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Config } from '../config.js';
import type { NodeType } from '../domain/types.js';
import { ApiError } from '../errors.js';
import { createLiveAmlEngine, LIVE_AML_PROVIDER } from './aml/engine.js';
import type { AmlNameIndex } from './aml/name-index.js';
import { CPU_ENGINES } from './cpu-engines.js';
import { livePhoneEngineFactory, LIVE_PHONE_PROVIDER } from './phone/engine.js';
import { offloaded } from './pool/executor.js';
import { sandboxEngines } from './sandbox/index.js';
import type { EngineMode, NodeEngine } from './types.js';

/**
 * Live engines by provider name (`openkyc:<job>`). Each engine module registers itself here with
 * one line; a provider missing from this map has no real engine yet, and a live session that
 * needs it is refused with `provider_unavailable` rather than passed.
 */
export const LIVE_ENGINES: Partial<Record<string, NodeEngine>> = { ...CPU_ENGINES };

/** What live engines that need infrastructure are built with, once the database is open. */
export interface LiveEngineDependencies {
  /** A fresh EntityManager (a fork) for one engine run. */
  em(): EntityManager;
  /** Keys derived from the master key (e.g. one-time code digests). */
  secrets: ServiceSecrets;
  /** The validated configuration (e.g. the SMS provider). */
  config: Config;
  /** The service logger. */
  logger: Logger;
  /** In-memory index of the listed AML names, when enabled (AML_NAME_INDEX). */
  amlIndex?: AmlNameIndex | null;
}

/**
 * Live engines that need dependencies (a database, ...), by provider: `installLiveEngines` builds
 * them into LIVE_ENGINES at start-up. Such an engine module registers itself here with one line.
 */
export const LIVE_ENGINE_FACTORIES: Partial<Record<string, (dependencies: LiveEngineDependencies) => NodeEngine>> = {
  [LIVE_AML_PROVIDER]: (dependencies) => createLiveAmlEngine(dependencies),
  [LIVE_PHONE_PROVIDER]: (dependencies) => livePhoneEngineFactory(dependencies),
};

/** Builds every LIVE_ENGINE_FACTORIES engine into LIVE_ENGINES; the composition root calls it once the database is open. */
export function installLiveEngines(dependencies: LiveEngineDependencies): void {
  for (const [provider, factory] of Object.entries(LIVE_ENGINE_FACTORIES)) {
    if (factory) LIVE_ENGINES[provider] = factory(dependencies);
  }
}

/**
 * The engine that runs a workflow node: the sandbox engine for sandbox keys, the live provider
 * otherwise. A CPU-bound live engine (`CPU_ENGINES`) comes wrapped so that its run goes to the
 * engine executor (a worker thread or a worker process), off the API's event loop.
 */
export function engineFor(mode: EngineMode, nodeType: NodeType, provider: string): NodeEngine {
  if (mode === 'sandbox') return sandboxEngines[nodeType];
  const engine = LIVE_ENGINES[provider];
  if (!engine || engine.nodeType !== nodeType) {
    throw new ApiError(
      'provider_unavailable',
      `Provider ${provider} for ${nodeType} has no live engine on this server; use a sandbox key or another workflow.`,
    );
  }
  return CPU_ENGINES[provider] === engine ? offloaded(engine) : engine;
}

/** The providers of a workflow's nodes that no live engine on this server backs (checked when a live session is created). */
export function missingLiveProviders(nodes: readonly { type: NodeType; provider: string }[]): string[] {
  return nodes
    .filter((node) => !LIVE_ENGINES[node.provider] || LIVE_ENGINES[node.provider]?.nodeType !== node.type)
    .map((node) => node.provider);
}
