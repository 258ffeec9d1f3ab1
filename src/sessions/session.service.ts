import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  SessionNodeResultSchema,
  SessionSchema,
  SessionStatusChangeSchema,
  type Session,
  type SessionNodeResult,
} from '../../entities/session.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { WorkflowSchema, type Workflow } from '../../entities/workflow.entity.js';
import { auditIdentityOf, type TenantPrincipal, type Principal } from '../auth/context.js';
import type { Config } from '../config.js';
import {
  acceptsInput,
  ACTIVE_STATUSES_SQL,
  assertTransition,
  INPUT_STATUSES_SQL,
  InvalidTransitionError,
  isPastExpiry,
  type TransitionActor,
} from '../domain/session-state.js';
import { type NodeResult, type NodeType, type SessionStatus } from '../domain/types.js';
import { decideVerdict } from '../domain/verdict.js';
import { hotQuery } from '../db/native.js';
import { approve } from './approval.js';
import { insertSession } from './create-batch.js';
import { checkSandboxInput } from '../engines/sandbox/index.js';
import type { QuotaEngine } from '../limits/rate-limits.js';
import { pendingDecision } from './decision.js';
import type { AmlScreeningInput } from '../engines/inputs.js';
import type { EngineContext } from '../engines/types.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { camelFieldName, isUuid, withRenamedFields } from '../input-rules.js';
import { transactionWithEvents, type EventBatch, type EventBus } from '../events/outbox.js';
import type { Services } from '../services.js';
import { unixSeconds } from '../time.js';
import { assertPageSize, decodeKeysetCursor, olderThan } from '../pagination.js';
import { parseOrThrow } from '../validation.js';
import {
  assertLinkedBasis,
  LINKED_STEP_ATTEMPTS,
  LinkedStepChangedError,
  linkedStepConflict,
  prepareLinkedAmlStep,
  screenSubmittedData,
} from './aml-subject.js';
import { parseNodeInput, type NodeInput } from './node-inputs.js';
import { revokeTokens } from './service-tokens.js';
import { CreateSessionInputSchema, storedExpectedDetails, type CreateSessionInput } from './session-input.js';
import {
  readSessionWithResults,
  SESSION_COLUMNS,
  sessionRecordFromRow,
  type NodeResultRecord,
  type SessionRecord,
  type SessionRow,
  type SessionWithResults,
} from './session-record.js';
import { webhookUrlProblem } from '../webhooks/ssrf.js';
import { assertSandboxImagesDecode } from '../engines/sandbox/input-images.js';
import { statusAfterSubmission, SUBMITTABLE_NODE_STATUSES } from '../domain/resubmission.js';
import { checkRedirectUrl } from '../tenants/flow-settings.js';
import { loadPortrait } from './portrait.js';
import { settleClaimForReview } from '../operators/claims.js';

/** Who changed a status, for the audit log: the state machine's actors plus creation and import. */
export type AuditActor = TransitionActor | 'api' | 'import';

/** The end-user URL of a session: `{PUBLIC_URL}/verify/{id}?token=…`. */
export function sessionUrl(config: Config, services: Services, baseUrl: string, sessionId: string): string {
  const base = (config.PUBLIC_URL ?? baseUrl).replace(/\/$/, '');
  return `${base}/verify/${sessionId}?token=${services.secrets.sessionLinkToken(sessionId)}`;
}

/** Records one audited status change and its `session.status_changed` event in the current transaction. */
export function recordStatusChange(
  tx: EntityManager,
  events: EventBatch,
  session: Pick<Session, 'id' | 'workflow' | 'vendorData' | 'environment'> & { tenantId: string },
  from: SessionStatus | null,
  to: SessionStatus,
  actor: AuditActor,
  /** Whose request made the change, for the audit columns; null when the service itself did. */
  by: Principal | null,
  reason: string | null,
): void {
  const at = new Date();
  const who = auditIdentityOf(by);
  tx.create(SessionStatusChangeSchema, {
    id: randomUUID(),
    sessionId: session.id,
    tenantId: session.tenantId,
    fromStatus: from,
    toStatus: to,
    actor,
    actorKeyId: who.keyId,
    actorOperatorId: who.operatorId,
    actorName: who.name,
    reason,
    createdAt: at,
  });
  events.record(tx, {
    tenantId: session.tenantId,
    environment: session.environment,
    type: 'session.status_changed',
    sessionId: session.id,
    payload: statusChangedPayload(
      { id: session.id, workflowId: session.workflow.id, vendorData: session.vendorData, environment: session.environment },
      from,
      to,
      actor,
      reason,
      at,
    ),
  });
}

