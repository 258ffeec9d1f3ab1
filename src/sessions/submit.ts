/** Submitting a step's input: validation, the engine run outside any transaction, then the stored result and the decision under the session's row lock. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, SessionSchema, type Session } from '../../entities/session.entity.js';
import { type Principal } from '../auth/context.js';
import { resubmissionRequested } from '../domain/events.js';
import { acceptsInput } from '../domain/session-state.js';
import { type NodeType } from '../domain/types.js';
import { checkSandboxInput } from '../engines/sandbox/index.js';
import type { QuotaEngine } from '../limits/rate-limits.js';
import type { AmlScreeningInput } from '../engines/inputs.js';
import type { EngineContext } from '../engines/node-engine.js';
import { ApiError, validationError } from '../shared/errors.js';
import { transactionWithEvents } from '../events/outbox.js';
import type { Services } from '../services.js';
import {
  assertLinkedBasis,
  LINKED_STEP_ATTEMPTS,
  LinkedStepChangedError,
  linkedStepConflict,
  prepareLinkedAmlStep,
  screenSubmittedData,
} from './aml-subject.js';
import { parseNodeInput, type NodeInput } from './node-inputs.js';
import { type NodeResultRecord, type SessionRecord } from './session-record.js';
import { assertSandboxImagesDecode } from '../engines/sandbox/input-images.js';
import { statusAfterSubmission, SUBMITTABLE_NODE_STATUSES } from '../domain/resubmission.js';
import { loadPortrait } from './portrait.js';
import { transition } from './status-audit.js';
import { loadSession } from './read.js';
import { decide } from './decide.js';
import { assessCaptures, CAPTURE_STEPS, consumeNonces, parseCaptures, settleCaptures } from './capture-integrity.js';
import { checkActiveLiveness } from './active-liveness.js';
import { workflowOfSession } from '../workflows/revisions.js';
import { withoutFalsePositives } from './aml-dispositions.js';
import { keptResult } from '../engines/stored-details.js';

/** The engine quota a live step's run is charged to (src/limits/rate-limits.ts); the others are cheap. */
const QUOTA_ENGINE_OF_NODE: Partial<Record<NodeType, QuotaEngine>> = {
  document_verification: 'document',
  biometric_kyc: 'face',
  proof_of_address: 'poa',
};

/** Progress of a session as its end user sees it. */
export interface SessionProgress {
  session: Pick<SessionRecord, 'id' | 'status' | 'expiresAt'>;
  nodeResults: NodeResultRecord[];
}

/**
 * Runs one node of a session on the end user's input: validates it, runs the node's engine
 * (sandbox or live by the session's environment) outside any transaction, then stores the result
 * and lets the decision engine decide, under a row lock so concurrent submissions serialise. A
 * document or AML submission whose linked AML screen was overtaken by a concurrent submission of
 * the other step runs again (aml-subject.ts), a few times at most, then answers 409.
 */
export async function submitNodeInput(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
  nodeType: NodeType,
  rawInput: NodeInput,
): Promise<SessionProgress> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await submitNodeInputOnce(em, services, principal, sessionId, nodeType, rawInput);
    } catch (error) {
      if (!(error instanceof LinkedStepChangedError)) throw error;
      if (attempt >= LINKED_STEP_ATTEMPTS) throw linkedStepConflict();
    }
  }
}

