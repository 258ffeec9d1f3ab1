/**
 * The one path of a standalone check (`POST /v1/id-verification`, `/v1/poa`, `/v1/aml` and their
 * GraphQL mutations): the engine the app's registry gives the key's environment (the sandbox
 * engine for sandbox keys, the live provider otherwise, exactly as a session step gets it), the
 * sandbox input rules a session step applies, and the result kept in `check_run` for the
 * tenant's audit. Each check's schema and result shaping live beside this file
 * (`src/checks/{document,poa,aml}-check.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckRunSchema, type CheckKind } from '../../entities/check-run.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { TenantScope } from '../auth/context.js';
import { validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { DEFAULT_AML_SCORE_THRESHOLD, NODE_CATALOGUE } from '../domain/workflow.js';
import { checkSandboxInput } from '../engines/sandbox/index.js';
import { assertSandboxImagesDecode } from '../engines/sandbox/input-images.js';
import type { EngineContext, NodeEngine } from '../engines/node-engine.js';

/** The node types that also run as a standalone check, and the `check_run` kind each is kept as. */
export const STANDALONE_CHECK_KINDS = {
  document_verification: 'id_verification',
  proof_of_address: 'poa',
  aml_screening: 'aml',
} as const satisfies Record<string, CheckKind>;

/** A node type that runs as a standalone check. */
export type StandaloneNodeType = keyof typeof STANDALONE_CHECK_KINDS;

/** What a check makes of its engine: the API result and what `check_run` keeps of it. */
export interface StandaloneOutcome<Result> {
  /** The check's status, as `check_run` keeps it. */
  status: string;
  /** The API result; its id is the `id` the check was given. */
  result: Result;
  /** What `check_run` keeps of the result (never images or documents). */
  stored: Record<string, unknown>;
  /** The caller's metadata, kept beside the result. */
  metadata?: Record<string, unknown> | null;
}

/**
 * Runs a standalone check of `nodeType` on `input` (already validated by the check's schema) for
 * the key's tenant and environment, and keeps what `run` makes of it. `run` gets the engine the
 * registry chose, a context without a session (the default AML threshold, as a check has no
 * workflow) and the id of the stored check; it may throw a 4xx, and then nothing is kept.
 */
export async function runStandaloneCheck<Input, Result>(
  em: EntityManager,
  services: Services,
  principal: TenantScope,
  nodeType: StandaloneNodeType,
  input: Input,
  run: (engine: NodeEngine<Input>, context: EngineContext, id: string) => Promise<StandaloneOutcome<Result>>,
): Promise<Result> {
  if (principal.environment === 'sandbox') {
    // Sandbox keys take a token or a real image, checked as a session step checks them.
    const tokenErrors = checkSandboxInput(nodeType, input);
    if (tokenErrors.length > 0) throw validationError(tokenErrors);
    await assertSandboxImagesDecode(nodeType, input as Record<string, unknown>);
  }
  const engine = services.engines.engineFor(principal.environment, nodeType, NODE_CATALOGUE[nodeType].providers[0]) as NodeEngine<Input>;
  const id = randomUUID();
  const context: EngineContext = { tenantId: principal.tenantId, sessionId: '', amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD };
  const outcome = await run(engine, context, id);
  em.create(CheckRunSchema, {
    id,
    tenant: em.getReference(TenantSchema, principal.tenantId),
    environment: principal.environment,
    kind: STANDALONE_CHECK_KINDS[nodeType],
    status: outcome.status,
    result: outcome.stored,
    metadata: outcome.metadata ?? null,
    createdAt: new Date(),
  });
  await em.flush();
  return outcome.result;
}