/** The payload of a `session.status_changed` event. */
function statusChangedPayload(
  session: Pick<SessionRecord, 'id' | 'workflowId' | 'vendorData' | 'environment'>,
  from: SessionStatus | null,
  to: SessionStatus,
  actor: AuditActor,
  reason: string | null,
  at: Date,
): Record<string, unknown> {
  return {
    session_id: session.id,
    status: to,
    previous_status: from,
    workflow_id: session.workflowId,
    vendor_data: session.vendorData,
    environment: session.environment,
    actor,
    ...(reason ? { reason } : {}),
    changed_at: unixSeconds(at),
  };
}

/** Moves a session to a new status through the state machine, auditing it; throws 409 when not allowed. */
function transition(
  tx: EntityManager,
  events: EventBatch,
  session: Session,
  to: SessionStatus,
  actor: TransitionActor,
  by: Principal | null,
  reason: string | null = null,
): void {
  try {
    assertTransition(session.status, to, actor, reason);
  } catch (error) {
    if (error instanceof InvalidTransitionError) throw new ApiError('invalid_transition', error.message);
    throw error;
  }
  const from = session.status;
  session.status = to;
  session.updatedAt = new Date();
  recordStatusChange(tx, events, { ...session, tenantId: session.tenant.id }, from, to, actor, by, reason);
}

/** Expires, in the transaction, the pending or in-progress sessions matching `where` whose time is up. */
async function expireDue(tx: EntityManager, events: EventBatch, where: { sql: string; params: unknown[] }, limit = 1000): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(
    `select id from session
      where ${INPUT_STATUSES_SQL} and expires_at <= now() and ${where.sql}
      order by expires_at limit ${limit} for update skip locked`,
    where.params,
  );
  if (rows.length === 0) return 0;
  const sessions = await tx.find(SessionSchema, { id: { $in: rows.map((row) => row.id) } });
  for (const session of sessions) transition(tx, events, session, 'expired', 'expiry', null, 'expires_at passed');
  await tx.flush();
  return sessions.length;
}

/** Result of creating a session: the session and whether an active one was returned instead. */
export interface CreateSessionResult {
  session: SessionRecord;
  idempotentReuse: boolean;
}

/** The active session holding a (tenant, environment, workflow, vendor_data) slot. */
const ACTIVE_SESSION_SQL = `select ${SESSION_COLUMNS} from session
  where tenant_id = $1 and environment = $2 and workflow_id = $3 and vendor_data = $4 and ${ACTIVE_STATUSES_SQL}`;

/** How often a create retries after finding the active session it collided with gone or expired. */
const CREATE_ATTEMPTS = 3;

/**
 * Starts a session, or returns the active one with the same (tenant, environment, workflow,
 * vendor_data). Concurrent identical creates race on a partial unique index, so exactly one row
 * is inserted; sessions past `expires_at` are expired first and never reused. A new session is
 * one statement, shared with the creates that queued meanwhile (create-batch.ts); only a
 * collision costs more.
 */