/** One attempt of {@link submitNodeInput}. */
async function submitNodeInputOnce(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
  nodeType: NodeType,
  rawInput: unknown,
): Promise<SessionProgress> {
  const session = await loadSession(em, services, principal, sessionId);
  assertAcceptsInput(session);
  const workflow = await workflowOfSession(em, session);
  const node = workflow.nodes.find((candidate) => candidate.type === nodeType);
  if (!node)
    throw validationError([{ field: 'nodeType', code: 'not_in_workflow', message: `workflow ${workflow.id} has no ${nodeType} step` }]);
  const existing = await em.findOne(SessionNodeResultSchema, { sessionId: session.id, nodeType });
  if (existing && !SUBMITTABLE_NODE_STATUSES.includes(existing.status))
    throw new ApiError('conflict', `The ${nodeType} step is already complete (${existing.status}).`);

  // How the photos were made travels beside the step's input (capture-integrity.ts); the engines never see it.
  const { captures: rawCaptures, liveness: rawLiveness, ...stepInput } = rawInput as Record<string, unknown>;
  const input = parseNodeInput(nodeType, stepInput);
  const capturing = (CAPTURE_STEPS as readonly NodeType[]).includes(nodeType);
  const captureAssessment = capturing
    ? await assessCaptures(em, services, session, workflow, nodeType, parseCaptures(rawCaptures), input.imageBack ? 2 : 1)
    : null;
  if (session.environment === 'sandbox') {
    const tokenErrors = checkSandboxInput(nodeType, input);
    if (tokenErrors.length > 0) throw validationError(tokenErrors);
    await assertSandboxImagesDecode(nodeType, input as Record<string, unknown>);
  }
  // A workflow with active liveness checks the head-turn burst against its challenge (active-liveness.ts).
  const activeLiveness =
    nodeType === 'biometric_kyc' && workflow.liveness === 'active'
      ? await checkActiveLiveness(em, services, session, (input as { selfie: string }).selfie, rawLiveness)
      : null;
  const engine = services.engines.engineFor(session.environment, nodeType, node.provider);
  const live = session.environment === 'live';
  const quota = live ? QUOTA_ENGINE_OF_NODE[nodeType] : undefined;
  if (quota) await services.rateLimits.chargeEngine({ tenantId: session.tenant.id, environment: session.environment }, quota);
  const portrait = live && nodeType === 'biometric_kyc' ? await loadPortrait(em, services, session.id) : undefined;
  const context: EngineContext = {
    tenantId: session.tenant.id,
    sessionId: session.id,
    expectedDetails: session.expectedDetails ?? undefined,
    amlScoreThreshold: workflow.amlScoreThreshold,
    documentPortraitEmbedding: portrait?.embedding,
    documentPortraitCrop: portrait?.crop,
  };
  // With a document node, the AML node screens the document's identity, so the AML engine runs
  // for whichever of the two steps completes second (aml-subject.ts); planned outside the lock
  // from the other step's row as it stands, which is re-checked under the lock.
  const amlNode = workflow.nodes.find((candidate) => candidate.type === 'aml_screening');
  const linksAml =
    amlNode !== undefined &&
    (nodeType === 'aml_screening' || nodeType === 'document_verification') &&
    workflow.nodes.some((candidate) => candidate.type === 'document_verification');
  // The one case flip of a session step: the engine's camelCase details become the stored snake_case ones.
  const ownResult =
    nodeType !== 'aml_screening'
      ? keptResult(await engine.run(input, context))
      : linksAml
        ? null
        : await screenSubmittedData(engine, context, input as AmlScreeningInput);
  const linked = linksAml
    ? await prepareLinkedAmlStep({
        em,
        sessionId: session.id,
        nodeType: nodeType as 'aml_screening' | 'document_verification',
        amlInput: nodeType === 'aml_screening' ? (input as AmlScreeningInput) : undefined,
        documentResult: ownResult ?? undefined,
        amlEngine: services.engines.engineFor(session.environment, 'aml_screening', amlNode.provider),
        context,
      })
    : null;
  // A reviewer's standing false positive for the same person takes its hit out (aml-dispositions.ts).
  const scope = { tenantId: session.tenant.id, environment: session.environment };
  if (linked?.aml) linked.aml = await withoutFalsePositives(em, services.secrets, scope, linked.aml, workflow.amlScoreThreshold);
  const engineResult =
    ownResult && nodeType === 'aml_screening'
      ? await withoutFalsePositives(em, services.secrets, scope, ownResult, workflow.amlScoreThreshold)
      : (ownResult ?? linked!.aml!);
  const result = activeLiveness ? activeLiveness.apply(engineResult) : engineResult;
  // What the decision flow's plug-ins keep from the input (list subjects, evidence, the document portrait).
  const observed = await Promise.all(
    services.decisionHooks.inputObservers.map((observer) => observer(em, services, session, nodeType, input, workflow)),
  );

  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const locked = await tx.findOneOrFail(SessionSchema, { id: session.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    assertAcceptsInput(locked);
    // Read again under the session lock: a concurrent submission of this step may have just committed.
    const row = await tx.findOne(SessionNodeResultSchema, { sessionId: session.id, nodeType }, { refresh: true });
    if (row && !SUBMITTABLE_NODE_STATUSES.includes(row.status))
      throw new ApiError('conflict', `The ${nodeType} step is already complete (${row.status}).`);
    // A photo that could not be read asks for a retake while submissions are left (resubmission.ts).
    const attempts = (row?.attempts ?? 0) + 1;
    const outcome = statusAfterSubmission(result, attempts, workflow.maxAttempts);
    const retake = outcome.status === 'resubmission_requested';
    const counterpart = linked ? await assertLinkedBasis(tx, session.id, linked) : null;
    const captured = captureAssessment ? await settleCaptures(tx, captureAssessment) : null;
    const challengeId = activeLiveness?.nonceId;
    if (challengeId && !(await consumeNonces(tx, [challengeId])).has(challengeId))
      throw new ApiError('conflict', 'This liveness challenge was used by another submission: ask for a new one.');
    if (locked.status === 'pending') transition(tx, events, locked, 'in_progress', 'end_user', principal);
    const now = new Date();
    const stored = {
      status: outcome.status,
      resubmissionReason: outcome.resubmissionReason,
      // A reviewer's retake is answered by this submission: its code and note are spent.
      retakeReasonCode: null,
      retakeNote: null,
      attempts,
      provider: result.provider,
      warnings: captured ? [...result.warnings, ...captured.warnings] : result.warnings,
      details: captured ? { ...result.details, ...captured.details } : result.details,
      updatedAt: now,
    };
    if (row) Object.assign(row, stored);
    else tx.create(SessionNodeResultSchema, { sessionId: session.id, nodeType, required: node.required, createdAt: now, ...stored });
    // A document that completes while typed AML data awaits it brings the AML screen with it.
    if (nodeType === 'document_verification' && linked?.aml && counterpart && !retake) {
      const { status, provider, warnings, details } = linked.aml;
      Object.assign(counterpart, { status, provider, warnings, details, updatedAt: now });
    }
    // The status does not change (in_progress), but integrators who follow steps want to know.
    if (retake && outcome.resubmissionReason)
      events.record(tx, {
        tenantId: locked.tenant.id,
        environment: locked.environment,
        sessionId: session.id,
        ...resubmissionRequested(
          { id: session.id, workflowId: workflow.id, vendorData: locked.vendorData },
          { nodeType, resubmissionReason: outcome.resubmissionReason, attempts, maxAttempts: workflow.maxAttempts },
        ),
      });
    await tx.flush();
    for (const step of observed) await step?.(tx, { retake, now });
    await decide(tx, events, services, locked, workflow);
    await tx.flush();
    return {
      session: locked,
      nodeResults: await tx.find(SessionNodeResultSchema, { sessionId: session.id }, { orderBy: { createdAt: 'asc', nodeType: 'asc' } }),
    };
  });
}

/** Refuses input to a session that no longer takes it (domain rule: {@link acceptsInput}). */
export function assertAcceptsInput(session: Pick<Session, 'status'>): void {
  if (acceptsInput(session.status)) return;
  throw new ApiError('invalid_transition', `The session is ${session.status} and accepts no more input.`);
}
