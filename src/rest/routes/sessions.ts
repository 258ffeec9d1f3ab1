import { z } from 'zod';
import { NODE_STATUSES, NODE_TYPES, SESSION_STATUSES } from '../../domain/types.js';
import { REASON_CATEGORIES, REASON_SEVERITIES } from '../../domain/reasons.js';
import {
  AddSessionNoteDocument,
  CreateSessionDocument,
  EraseSessionDocument,
  GetDecisionDocument,
  GetSessionDocument,
  IntrospectServiceTokenDocument,
  ListSessionsDocument,
  RequestRetakeDocument,
  ReviewSessionDocument,
  RevokeServiceTokenDocument,
  SearchSessionsDocument,
  type DecisionFieldsFragment,
  type IntrospectionFieldsFragment,
  type NodeResultFieldsFragment,
  type SessionFieldsFragment,
} from '../../graphql/generated/operations.js';
import { decisionJson } from '../../sessions/decision.js';
import { SESSIONS_PAGE_DEFAULT, SESSIONS_PAGE_MAX } from '../../sessions/read.js';
import { SEARCH_FIELDS, SESSION_SEARCH_DEFAULT, SESSION_SEARCH_MAX, SESSION_SEARCH_QUERY_MAX } from '../../sessions/search.js';
import { CREATE_SESSION_FIELDS as fields } from '../../sessions/session-input.js';
import { definedFields } from '../../shared/input-rules.js';
import { defineRoute } from '../route.js';

const WarningJson = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });
const NodeResultJson = z.object({
  status: z.enum(NODE_STATUSES),
  required: z.boolean(),
  provider: z.string(),
  warnings: z.array(WarningJson),
  details: z.record(z.string(), z.unknown()),
});

