/** Creating a session: one statement for a new session (create-batch.ts), the active one returned for the same slot. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { auditIdentityOf, type TenantPrincipal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import { ACTIVE_STATUSES_SQL, isPastExpiry } from '../domain/session-state.js';
import { hotQuery } from '../db/native.js';
import { insertSession } from './create-batch.js';
import { pendingDecision, sealDecision } from './decision.js';
import { statusChanged } from '../domain/events.js';
import { ApiError, validationError } from '../shared/errors.js';
import { transactionWithEvents } from '../events/outbox.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { indexNewSession } from './search.js';
import { CreateSessionInputSchema, storedExpectedDetails, type CreateSessionInput } from './session-input.js';
import { sealPersonalData } from '../auth/personal-data.js';
import { SESSION_COLUMNS, sessionRecordFromRow, type SessionRecord, type SessionRow } from './session-record.js';
import { webhookUrlProblem } from '../webhooks/ssrf.js';
import { checkRedirectUrl } from '../tenants/flow-settings.service.js';
import { expireDue } from './expiry.js';
import { effectiveNodes, matchingRules, ruleFacts } from '../domain/workflow-rules.js';
import { currentTraceCarrier } from '../observability/tracing.js';

/** The end-user URL of a session: `{PUBLIC_URL}/verify/{id}?token=…`. */
export function sessionUrl(config: Config, services: Services, baseUrl: string, sessionId: string): string {
  const base = (config.PUBLIC_URL ?? baseUrl).replace(/\/$/, '');
  return `${base}/verify/${sessionId}?token=${services.secrets.sessionLinkToken(sessionId)}`;
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
  // Rules that hold on what is known at creation (environment, metadata) may skip or require a node from the start.
  const atCreation = matchingRules(
    workflow.rules ?? [],
    ruleFacts({
      environment: principal.environment,
      metadata: input.metadata ?? null,
      nodeTypes: workflow.nodes.map((node) => node.type),
      nodeResults: {},
      documentDetails: {},
      amlDetails: {},
      listHits: [],
      sessionWarnings: [],
      amlScore: null,
      today: new Date(),
    }),
  );
  const nodes = effectiveNodes(workflow.nodes, atCreation).map((node) => ({
    type: node.type,
    required: node.required,
    provider: node.provider,
  }));
  const who = auditIdentityOf(principal);
  for (let attempt = 1; ; attempt += 1) {
    const id = randomUUID();
    const changedAt = new Date();
    const event = {
      id: randomUUID(),
      tenantId: principal.tenantId,
      environment: principal.environment,
      sessionId: id,
      ...statusChanged(
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
      workflow_revision: workflow.publishedRevision,
      vendor_data: input.vendorData,
      callback: input.callback ?? null,
      redirect_url: redirectUrl,
      language: input.language ?? null,
      metadata: input.metadata ?? null,
      contact_details: sealPersonalData(em, input.contactDetails),
      expected_details: sealPersonalData(em, storedExpectedDetails(input.expectedDetails)),
      key_id: who.keyId,
      operator_id: who.operatorId,
      actor_name: who.name,
      ttl_seconds: config.SESSION_TTL_SECONDS,
      nodes,
      audit_id: randomUUID(),
      changed_at: changedAt.toISOString(),
      event_id: event.id,
      payload: event.payload,
      trace_context: currentTraceCarrier() ?? null,
      snapshot: services.bus.snapshotter
        ? sealDecision(
            services.secrets,
            pendingDecision(
              {
                id,
                workflowId: workflow.id,
                workflowRevision: workflow.publishedRevision,
                vendorData: input.vendorData,
                metadata: input.metadata ?? null,
              },
              nodes,
            ),
          )
        : null,
    });
    if (row) {
      await indexNewSession(
        em,
        services.secrets,
        { id, tenantId: principal.tenantId, environment: principal.environment },
        input.contactDetails ?? null,
        storedExpectedDetails(input.expectedDetails),
      );
      services.bus.publishEvents([{ ...event, seq: Number(row.event_seq), webhooksDone: row.webhooks_done }]);
      return { session: sessionRecordFromRow(row, em), idempotentReuse: false };
    }
    const [active] = await hotQuery<SessionRow>(em, 'session_active', ACTIVE_SESSION_SQL, key);
    const existing = active ? sessionRecordFromRow(active, em) : null;
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