export async function createSession(
  em: EntityManager,
  services: Services,
  config: Config,
  principal: TenantPrincipal,
  rawInput: CreateSessionInput,
): Promise<CreateSessionResult> {
  const input = parseOrThrow(CreateSessionInputSchema, rawInput);
  // The callback receives the decision and the service token: the same rules as a webhook destination.
  const callbackProblem = input.callback === undefined ? null : webhookUrlProblem(input.callback, config.DEV_ALLOW_LOOPBACK_WEBHOOKS);
  if (callbackProblem)
    throw validationError([{ field: 'callback', code: 'invalid', message: callbackProblem.replace(/^url /, 'callback ') }]);
  const redirectUrl = input.redirectUrl === undefined ? null : await checkRedirectUrl(em, principal, input.redirectUrl);
  const workflow = await services.workflows.forSession(em, principal, input.workflowId);
  if (principal.environment === 'live') {
    const missing = services.engines.missingLiveProviders(workflow.nodes);
    if (missing.length > 0) {
      throw new ApiError(
        'provider_unavailable',
        `This server has no live engine for ${missing.join(', ')}; use a sandbox key or a workflow without these nodes.`,
      );
    }
  }
  const key = [principal.tenantId, principal.environment, workflow.id, input.vendorData];
  const nodes = workflow.nodes.map((node) => ({ type: node.type, required: node.required, provider: node.provider }));
  const who = auditIdentityOf(principal);
  for (let attempt = 1; ; attempt += 1) {
    const id = randomUUID();
    const changedAt = new Date();
    const event = {
      id: randomUUID(),
      tenantId: principal.tenantId,
      environment: principal.environment,
      type: 'session.status_changed' as const,
      sessionId: id,
      payload: statusChangedPayload(
        { id, workflowId: workflow.id, vendorData: input.vendorData, environment: principal.environment },
        null,
        'pending',
        'api',
        null,
        changedAt,
      ),
      createdAt: changedAt,
    };
    const row = await insertSession(em, {
      id,
      tenant_id: principal.tenantId,
      environment: principal.environment,
      workflow_id: workflow.id,
      vendor_data: input.vendorData,
      callback: input.callback ?? null,
      redirect_url: redirectUrl,
      language: input.language ?? null,
      metadata: input.metadata ?? null,
      contact_details: input.contactDetails ?? null,
      expected_details: storedExpectedDetails(input.expectedDetails),
      key_id: who.keyId,
      operator_id: who.operatorId,
      actor_name: who.name,
      ttl_seconds: config.SESSION_TTL_SECONDS,
      nodes,
      audit_id: randomUUID(),
      changed_at: changedAt.toISOString(),
      event_id: event.id,
      payload: event.payload,
      snapshot:
        services.bus.snapshotter?.seal(
          pendingDecision({ id, workflowId: workflow.id, vendorData: input.vendorData, metadata: input.metadata ?? null }, nodes),
        ) ?? null,
    });
    if (row) {
      services.bus.publishEvents([{ ...event, seq: Number(row.event_seq), webhooksDone: row.webhooks_done }]);
      return { session: sessionRecordFromRow(row), idempotentReuse: false };
    }
    const [active] = await hotQuery<SessionRow>(em, 'session_active', ACTIVE_SESSION_SQL, key);
    const existing = active ? sessionRecordFromRow(active) : null;
    const due = existing !== null && isPastExpiry(existing);
    if (existing && !due) return { session: existing, idempotentReuse: true };
    if (attempt >= CREATE_ATTEMPTS) throw new ApiError('conflict', 'The session was changed concurrently; retry the request.');
    // The active session's time is up (expire it, never reuse it) or it just left the active states: insert again.
    if (due) {
      await transactionWithEvents(em, services.bus, (tx, events) =>
        expireDue(tx, events, { sql: 'tenant_id = ? and environment = ? and workflow_id = ? and vendor_data = ?', params: key }),
      );
    }
  }
}

/** Reads a session and its node results for presentation, expiring it first when its time is up; 404 otherwise. */
export async function readSession(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
): Promise<SessionWithResults> {
  if (!isUuid(sessionId)) throw notFound('Session');
  const found = await readSessionWithResults(em, sessionId);
  if (!found || !isVisible(services, principal, found.session)) throw notFound('Session');
  if (isPastExpiry(found.session)) {
    await transactionWithEvents(em, services.bus, (tx, events) => expireDue(tx, events, { sql: 'id = ?', params: [sessionId] }));
    return (await readSessionWithResults(em, sessionId))!;
  }
  return found;
}

/**
 * Whether a principal may see a session: its tenant's key (or operator) of the same environment, or its
 * end-user token until the session's `expires_at`. The token is an HMAC of the id that cannot be
 * revoked, so its session's lifetime is its own: afterwards it is answered as an invalid token.
 */
function isVisible(
  services: Services,
  principal: Principal,
  session: Pick<SessionRecord, 'id' | 'tenantId' | 'environment' | 'expiresAt'>,
): boolean {
  if (principal.kind !== 'end_user') return session.tenantId === principal.tenantId && session.environment === principal.environment;
  return session.expiresAt.getTime() > Date.now() && services.secrets.verifySessionLinkToken(session.id, principal.token);
}

/** Shape of a session id; anything else is not found without a query. */

/** Loads a session the principal may see, expiring it first when its time is up; 404 otherwise. */
export async function loadSession(em: EntityManager, services: Services, principal: Principal, sessionId: string): Promise<Session> {
  if (!isUuid(sessionId)) throw notFound('Session');
  const session = await em.findOne(SessionSchema, { id: sessionId });
  if (
    !session ||
    !isVisible(services, principal, {
      id: session.id,
      tenantId: session.tenant.id,
      environment: session.environment,
      expiresAt: session.expiresAt,
    })
  )
    throw notFound('Session');
  if (isPastExpiry(session)) {
    await transactionWithEvents(em, services.bus, (tx, events) => expireDue(tx, events, { sql: 'id = ?', params: [session.id] }));
    await em.refresh(session);
  }
  return session;
}

/** Filters of the session listing. */
export interface SessionFilter {
  statuses?: SessionStatus[];
  workflowId?: string;
  vendorData?: string;
  /** Inclusive lower bound of `created_at`. */
  createdAfter?: Date;
  /** Exclusive upper bound of `created_at`. */
  createdBefore?: Date;
}