/** The spec's Session JSON (creation response). */
export const SessionJson = z.object({
  session_id: z.string(),
  url: z.string(),
  status: z.enum(SESSION_STATUSES),
  workflow_id: z.string(),
  vendor_data: z.string(),
  redirect_url: z.string().optional(),
  language: z.string().optional(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  idempotent_reuse: z.boolean(),
});

/** Get-session JSON: Session fields plus node results, warnings and metadata. */
export const SessionDetailJson = SessionJson.omit({ idempotent_reuse: true }).extend({
  environment: z.enum(['live', 'sandbox']),
  updated_at: z.number().int(),
  decided_at: z.number().int().optional(),
  callback: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  contact_details: z.record(z.string(), z.unknown()).optional(),
  expected_details: z.record(z.string(), z.unknown()).optional(),
  warnings: z.array(WarningJson),
  node_results: z.record(z.string(), NodeResultJson),
});

/** The spec's Decision JSON. */
export const DecisionJson = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  workflow_id: z.string(),
  workflow_revision: z
    .number()
    .int()
    .optional()
    .describe('The workflow revision that decided the session (docs/workflows.md); absent for sessions older than revisions.'),
  vendor_data: z.string(),
  compliance_level: z.string().optional(),
  service_token: z.string().optional(),
  node_results: z.record(z.string(), NodeResultJson),
  reasons: z.array(
    z.object({
      code: z.string(),
      message: z.string(),
      node_type: z.string().optional(),
      list_id: z.string().optional(),
      entry_id: z.string().optional(),
      cause: z.string().describe('Reason catalogue code of what happened (docs/webhooks.md "Reasons"), e.g. document_expired.'),
      category: z.enum(REASON_CATEGORIES),
      severity: z.enum(REASON_SEVERITIES),
      retryable: z.boolean().describe('true: the person can fix it by doing the step again; false: final.'),
    }),
  ),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** Service token introspection JSON (RFC 7662 style: `active` plus the claims). */
export const IntrospectionJson = z.object({
  active: z.boolean(),
  status: z.enum(['valid', 'expired', 'revoked', 'invalid']),
  jti: z.string().optional(),
  session_id: z.string().optional(),
  tenant_id: z.string().optional(),
  workflow_id: z.string().optional(),
  compliance_level: z.string().optional(),
  vendor_data: z.string().optional(),
  issued_at: z.number().int().optional(),
  expires_at: z.number().int().optional(),
  revoked_at: z.number().int().optional(),
});

/** Warnings as JSON, without absent fields. */
function presentWarnings(warnings: { code: string; message: string; field?: string | null }[]) {
  return warnings.map((warning) => definedFields(warning) as z.infer<typeof WarningJson>);
}

/** Node results keyed by node type, as the spec shows them. */
function presentNodeResults(rows: NodeResultFieldsFragment[]): Record<string, z.infer<typeof NodeResultJson>> {
  return Object.fromEntries(
    rows.map((row) => [
      row.nodeType,
      { status: row.status, required: row.required, provider: row.provider, warnings: presentWarnings(row.warnings), details: row.details },
    ]),
  );
}

/** Shapes the session fields common to every session response. */
function presentSession(session: SessionFieldsFragment) {
  return {
    session_id: session.id,
    url: session.url,
    status: session.status,
    workflow_id: session.workflowId,
    vendor_data: session.vendorData,
    ...definedFields({ redirect_url: session.redirectUrl, language: session.language }),
    created_at: session.createdAt,
    expires_at: session.expiresAt,
  };
}

/** Shapes a decision: the one JSON writer of the decision read model (src/sessions/decision.ts), which webhook bodies share. */
function presentDecision(decision: DecisionFieldsFragment): z.infer<typeof DecisionJson> {
  return decisionJson(decision) as z.infer<typeof DecisionJson>;
}

/** Shapes an introspection. */
function presentIntrospection(state: IntrospectionFieldsFragment): z.infer<typeof IntrospectionJson> {
  return definedFields({
    active: state.active,
    status: state.status,
    jti: state.jti,
    session_id: state.sessionId,
    tenant_id: state.tenantId,
    workflow_id: state.workflowId,
    compliance_level: state.complianceLevel,
    vendor_data: state.vendorData,
    issued_at: state.issuedAt,
    expires_at: state.expiresAt,
    revoked_at: state.revokedAt,
  }) as z.infer<typeof IntrospectionJson>;
}

/** Body of `POST /v1/sessions` (snake_case, as the spec writes it), from the service's field rules. */
const CreateSessionBody = z
  .object({
    workflow_id: fields.workflowId,
    vendor_data: fields.vendorData,
    callback: fields.callback.optional(),
    /** Where the hosted flow sends the browser at the end; its origin must be allowed in the flow settings. */
    redirect_url: fields.redirectUrl.optional(),
    /** Language of the hosted flow; otherwise `?lang=`, then the browser's, then the tenant's default. */
    language: fields.language.optional(),
    metadata: fields.metadata.optional(),
    contact_details: z.object({ email: fields.email.optional(), phone: fields.phone.optional() }).strict().optional(),
    expected_details: z
      .object({
        first_name: fields.name.optional(),
        last_name: fields.name.optional(),
        date_of_birth: fields.dateOfBirth.optional(),
        country: fields.country.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const SessionParams = z.object({ session_id: z.string().min(1).max(100) });
/** Unix seconds in a query string: any safe integer (not 32-bit limited; GraphQL's UnixTime takes it). */
const UnixQuery = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** What a reviewer gives with a decision or a retake: free text as before, or a reason code (GET /v1/reason-codes) with an optional note. */
const ReviewerReasonFields = {
  reason: z
    .string()
    .trim()
    .min(1, 'reason is required')
    .max(2000)
    .optional()
    .describe('Free text for the audit trail; required unless reason_code is given.'),
  reason_code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .describe('A code of the reason catalogue or of your own (GET /v1/reason-codes).'),
  note: z.string().trim().max(2000).optional().describe('An optional note beside reason_code; on a retake the person reads it.'),
};

/** A review or retake names a reason: free text or a code. */
function hasReason(body: { reason?: string; reason_code?: string }): boolean {
  return body.reason !== undefined || body.reason_code !== undefined;
}

/** Session, decision, review and service-token routes. */
export const sessionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary:
      'Starts a verification session; an active session with the same workflow_id and vendor_data is returned instead (200, idempotent_reuse true).',
    tag: 'Sessions',
    operation: CreateSessionDocument,
    body: CreateSessionBody,
    variables: ({ body }) => ({
      input: {
        workflowId: body.workflow_id,
        vendorData: body.vendor_data,
        callback: body.callback,
        redirectUrl: body.redirect_url,
        language: body.language,
        metadata: body.metadata,
        contactDetails: body.contact_details,
        expectedDetails: body.expected_details && {
          firstName: body.expected_details.first_name,
          lastName: body.expected_details.last_name,
          dateOfBirth: body.expected_details.date_of_birth,
          country: body.expected_details.country,
        },
      },
    }),
    status: (data) => (data.createSession.idempotentReuse ? 200 : 201),
    present: (data) => ({ ...presentSession(data.createSession.session), idempotent_reuse: data.createSession.idempotentReuse }),
    response: SessionJson,
    problems: ['redirect_not_allowed', 'provider_unavailable'],
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions',
    operationId: 'listSessions',
    summary: 'Sessions of the calling tenant and environment, newest first; cursor pagination.',
    tag: 'Sessions',
    operation: ListSessionsDocument,
    query: z
      .object({
        status: z
          .string()
          .transform((value) => value.split(',').filter(Boolean))
          .pipe(z.array(z.enum(SESSION_STATUSES)))
          .optional(),
        workflow_id: z.string().min(1).optional(),
        vendor_data: z.string().min(1).optional(),
        created_after: UnixQuery.optional(),
        created_before: UnixQuery.optional(),
        limit: z.coerce.number().int().min(1).max(SESSIONS_PAGE_MAX).default(SESSIONS_PAGE_DEFAULT),
        cursor: z.string().min(1).optional(),
      })
      .strict(),
    variables: ({ query }) => ({
      first: query.limit,
      after: query.cursor,
      filter: {
        statuses: query.status,
        workflowId: query.workflow_id,
        vendorData: query.vendor_data,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      },
    }),
    status: 200,
    present: (data) => ({
      sessions: data.sessions.edges.map((edge) => ({
        ...presentSession(edge.node),
        ...definedFields({ decided_at: edge.node.decidedAt }),
        updated_at: edge.node.updatedAt,
      })),
      has_more: data.sessions.pageInfo.hasNextPage,
      ...definedFields({ next_cursor: data.sessions.pageInfo.hasNextPage ? data.sessions.pageInfo.endCursor : null }),
    }),
    response: z.object({
      sessions: z.array(
        SessionJson.omit({ idempotent_reuse: true }).extend({ updated_at: z.number().int(), decided_at: z.number().int().optional() }),
      ),
      has_more: z.boolean(),
      next_cursor: z.string().optional(),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/search',
    operationId: 'searchSessions',
    summary:
      'Sessions of the calling tenant and environment matching q: a name (fuzzy), e-mail, phone, document number, session id (or 8+ hex digits of it) or vendor_data (exact or a part of 3+ characters); best match first.',
    tag: 'Sessions',
    operation: SearchSessionsDocument,
    query: z
      .object({
        q: z.string().trim().min(1).max(SESSION_SEARCH_QUERY_MAX),
        limit: z.coerce.number().int().min(1).max(SESSION_SEARCH_MAX).default(SESSION_SEARCH_DEFAULT),
      })
      .strict(),
    variables: ({ query }) => ({ query: query.q, first: query.limit }),
    status: 200,
    present: (data) => ({
      sessions: data.searchSessions.map((hit) => ({
        ...presentSession(hit.session),
        ...definedFields({ decided_at: hit.session.decidedAt }),
        updated_at: hit.session.updatedAt,
        matched_on: hit.matchedOn,
      })),
    }),
    response: z.object({
      sessions: z.array(
        SessionJson.omit({ idempotent_reuse: true }).extend({
          updated_at: z.number().int(),
          decided_at: z.number().int().optional(),
          matched_on: z.array(z.enum(SEARCH_FIELDS)),
        }),
      ),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/:session_id',
    operationId: 'getSession',
    summary: "The session's current status, node results, warnings and metadata.",
    tag: 'Sessions',
    operation: GetSessionDocument,
    params: SessionParams,
    variables: ({ params }) => ({ id: params.session_id }),
    status: 200,
    present: ({ session }) => ({
      ...presentSession(session),
      environment: session.environment,
      updated_at: session.updatedAt,
      ...definedFields({
        decided_at: session.decidedAt,
        callback: session.callback,
        metadata: session.metadata,
        contact_details: session.contactDetails,
        expected_details: session.expectedDetails,
      }),
      warnings: presentWarnings(session.warnings),
      node_results: presentNodeResults(session.nodeResults),
    }),
    response: SessionDetailJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/:session_id/decision',
    operationId: 'getDecision',
    summary: 'The verdict: approved carries compliance_level and service_token; declined and in_review carry neither.',
    tag: 'Sessions',
    operation: GetDecisionDocument,
    params: SessionParams,
    variables: ({ params }) => ({ id: params.session_id }),
    status: 200,
    present: (data) => presentDecision(data.session.decision),
    response: DecisionJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/review',
    operationId: 'reviewSession',
    summary: 'Approves or declines an in_review session, with a reason; audited with the calling key.',
    tag: 'Sessions',
    operation: ReviewSessionDocument,
    params: SessionParams,
    body: z
      .object({ decision: z.enum(['approved', 'declined']), ...ReviewerReasonFields })
      .strict()
      .refine(hasReason, { message: 'reason is required (or reason_code)', path: ['reason'] }),
    variables: ({ params, body }) => ({
      id: params.session_id,
      decision: body.decision,
      reason: body.reason,
      reasonCode: body.reason_code,
      note: body.note,
    }),
    status: 200,
    present: (data) => presentDecision(data.reviewSession.decision),
    response: DecisionJson,
    problems: ['invalid_transition'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/retake',
    operationId: 'requestRetake',
    summary:
      "Sends one step of an in_review session back to the end user, with a reason; audited. The step becomes resubmission_requested (reviewer_request), the session in_progress (expires_at renewed when less than a session lifetime is left), and the end user's next submission decides again.",
    tag: 'Sessions',
    operation: RequestRetakeDocument,
    params: SessionParams,
    body: z
      .object({ node_type: z.enum(NODE_TYPES), ...ReviewerReasonFields })
      .strict()
      .refine(hasReason, { message: 'reason is required (or reason_code)', path: ['reason'] }),
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      nodeType: body.node_type,
      reason: body.reason,
      reasonCode: body.reason_code,
      note: body.note,
    }),
    status: 200,
    present: (data) => presentDecision(data.requestRetake.decision),
    response: DecisionJson,
    problems: ['invalid_transition'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/notes',
    operationId: 'addSessionNote',
    summary: "Adds a note to a session under the calling key (in the console, under the reviewer's name).",
    tag: 'Sessions',
    operation: AddSessionNoteDocument,
    params: SessionParams,
    body: z.object({ body: z.string().trim().min(1, 'body is required').max(4000) }).strict(),
    variables: ({ params, body }) => ({ sessionId: params.session_id, body: body.body }),
    status: 201,
    present: (data) => ({
      note_id: data.addSessionNote.id,
      session_id: data.addSessionNote.sessionId,
      author_name: data.addSessionNote.authorName,
      body: data.addSessionNote.body,
      created_at: data.addSessionNote.createdAt,
    }),
    response: z.object({
      note_id: z.string(),
      session_id: z.string(),
      author_name: z.string(),
      body: z.string(),
      created_at: z.number().int(),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/erase',
    operationId: 'eraseSession',
    summary:
      "Erases a decided or expired session's evidence and personal data on the person's request; the decision and the audit trail stay (409 while active).",
    tag: 'Sessions',
    operation: EraseSessionDocument,
    params: SessionParams,
    variables: ({ params }) => ({ id: params.session_id }),
    status: 200,
    present: (data) => ({
      session_id: data.eraseSession.sessionId,
      erased_at: data.eraseSession.erasedAt,
      evidence_deleted: data.eraseSession.evidenceDeleted,
    }),
    response: z.object({ session_id: z.string(), erased_at: z.number().int(), evidence_deleted: z.number().int() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/service-tokens/introspect',
    operationId: 'introspectServiceToken',
    summary:
      "Says whether one of the tenant's service tokens of the key's environment is valid, expired or revoked; any other token is invalid.",
    tag: 'Service tokens',
    operation: IntrospectServiceTokenDocument,
    body: z.object({ token: z.string().min(1).max(4096) }).strict(),
    variables: ({ body }) => ({ token: body.token }),
    status: 200,
    present: (data) => presentIntrospection(data.introspectServiceToken),
    response: IntrospectionJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/service-tokens/revoke',
    operationId: 'revokeServiceToken',
    summary: "Revokes one of the tenant's service tokens of the key's environment (404 for any other) and emits agent.revoked.",
    tag: 'Service tokens',
    operation: RevokeServiceTokenDocument,
    body: z.object({ token: z.string().min(1).max(4096), reason: z.string().trim().min(1, 'reason is required').max(2000) }).strict(),
    variables: ({ body }) => ({ token: body.token, reason: body.reason }),
    status: 200,
    present: (data) => presentIntrospection(data.revokeServiceToken),
    response: IntrospectionJson,
    problems: ['not_found'],
  }),
];
