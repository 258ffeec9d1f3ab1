import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Config } from '../shared/config.js';
import type { NodeType } from '../domain/types.js';
import { ApiError } from '../shared/errors.js';
import { createLiveAmlEngine, LIVE_AML_PROVIDER } from './aml/engine.js';
import type { AmlNameIndex } from './aml/name-index.js';
import { CPU_ENGINE_NODES } from './cpu-engine-nodes.js';
import { livePhoneEngineFactory, LIVE_PHONE_PROVIDER } from './phone/engine.js';
import { offloaded, type EngineExecutor } from './pool/executor.js';
import { sandboxEngines } from './sandbox/index.js';
import type { EngineMode, NodeEngine } from './node-engine.js';

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
  /** Where this app's CPU-bound engine work runs (pool threads, worker processes, or inline). */
  executor: EngineExecutor;
}

/**
 * Live engines that need dependencies (a database, ...), by provider: `createEngineRegistry`
 * builds them for one app. Such an engine module registers itself here with one line; the
 * CPU-bound engines need none and are listed in `CPU_ENGINES`.
 */
export const LIVE_ENGINE_FACTORIES: Partial<Record<string, (dependencies: LiveEngineDependencies) => NodeEngine>> = {
  [LIVE_AML_PROVIDER]: (dependencies) => createLiveAmlEngine(dependencies),
  [LIVE_PHONE_PROVIDER]: (dependencies) => livePhoneEngineFactory(dependencies),
};

/** The engines of one running app (`Services.engines`): which engine runs a node, and which providers it lacks. */
export interface EngineRegistry {
  /**
   * The engine that runs a workflow node: the sandbox engine for sandbox keys, the live provider
   * otherwise (`provider_unavailable` when this server has none). A CPU-bound live engine
   * (`CPU_ENGINES`) comes wrapped so that its run goes to the engine executor (a worker thread or
   * a worker process), off the API's event loop.
   */
  engineFor(mode: EngineMode, nodeType: NodeType, provider: string): NodeEngine;
  /** The providers of a workflow's nodes that no live engine on this server backs (checked when a live session is created). */
  missingLiveProviders(nodes: readonly { type: NodeType; provider: string }[]): string[];
  /** Where this app's CPU-bound engine work runs: the live engines' runs and face analyses outside a step (portraits, list templates). */
  readonly executor: EngineExecutor;
  /**
   * The live engine of a provider as built (tests and diagnostics); undefined when none. A CPU
   * engine comes as its executor wrapper (same provider, node type and results): its module is
   * not loaded on the API's thread.
   */
  live(provider: string): NodeEngine | undefined;
}

/**
 * Builds the live engines of one app by provider (`openkyc:<job>`): the CPU engines and one
 * engine per LIVE_ENGINE_FACTORIES entry, over this app's database and secrets. A provider
 * missing here has no real engine yet, and a live session that needs it is refused with
 * `provider_unavailable` rather than passed.
 */
export function createEngineRegistry(dependencies: LiveEngineDependencies): EngineRegistry {
  const live = new Map<string, NodeEngine>();
  // The CPU engines by provider and node type only: their modules load where they run (CPU_ENGINE_NODES).
  for (const node of CPU_ENGINE_NODES) live.set(node.provider, offloaded(node, dependencies.executor));
  for (const [provider, factory] of Object.entries(LIVE_ENGINE_FACTORIES)) if (factory) live.set(provider, factory(dependencies));
  const backs = (provider: string, nodeType: NodeType) => live.get(provider)?.nodeType === nodeType;
  return {
    executor: dependencies.executor,
    engineFor(mode, nodeType, provider) {
      if (mode === 'sandbox') return sandboxEngines[nodeType];
      if (!backs(provider, nodeType)) {
        throw new ApiError(
          'provider_unavailable',
          `Provider ${provider} for ${nodeType} has no live engine on this server; use a sandbox key or another workflow.`,
        );
      }
      return live.get(provider)!;
    },
    missingLiveProviders(nodes) {
      return nodes.filter((node) => !backs(node.provider, node.type)).map((node) => node.provider);
    },
    live(provider) {
      return live.get(provider);
    },
  };
}