/** Most sessions one page may hold. */
export const SESSIONS_PAGE_MAX = 100;
/** Page size when none is asked for. */
export const SESSIONS_PAGE_DEFAULT = 20;

/** A page of sessions, newest first, with stable ordering by (created_at, id). */
export async function listSessions(
  em: EntityManager,
  principal: TenantPrincipal,
  filter: SessionFilter,
  page: { first?: number; after?: string },
): Promise<{ sessions: Session[]; hasNextPage: boolean }> {
  const first = page.first ?? SESSIONS_PAGE_DEFAULT;
  assertPageSize(first, SESSIONS_PAGE_MAX, 'first');
  const where: Record<string, unknown>[] = [{ tenant: principal.tenantId, environment: principal.environment }];
  if (filter.statuses?.length) where.push({ status: { $in: filter.statuses } });
  if (filter.workflowId) where.push({ workflow: filter.workflowId });
  if (filter.vendorData) where.push({ vendorData: filter.vendorData });
  if (filter.createdAfter) where.push({ createdAt: { $gte: filter.createdAfter } });
  if (filter.createdBefore) where.push({ createdAt: { $lt: filter.createdBefore } });
  if (page.after) where.push(olderThan(decodeKeysetCursor(page.after, 'after')));
  const rows = await em.find(SessionSchema, { $and: where } as never, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: first + 1 });
  return { sessions: rows.slice(0, first), hasNextPage: rows.length > first };
}

/** Node results keyed by node type, as the verdict engine reads them. */
function resultsByType(rows: SessionNodeResult[]): Partial<Record<NodeType, NodeResult>> {
  return Object.fromEntries(
    rows.map((row) => [
      row.nodeType,
      { status: row.status, required: row.required, provider: row.provider, warnings: row.warnings, details: row.details },
    ]),
  );
}

/** Runs the verdict for a session inside a transaction and applies it when it is decisive. */
async function decide(tx: EntityManager, events: EventBatch, services: Services, session: Session, workflow: Workflow): Promise<void> {
  const rows = await tx.find(SessionNodeResultSchema, { sessionId: session.id });
  const nodeResults = resultsByType(rows);
  const listHits = (await Promise.all(services.decisionHooks.listGates.map((gate) => gate(tx, session, nodeResults)))).flat();
  const amlScore =
    typeof nodeResults.aml_screening?.details?.score === 'number' ? (nodeResults.aml_screening.details.score as number) : null;
  session.amlScore = amlScore === null ? null : Math.round(amlScore);
  session.warnings = rows.flatMap((row) => row.warnings);
  const verdict = decideVerdict({
    workflow: { nodes: workflow.nodes, complianceLevel: workflow.complianceLevel, amlScoreThreshold: workflow.amlScoreThreshold },
    nodeResults,
    listHits,
    amlScore,
    sessionWarnings: [],
  });
  session.reasons = verdict.reasons;
  if (verdict.status === null || session.status !== 'in_progress') return;
  transition(tx, events, session, verdict.status, 'decision_engine', null);
  session.decidedAt = new Date();
  if (verdict.status === 'approved') await approve(tx, services, session, workflow);
}

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
      // Engines and sandbox checks name the spec's snake_case fields; the caller wrote camelCase.
      if (!(error instanceof LinkedStepChangedError)) throw withRenamedFields(error, camelFieldName);
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
  const workflow = await session.workflow.loadOrFail();
  const node = workflow.nodes.find((candidate) => candidate.type === nodeType);
  if (!node)
    throw validationError([{ field: 'node_type', code: 'not_in_workflow', message: `workflow ${workflow.id} has no ${nodeType} step` }]);
  const existing = await em.findOne(SessionNodeResultSchema, { sessionId: session.id, nodeType });
  if (existing && !SUBMITTABLE_NODE_STATUSES.includes(existing.status))
    throw new ApiError('conflict', `The ${nodeType} step is already complete (${existing.status}).`);

  const input = parseNodeInput(nodeType, rawInput);
  if (session.environment === 'sandbox') {
    const tokenErrors = checkSandboxInput(nodeType, input);
    if (tokenErrors.length > 0) throw validationError(tokenErrors);
    await assertSandboxImagesDecode(nodeType, input as Record<string, unknown>);
  }
  const engine = services.engines.engineFor(session.environment, nodeType, node.provider);
  const live = session.environment === 'live';
  const quota = live ? QUOTA_ENGINE_OF_NODE[nodeType] : undefined;
  if (quota) await services.rateLimits.chargeEngine({ tenantId: session.tenant.id, environment: session.environment }, quota);
  const context: EngineContext = {
    tenantId: session.tenant.id,
    sessionId: session.id,
    expectedDetails: session.expectedDetails ?? undefined,
    amlScoreThreshold: workflow.amlScoreThreshold,
    documentPortraitEmbedding: live && nodeType === 'biometric_kyc' ? await loadPortrait(em, services, session.id) : undefined,
  };
  // With a document node, the AML node screens the document's identity, so the AML engine runs
  // for whichever of the two steps completes second (aml-subject.ts); planned outside the lock
  // from the other step's row as it stands, which is re-checked under the lock.
  const amlNode = workflow.nodes.find((candidate) => candidate.type === 'aml_screening');
  const linksAml =
    amlNode !== undefined &&
    (nodeType === 'aml_screening' || nodeType === 'document_verification') &&
    workflow.nodes.some((candidate) => candidate.type === 'document_verification');
  const ownResult =
    nodeType !== 'aml_screening'
      ? await engine.run(input, context)
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
  const result = ownResult ?? linked!.aml!;
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
    if (locked.status === 'pending') transition(tx, events, locked, 'in_progress', 'end_user', principal);
    const now = new Date();
    const stored = {
      status: outcome.status,
      resubmissionReason: outcome.resubmissionReason,
      attempts,
      provider: result.provider,
      warnings: result.warnings,
      details: result.details,
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
    if (retake)
      events.record(tx, {
        tenantId: locked.tenant.id,
        environment: locked.environment,
        type: 'session.resubmission_requested',
        sessionId: session.id,
        payload: {
          session_id: session.id,
          workflow_id: workflow.id,
          vendor_data: locked.vendorData,
          node_type: nodeType,
          resubmission_reason: outcome.resubmissionReason,
          attempts,
          attempts_remaining: Math.max(0, workflow.maxAttempts - attempts),
        },
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

/** A reviewer's verdict on an in-review session. */
export type ReviewDecision = 'approved' | 'declined';

/** Decides an in_review session by hand, with a mandatory reason, audited with the reviewer's key or the operator's name. */
export async function reviewSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  decision: ReviewDecision,
  reason: string,
): Promise<Session> {
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  if (!trimmed) throw validationError([{ field: 'reason', code: 'required', message: 'a review needs a reason' }]);
  if (decision !== 'approved' && decision !== 'declined') {
    throw validationError([{ field: 'decision', code: 'invalid', message: 'decision must be approved or declined' }]);
  }
  await loadSession(em, services, principal, sessionId);
  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const session = await tx.findOneOrFail(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    transition(tx, events, session, decision, 'reviewer', principal, trimmed);
    await settleClaimForReview(tx, principal, session.id);
    session.decidedAt = new Date();
    if (decision === 'approved') {
      // Load through the transaction: on PGlite a read on another connection would wait for it forever.
      await approve(tx, services, session, await tx.findOneOrFail(WorkflowSchema, { id: session.workflow.id }));
    }
    await tx.flush();
    return session;
  });
}

/**
 * Ongoing monitoring: sends an approved session back to review with a reason and revokes its
 * service tokens (each revocation emits `agent.revoked`). Returns false when the session is no
 * longer approved (a reviewer or another run got there first).
 */
export async function reopenApprovedSession(
  em: EntityManager,
  bus: EventBus,
  sessionId: string,
  reason: { code: string; message: string },
): Promise<boolean> {
  return transactionWithEvents(em, bus, async (tx, events) => {
    const session = await tx.findOne(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!session || session.status !== 'approved') return false;
    transition(tx, events, session, 'in_review', 'monitoring', null, reason.message);
    session.complianceLevel = null;
    session.reasons = [...session.reasons, { code: reason.code, message: reason.message, nodeType: 'aml_screening' }];
    await revokeTokens(tx, events, { sessionId, vendorData: session.vendorData }, reason.message);
    await tx.flush();
    return true;
  });
}

/** Expires every pending or in-progress session past `expires_at`, in batches; returns how many. */
export async function expireDueSessions(em: EntityManager, services: Services, batchSize = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await transactionWithEvents(em.fork(), services.bus, (tx, events) =>
      expireDue(tx, events, { sql: 'true', params: [] }, batchSize),
    );
    total += expired;
    if (expired < batchSize) return total;
  }
}

/** Ensures the tenant exists (used by imports and tests). */
export async function tenantExists(em: EntityManager, tenantId: string): Promise<boolean> {
  return (await em.count(TenantSchema, { id: tenantId })) > 0;
}
