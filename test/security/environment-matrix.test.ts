/**
 * The tenant and environment matrix: every REST route and every GraphQL query, mutation and
 * subscription is called by the two principals that must not reach an owner's objects (a key of
 * the owner's other environment, and a key of another tenant in the owner's environment), for an
 * owner in each environment. Each such call answers 404 / NOT_FOUND, or succeeds without showing
 * any of the owner's objects; afterwards everything the owner can read is exactly as before. Then
 * the owner's own key makes the same calls, so a 404 above is known to come from the boundary and
 * not from a wrong id. The route table and the schema are enumerated: a route or an operation
 * added without a case here fails the first test. Console operators are principals too: an admin
 * of the owner's tenant signed in to the other environment, and an admin of another tenant
 * signed in to the owner's, make every GraphQL call above with their cookie; the owner's own
 * admin, signed in to the owner's environment, reaches the owner's objects.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { buildSchema, print, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { REST_ROUTES } from '../../src/rest/routes/index.js';
import type { RestRoute } from '../../src/rest/route.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { recordStatusEvents, waitForSubscribers } from '../events/support.js';
import { gql, SANDBOX_IMAGE, tokenOf, type Credential } from '../sessions/support.js';
import { consoleGql, makeOperator, OPERATOR_PASSWORD, signIn, type ConsoleCredential } from '../console/support.js';

const AML_NODE = { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' };
const OTHER: Record<ApiKeyEnvironment, ApiKeyEnvironment> = { live: 'sandbox', sandbox: 'live' };

/** The objects one tenant owns in one environment. */
interface Owned {
  tenant: TestTenant;
  environment: ApiKeyEnvironment;
  key: string;
  workflowId: string;
  /** A replay of the owner's workflow (issue 27). */
  replayId: string;
  approvedSessionId: string;
  pendingSessionId: string;
  /** The end-user token of the pending session. */
  sessionToken: string;
  serviceToken: string;
  listId: string;
  builtInListId: string;
  entryId: string;
  destinationId: string;
  deliveryId: string;
  /** A share token of the approved session addressed to the partner tenant, unredeemed. */
  shareToken: string;
  /** A ledger entry written when the partner imported another share of the approved session. */
  ledgerEntryId: string;
  vendorData: string;
  /** An origin only the owner's flow settings of this environment allow. */
  redirectOrigin: string;
  /** A reason code of the owner's own in this environment. */
  reasonCode: string;
}

/** One request of a case, in REST terms; the GraphQL form is derived through the route's own mapping. */
interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** What a principal outside the owner's scope must get. */
type Refusal =
  /** 404 / NOT_FOUND: the owner's object does not exist for the caller. */
  | 'not_found'
  /** Success or a 4xx, showing none of the owner's objects (lists, creations in the caller's own scope). */
  | 'no_leak'
  /** Introspection: the token is `invalid` for the caller, and nothing of it is shown. */
  | 'invalid_token';

/** One REST route (and the GraphQL operation it runs) in the matrix. */
interface RouteCase {
  refusal: Refusal;
  /** The calls, addressed at the owner's objects. */
  calls(owner: Owned): Call[];
  /** Who owns the objects and who calls instead of the environment/tenant default (sharing, where the owner is the partner). */
  callers?(owner: Owned): { own: string; foreign: string[] };
  /** When the owner's own control call runs: reads and idempotent writes first, deletions last. */
  phase?: 'read' | 'write' | 'delete';
  /** For own controls of lists: the owner's id the answer must contain. */
  shows?(owner: Owned): string;
}

const sessionCalls = (owner: Owned): Call[] => [{ params: { session_id: owner.approvedSessionId } }];
const listCalls = (owner: Owned): Call[] => [{ params: { uuid: owner.listId } }, { params: { uuid: owner.builtInListId } }];

/** Every REST route; the key is `METHOD path` as the route table declares it. */
const ROUTE_CASES: Record<string, RouteCase> = {
  'GET /v1/flow-settings': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.redirectOrigin },
  'GET /v1/reason-codes': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.reasonCode },
  'POST /v1/reason-codes': {
    refusal: 'no_leak',
    phase: 'write',
    calls: () => [
      {
        body: {
          code: 'matrix_created_elsewhere',
          category: 'data',
          severity: 'low',
          retryable: false,
          reviewer_text: 'Created by another scope.',
          end_user_message: 'not_verified',
        },
      },
    ],
  },
  'DELETE /v1/reason-codes/:code': { refusal: 'not_found', phase: 'delete', calls: (o) => [{ params: { code: o.reasonCode } }] },
  'PATCH /v1/flow-settings': {
    refusal: 'no_leak',
    phase: 'write',
    calls: () => [{ body: { display_name: 'Matrix elsewhere' } }],
    shows: (o) => o.redirectOrigin,
  },
  'GET /v1/sessions/:session_id/steps': { refusal: 'not_found', calls: (o) => [{ params: { session_id: o.pendingSessionId } }] },
  'POST /v1/sessions/:session_id/steps/document': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [
      { params: { session_id: o.pendingSessionId }, body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE } },
    ],
  },
  'POST /v1/sessions/:session_id/steps/selfie': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.pendingSessionId }, body: { selfie: SANDBOX_IMAGE } }],
  },
  'POST /v1/sessions/:session_id/steps/aml': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.pendingSessionId }, body: { full_name: 'Matrix Person' } }],
  },
  'POST /v1/sessions/:session_id/steps/proof-of-address': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.pendingSessionId }, body: { document_image: SANDBOX_IMAGE } }],
  },
  'POST /v1/sessions/:session_id/steps/business-registry': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [
      { params: { session_id: o.pendingSessionId }, body: { company_name: 'Matrix Ltd', country: 'GB', registration_number: '01234567' } },
    ],
  },
  'POST /v1/sessions/:session_id/steps/phone/code': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.pendingSessionId }, body: { phone: '+447700900123' } }],
  },
  'POST /v1/sessions/:session_id/steps/phone/confirm': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.pendingSessionId }, body: { code: '123456' } }],
  },
  'GET /v1/workflows': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.workflowId },
  'GET /v1/workflows/:workflow_id': { refusal: 'not_found', calls: (o) => [{ params: { workflow_id: o.workflowId } }] },
  'POST /v1/workflows': { refusal: 'no_leak', calls: () => [{ body: { name: 'created by another scope', nodes: [AML_NODE] } }] },
  'DELETE /v1/workflows/:workflow_id': {
    refusal: 'not_found',
    phase: 'delete',
    calls: (o) => [{ params: { workflow_id: o.workflowId } }],
  },
  'PATCH /v1/workflows/:workflow_id': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { workflow_id: o.workflowId }, body: { aml_score_threshold: 100 } }],
  },
  'GET /v1/workflows/:workflow_id/revisions': { refusal: 'not_found', calls: (o) => [{ params: { workflow_id: o.workflowId } }] },
  'POST /v1/workflows/:workflow_id/draft': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { workflow_id: o.workflowId }, body: { name: 'drafted by another scope' } }],
  },
  'POST /v1/workflows/:workflow_id/revisions/:revision/publish': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { workflow_id: o.workflowId, revision: '1' } }],
  },
  'POST /v1/workflows/:workflow_id/replays': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { workflow_id: o.workflowId }, body: { revision: 1, last: 5 } }],
  },
  'GET /v1/workflow-replays/:replay_id': { refusal: 'not_found', calls: (o) => [{ params: { replay_id: o.replayId } }] },
  'POST /v1/sessions': {
    refusal: 'no_leak',
    phase: 'write',
    // The owner's custom workflow is unknown to any other scope.
    calls: (o) => [{ body: { workflow_id: o.workflowId, vendor_data: `${o.vendorData}-foreign` } }],
  },
  'GET /v1/sessions': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.approvedSessionId },
  'GET /v1/sessions/search': {
    refusal: 'no_leak',
    calls: (o) => [{ query: { q: o.approvedSessionId } }],
    shows: (o) => o.approvedSessionId,
  },
  'GET /v1/sessions/:session_id': { refusal: 'not_found', calls: sessionCalls },
  'GET /v1/sessions/:session_id/decision': { refusal: 'not_found', calls: sessionCalls },
  'POST /v1/sessions/:session_id/notes': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.approvedSessionId }, body: { body: 'matrix note' } }],
  },
  // Last of all (a deletion phase): it strips the owner's approved session of its personal data.
  'POST /v1/sessions/:session_id/erase': { refusal: 'not_found', phase: 'delete', calls: sessionCalls },
  'GET /v1/sessions/:session_id/aml-hits': { refusal: 'not_found', calls: sessionCalls },
  // The owner's own call names no hit of its session (400); a foreign one finds no session (404).
  'POST /v1/sessions/:session_id/aml-hits/:entity_id/disposition': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [
      {
        params: { session_id: o.approvedSessionId, entity_id: 'OFAC_SDN:matrix' },
        body: { disposition: 'false_positive', reason: 'matrix' },
      },
    ],
  },
  'POST /v1/sessions/:session_id/review': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.approvedSessionId }, body: { decision: 'declined', reason: 'matrix' } }],
  },
  'POST /v1/sessions/:session_id/retake': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.approvedSessionId }, body: { node_type: 'aml_screening', reason: 'matrix' } }],
  },
  'POST /v1/service-tokens/introspect': { refusal: 'invalid_token', calls: (o) => [{ body: { token: o.serviceToken } }] },
  'POST /v1/service-tokens/revoke': {
    refusal: 'not_found',
    phase: 'delete',
    calls: (o) => [{ body: { token: o.serviceToken, reason: 'matrix' } }],
  },
  'POST /v1/sessions/import-shared': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [
      { body: { share_token: o.shareToken, trust_review: true, workflow_id: 'aml_only', vendor_data: `${o.vendorData}-import` } },
    ],
    // The share is addressed to the partner in the owner's environment: only that key may redeem it.
    callers: (o) => ({
      own: partnerKey(o.environment),
      foreign: [partnerKey(OTHER[o.environment]), keyOf(outsider, o.environment), o.key],
    }),
  },
  'POST /v1/sessions/:session_id/share': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { session_id: o.approvedSessionId }, body: { partner_application_id: partner.id } }],
  },
  'GET /v1/ledger': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.ledgerEntryId },
  'GET /v1/lists': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.listId },
  'POST /v1/lists': { refusal: 'no_leak', calls: () => [{ body: { name: 'created by another scope', type: 'name' } }] },
  'GET /v1/lists/:uuid': { refusal: 'not_found', calls: listCalls },
  'PATCH /v1/lists/:uuid': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => listCalls(o).map((call) => ({ ...call, body: { policy: 'auto_decline' } })),
  },
  'GET /v1/lists/:uuid/entries': { refusal: 'not_found', calls: listCalls },
  'POST /v1/lists/:uuid/entries/face': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { uuid: o.listId }, body: { session_id: o.approvedSessionId } }],
  },
  'POST /v1/lists/:uuid/entries/name': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => listCalls(o).map((call) => ({ ...call, body: { name: 'Planted By Another Scope' } })),
  },
  'POST /v1/lists/:uuid/entries/document': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { uuid: o.listId }, body: { country: 'GB', id_type: 'PASSPORT', document_number: 'X1234567' } }],
  },
  'DELETE /v1/lists/:uuid/entries/:entry_uuid': {
    refusal: 'not_found',
    phase: 'delete',
    calls: (o) => [{ params: { uuid: o.listId, entry_uuid: o.entryId } }],
  },
  'DELETE /v1/lists/:uuid': { refusal: 'not_found', phase: 'delete', calls: (o) => [{ params: { uuid: o.listId } }] },
  'POST /v1/aml': { refusal: 'no_leak', calls: () => [{ body: { full_name: 'Matrix Person' } }] },
  'POST /v1/poa': { refusal: 'no_leak', calls: () => [{ body: { document_image: SANDBOX_IMAGE } }] },
  'POST /v1/id-verification': {
    refusal: 'no_leak',
    calls: () => [{ body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE } }],
  },
  'POST /v1/webhook-destinations': {
    refusal: 'no_leak',
    calls: () => [{ body: { url: `${receiverUrl}/foreign` } }],
  },
  'GET /v1/webhook-destinations': { refusal: 'no_leak', calls: () => [{}], shows: (o) => o.destinationId },
  'GET /v1/webhook-destinations/:uuid': { refusal: 'not_found', calls: (o) => [{ params: { uuid: o.destinationId } }] },
  'PATCH /v1/webhook-destinations/:uuid': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { uuid: o.destinationId }, body: { url: `${receiverUrl}/exfiltrated` } }],
  },
  'DELETE /v1/webhook-destinations/:uuid': {
    refusal: 'not_found',
    phase: 'delete',
    calls: (o) => [{ params: { uuid: o.destinationId } }],
  },
  'POST /v1/webhook-destinations/:uuid/test': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { uuid: o.destinationId } }],
  },
  'GET /v1/webhook-destinations/:uuid/deliveries': {
    refusal: 'not_found',
    calls: (o) => [{ params: { uuid: o.destinationId } }],
  },
  'GET /v1/webhook-deliveries/:delivery_id': { refusal: 'not_found', calls: (o) => [{ params: { delivery_id: o.deliveryId } }] },
  'GET /v1/webhook-deliveries/:delivery_id/attempts': {
    refusal: 'not_found',
    calls: (o) => [{ params: { delivery_id: o.deliveryId } }],
  },
  'POST /v1/webhook-deliveries/:delivery_id/replay': {
    refusal: 'not_found',
    phase: 'write',
    calls: (o) => [{ params: { delivery_id: o.deliveryId } }],
  },
  // Acts on the caller's own secret only: the owner's secret must stay the same (the snapshot reads it).
  'POST /v1/callback-secret/rotate': { refusal: 'no_leak', phase: 'write', calls: () => [{}] },
};

/** The end-user operations, which have no REST route: each addressed at the owner's pending session. */
const END_USER_CASES: Record<string, { query: string; variables(owner: Owned): Record<string, unknown> }> = {
  hostedFlow: {
    query: 'query ($sessionId: String!) { hostedFlow(sessionId: $sessionId) { status displayName allowedEmbedOrigins } }',
    variables: (o) => ({ sessionId: o.pendingSessionId }),
  },
  verificationSteps: {
    query: 'query ($sessionId: String!) { verificationSteps(sessionId: $sessionId) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId }),
  },
  submitDocument: {
    query: 'mutation ($sessionId: String!, $input: DocumentStepInput!) { submitDocument(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE } }),
  },
  submitSelfie: {
    query: 'mutation ($sessionId: String!, $input: SelfieStepInput!) { submitSelfie(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, input: { selfie: SANDBOX_IMAGE } }),
  },
  submitAmlData: {
    query: 'mutation ($sessionId: String!, $input: AmlStepInput!) { submitAmlData(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, input: { fullName: 'Matrix Person' } }),
  },
  submitProofOfAddress: {
    query:
      'mutation ($sessionId: String!, $input: ProofOfAddressStepInput!) { submitProofOfAddress(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, input: { documentImage: SANDBOX_IMAGE } }),
  },
  submitBusinessRegistry: {
    query:
      'mutation ($sessionId: String!, $input: BusinessRegistryStepInput!) { submitBusinessRegistry(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({
      sessionId: o.pendingSessionId,
      input: { companyName: 'Matrix Ltd', country: 'GB', registrationNumber: '01234567' },
    }),
  },
  requestPhoneCode: {
    query: 'mutation ($sessionId: String!, $phone: String) { requestPhoneCode(sessionId: $sessionId, phone: $phone) { expiresAt } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, phone: '+447700900123' }),
  },
  confirmPhoneCode: {
    query:
      'mutation ($sessionId: String!, $input: PhoneConfirmStepInput!) { confirmPhoneCode(sessionId: $sessionId, input: $input) { status } }',
    variables: (o) => ({ sessionId: o.pendingSessionId, input: { code: '123456' } }),
  },
  startLivenessChallenge: {
    query: 'mutation ($sessionId: String!) { startLivenessChallenge(sessionId: $sessionId) { expiresAt } }',
    variables: (o) => ({ sessionId: o.pendingSessionId }),
  },
  issueCaptureNonce: {
    query: 'mutation ($sessionId: String!) { issueCaptureNonce(sessionId: $sessionId, nodeType: biometric_kyc) { expiresAt } }',
    variables: (o) => ({ sessionId: o.pendingSessionId }),
  },
};

/**
 * The operator operations, which address no object by id: each caller sees or changes only its
 * own tenant (test/console/operators.test.ts has their role cases).
 */
const OPERATOR_CASES: Record<string, { query: string; variables(owner: Owned): Record<string, unknown> }> = {
  // Counts of the caller's own scope (test/console/dashboard.test.ts shows another scope's sessions do not count).
  decisionsPerDay: { query: 'query { decisionsPerDay(days: 7) { day approved declined } }', variables: () => ({}) },
  reviewBacklog: { query: 'query { reviewBacklog { underAnHour underADay underAWeek older } }', variables: () => ({}) },
  decisionsByReason: { query: 'query { decisionsByReason(days: 7) { cause declined inReview } }', variables: () => ({}) },
  sessionFunnel: { query: 'query { sessionFunnel(days: 7) { created started submitted decided } }', variables: () => ({}) },
  timeToDecision: { query: 'query { timeToDecision(days: 7) { decided p50Seconds p90Seconds } }', variables: () => ({}) },
  currentOperator: { query: 'query { currentOperator { id email name role } }', variables: () => ({}) },
  // Read beside workflowRevisions by GET /v1/workflows/:id/revisions; the owner's workflow is unknown to any other scope.
  workflowPublications: {
    query: 'query ($id: String!) { workflowPublications(id: $id) { revision actorName } }',
    variables: (o) => ({ id: o.workflowId }),
  },
  // The dashboard connections (test/console/connections.test.ts checks each one's boundary in detail).
  reviewQueueSessions: { query: 'query { reviewQueueSessions { edges { node { id vendorData } } } }', variables: () => ({}) },
  sessionTimeline: {
    query: 'query ($id: String!) { sessionTimeline(sessionId: $id) { edges { node { id actorName } } } }',
    variables: (o) => ({ id: o.approvedSessionId }),
  },
  sessionNotes: {
    query: 'query ($id: String!) { sessionNotes(sessionId: $id) { edges { node { id body } } } }',
    variables: (o) => ({ id: o.approvedSessionId }),
  },
  listEntriesConnection: {
    query: 'query ($id: String!) { listEntriesConnection(listId: $id) { edges { node { id fingerprint } } } }',
    variables: (o) => ({ id: o.listId }),
  },
  webhookDestinationsConnection: {
    query: 'query { webhookDestinationsConnection { edges { node { id url } } } }',
    variables: () => ({}),
  },
  webhookDeliveriesConnection: {
    query:
      'query ($id: ID) { webhookDeliveriesConnection(destinationId: $id) { edges { node { id destination { id } attempts { id } } } } }',
    variables: (o) => ({ id: o.destinationId }),
  },
  // Tenant-wide people and keys, for console admins only (a key gets FORBIDDEN).
  operators: { query: 'query { operators { edges { node { id email } } } }', variables: () => ({}) },
  apiKeys: { query: 'query { apiKeys { edges { node { id prefix } } } }', variables: () => ({}) },
  // The audit log of the caller's own tenant and environment (test/console/audit-log.test.ts has the role and boundary cases).
  auditLog: { query: 'query { auditLog { edges { node { id action targetId } } } }', variables: () => ({}) },
  // Invitations of people (tenant-wide, admins only; test/console/team.test.ts has the role and boundary cases).
  operatorInvitations: { query: 'query { operatorInvitations { id email } }', variables: () => ({}) },
  inviteOperator: {
    query: 'mutation ($input: InviteOperatorInput!) { inviteOperator(input: $input) { invitation { id } } }',
    variables: () => ({ input: { email: `matrix-${Math.random().toString(36).slice(2)}@example.com`, name: 'Matrix', role: 'viewer' } }),
  },
  revokeOperatorInvitation: {
    query: 'mutation ($id: String!) { revokeOperatorInvitation(id: $id) }',
    variables: () => ({ id: randomUUID() }),
  },
  // Workload (test/console/workload.test.ts has the role and boundary cases, bulk actions on the owner's cases included): the caller's own scope only.
  workflowSlas: { query: 'query { workflowSlas { workflowId minutes } }', variables: () => ({}) },
  setWorkflowSla: { query: 'mutation { setWorkflowSla(workflowId: "aml_only", minutes: null) { workflowId } }', variables: () => ({}) },
  assignmentRules: { query: 'query { assignmentRules { id operatorIds } }', variables: () => ({}) },
  createAssignmentRule: {
    query: 'mutation ($input: AssignmentRuleInput!) { createAssignmentRule(input: $input) { id } }',
    variables: () => ({ input: { workflowId: 'aml_only', operatorIds: [randomUUID()] } }),
  },
  deleteAssignmentRule: { query: 'mutation ($id: String!) { deleteAssignmentRule(id: $id) }', variables: () => ({ id: randomUUID() }) },
  applyAssignmentRules: { query: 'mutation { applyAssignmentRules }', variables: () => ({}) },
  nextCase: { query: 'mutation { nextCase }', variables: () => ({}) },
  bulkAction: {
    query: 'mutation ($input: BulkActionInput!) { bulkAction(input: $input) { ok code } }',
    variables: () => ({ input: { sessionIds: [randomUUID()], action: 'claim' } }),
  },
  // Tenant-wide (both environments), so only console admins set it; 30 is the default: the owner's own admin in the other environment changes nothing.
  setEvidenceRetention: { query: 'mutation { setEvidenceRetention(days: 30) }', variables: () => ({}) },
  createOperator: {
    query: 'mutation ($input: CreateOperatorInput!) { createOperator(input: $input) { id email } }',
    variables: () => ({
      input: {
        email: `matrix-${Math.random().toString(36).slice(2)}@example.com`,
        name: 'Matrix',
        role: 'viewer',
        password: OPERATOR_PASSWORD,
      },
    }),
  },
  // Admin-only changes to people and keys of the caller's own tenant (test/console/operator-admin.test.ts and api-keys.test.ts have the role and boundary cases).
  updateOperator: {
    query: 'mutation ($id: String!) { updateOperator(id: $id, input: { role: viewer }) { id } }',
    variables: () => ({ id: randomUUID() }),
  },
  resetOperatorPassword: {
    query: 'mutation ($id: String!) { resetOperatorPassword(id: $id, password: "temporary password 1") { id } }',
    variables: () => ({ id: randomUUID() }),
  },
  resetOperatorTotp: { query: 'mutation ($id: String!) { resetOperatorTotp(id: $id) }', variables: () => ({ id: randomUUID() }) },
  createApiKey: { query: 'mutation { createApiKey(name: "matrix") { apiKey { id prefix } } }', variables: () => ({}) },
  revokeApiKey: { query: 'mutation ($id: String!) { revokeApiKey(id: $id) { id } }', variables: () => ({ id: randomUUID() }) },
  // The owner's sessions by id: a foreign operator gets NOT_FOUND, a key FORBIDDEN (test/console/claims.test.ts).
  claimSession: {
    query: 'mutation ($id: String!) { claimSession(id: $id) { operatorName } }',
    variables: (o) => ({ id: o.approvedSessionId }),
  },
  releaseSession: { query: 'mutation ($id: String!) { releaseSession(id: $id) }', variables: (o) => ({ id: o.approvedSessionId }) },
  assignSession: {
    query: 'mutation ($id: String!, $operatorId: String!) { assignSession(id: $id, operatorId: $operatorId) { operatorName } }',
    variables: (o) => ({ id: o.approvedSessionId, operatorId: randomUUID() }),
  },
  // One's own account (test/console/totp.test.ts, operator-admin.test.ts); the unchanged password is refused before it is checked.
  changeOwnPassword: {
    query: 'mutation ($password: String!) { changeOwnPassword(currentPassword: $password, newPassword: $password) }',
    variables: () => ({ password: OPERATOR_PASSWORD }),
  },
  startTotpEnrolment: { query: 'mutation { startTotpEnrolment { otpauthUri } }', variables: () => ({}) },
  confirmTotpEnrolment: { query: 'mutation { confirmTotpEnrolment(code: "000000") }', variables: () => ({}) },
  disableOwnTotp: { query: 'mutation { disableOwnTotp(code: "000000") }', variables: () => ({}) },
};

/** Subscriptions, exercised by their own test below. */
const SUBSCRIPTION_CASES = [
  'sessionStatusChanged',
  /* test/hosted/live-progress.test.ts */ 'hostedFlowChanged',
  /* test/console/operators.test.ts: the same hub and scope as sessionStatusChanged, filtered to in_review */ 'reviewQueue',
];

let testApp: TestApp;
let receiver: Server;
let receiverUrl: string;
let owner: TestTenant;
let outsider: TestTenant;
let partner: TestTenant;
const owned: Partial<Record<ApiKeyEnvironment, Owned>> = {};
/** Console sign-ins that must not reach the owner's objects in each environment (see foreignKeys). */
const foreignOperators: Partial<Record<ApiKeyEnvironment, ConsoleCredential[]>> = {};
/** The owner's admin signed in to each environment. */
const ownOperators: Partial<Record<ApiKeyEnvironment, ConsoleCredential>> = {};
/** The pending sessions of the other principals, whose end-user tokens are tried on the owner's session. */
const foreignTokens: Partial<Record<ApiKeyEnvironment, string[]>> = {};

const keyOf = (tenant: TestTenant, environment: ApiKeyEnvironment) => (environment === 'live' ? tenant.liveKey : tenant.sandboxKey);
const partnerKey = (environment: ApiKeyEnvironment) => keyOf(partner, environment);

/** The principals that must not reach `o`'s objects: the owner's other environment, and another tenant in the same one. */
function foreignKeys(o: Owned): string[] {
  return [keyOf(owner, OTHER[o.environment]), keyOf(outsider, o.environment)];
}

/** Fastify's path with the call's parameters filled in. */
function pathOf(route: RestRoute, call: Call): string {
  let path = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(call.params?.[name] ?? ''));
  if (call.query && Object.keys(call.query).length > 0) path += `?${new URLSearchParams(call.query)}`;
  return path;
}

/** An answer in REST terms, from either transport. */
interface Answer {
  status: number;
  body: unknown;
  code?: string;
}

/** Calls the route over REST. */
async function viaRest(route: RestRoute, call: Call, key: string): Promise<Answer> {
  const response = await testApp.rest(route.method, pathOf(route, call), {
    key,
    ...(call.body !== undefined ? { body: call.body } : route.method === 'POST' ? { body: {} } : {}),
  });
  return { status: response.status, body: response.body, code: (response.body as { code?: string } | undefined)?.code };
}

/** Runs the route's GraphQL operation directly, with the variables the route itself derives from the call, as a key or a console sign-in. */
async function viaGraphQL(route: RestRoute, call: Call, key: string | ConsoleCredential): Promise<Answer> {
  const variables = route.variables({
    params: route.params ? route.params.parse(call.params ?? {}) : undefined,
    query: route.query ? route.query.parse(call.query ?? {}) : undefined,
    body: route.body ? route.body.parse(call.body ?? {}) : undefined,
  });
  const query = print(route.operation as DocumentNode);
  const response =
    typeof key === 'string'
      ? await testApp.graphql(query, variables as Record<string, unknown>, key)
      : await consoleGql(testApp, key, query, variables as Record<string, unknown>);
  const [error] = response.body.errors ?? [];
  if (error) {
    const code = error.extensions?.code;
    const status = code === 'NOT_FOUND' ? 404 : code === 'INTERNAL_ERROR' ? 500 : 400;
    return { status, body: response.body, code };
  }
  return { status: 200, body: route.present(response.body.data) };
}

/** Every identifier of the owner's objects that no other scope may ever be shown. */
function secretsOf(o: Owned): string[] {
  return [
    o.workflowId,
    o.approvedSessionId,
    o.pendingSessionId,
    o.listId,
    o.builtInListId,
    o.entryId,
    o.destinationId,
    o.deliveryId,
    o.ledgerEntryId,
    o.vendorData,
    o.serviceToken,
  ];
}

/** Asserts what a caller outside the owner's scope got; what the caller itself sent (an id in the path) may be echoed. */
function expectRefused(answer: Answer, refusal: Refusal, o: Owned, call: unknown, what: string): void {
  // Soft: one run reports every route that crosses the boundary, not only the first.
  expect.soft(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
  if (refusal === 'not_found') expect.soft(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(404);
  const shown = JSON.stringify(answer.body ?? null);
  const sent = JSON.stringify(call);
  for (const secret of secretsOf(o)) {
    if (!sent.includes(secret)) expect.soft(shown.includes(secret), `${what} shows ${secret}: ${shown}`).toBe(false);
  }
  if (refusal === 'invalid_token') {
    expect.soft(answer.status, what).toBe(200);
    expect.soft(answer.body, what).toMatchObject({ active: false, status: 'invalid' });
  }
}

/** Everything the owner can read of its scope, to compare before and after the other principals' calls. */
async function snapshot(o: Owned): Promise<unknown> {
  const read = async (path: string) => {
    const response = await testApp.rest('GET', path, { key: o.key });
    return { path, status: response.status, body: response.body };
  };
  const introspection = await testApp.rest('POST', '/v1/service-tokens/introspect', { key: o.key, body: { token: o.serviceToken } });
  const em = testApp.app.orm.em.fork();
  const [callbackSecret] = await em.execute<{ sealed: string }[]>(
    'select secret_sealed as sealed from callback_secret where tenant_id = ? and environment = ?',
    [o.tenant.id, o.environment],
  );
  const checks = await em.execute<{ n: string }[]>('select count(*) as n from check_run where tenant_id = ? and environment = ?', [
    o.tenant.id,
    o.environment,
  ]);
  return {
    reads: await Promise.all([
      read('/v1/workflows'),
      read(`/v1/workflows/${o.workflowId}`),
      read(`/v1/workflows/${o.workflowId}/revisions`),
      read('/v1/sessions'),
      read(`/v1/sessions/${o.approvedSessionId}`),
      read(`/v1/sessions/${o.approvedSessionId}/decision`),
      read(`/v1/sessions/${o.pendingSessionId}`),
      read('/v1/lists'),
      read(`/v1/lists/${o.listId}/entries`),
      read(`/v1/lists/${o.builtInListId}/entries`),
      read('/v1/webhook-destinations'),
      read(`/v1/webhook-destinations/${o.destinationId}/deliveries`),
      read(`/v1/webhook-deliveries/${o.deliveryId}/attempts`),
      read('/v1/ledger'),
    ]),
    introspection: introspection.body,
    callbackSecret,
    checks,
  };
}

/** Polls `read` until `done` holds (the event happened), failing after `timeoutMs`. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates a session and, with its end-user token, drives it to approved (an AML-only workflow with a clear name). */
async function approvedSession(key: string, vendorData: string): Promise<{ sessionId: string; serviceToken: string }> {
  const created = await testApp.rest('POST', '/v1/sessions', { key, body: { workflow_id: 'aml_only', vendor_data: vendorData } });
  expect(created.status).toBe(201);
  const sessionId = created.body.session_id as string;
  const submitted = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, END_USER_CASES.submitAmlData!.query, {
    sessionId,
    input: { fullName: 'Ada Lovelace' },
  });
  expect(submitted.body.errors).toBeUndefined();
  const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key });
  expect(decision.body.status).toBe('approved');
  return { sessionId, serviceToken: decision.body.service_token };
}

/** Makes every kind of object the owner can have in one environment. */
async function makeOwned(environment: ApiKeyEnvironment): Promise<Owned> {
  const key = keyOf(owner, environment);
  const vendorData = `matrix-${environment}-${owner.id}`;
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', { key, body: { url: `${receiverUrl}/${environment}` } });
  expect(destination.status).toBe(201);
  const workflow = await testApp.rest('POST', '/v1/workflows', { key, body: { name: `matrix ${environment}`, nodes: [AML_NODE] } });
  expect(workflow.status).toBe(201);
  const replay = await testApp.rest('POST', `/v1/workflows/${workflow.body.workflow_id}/replays`, { key, body: { revision: 1, last: 5 } });
  expect(replay.status).toBe(201);
  const approved = await approvedSession(key, vendorData);
  const pending = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'standard_kyc', vendor_data: `${vendorData}-p` },
  });
  expect(pending.status).toBe(201);
  const list = await testApp.rest('POST', '/v1/lists', { key, body: { name: `matrix ${environment}`, type: 'name' } });
  const entry = await testApp.rest('POST', `/v1/lists/${list.body.uuid}/entries/name`, { key, body: { name: 'Matrix Listed' } });
  expect(entry.status).toBe(201);
  const lists = await testApp.rest('GET', '/v1/lists', { key });
  const builtIn = lists.body.lists.find(
    (candidate: { type: string; built_in: boolean }) => candidate.type === 'name' && candidate.built_in,
  );
  const share = async () => {
    const shared = await testApp.rest('POST', `/v1/sessions/${approved.sessionId}/share`, {
      key,
      body: { partner_application_id: partner.id },
    });
    expect(shared.body.share_token, JSON.stringify(shared.body)).toEqual(expect.any(String));
    return shared.body.share_token as string;
  };
  const imported = await testApp.rest('POST', '/v1/sessions/import-shared', {
    key: partnerKey(environment),
    body: { share_token: await share(), trust_review: true, workflow_id: 'aml_only', vendor_data: `${vendorData}-partner` },
  });
  expect(imported.status).toBe(201);
  const ledger = await testApp.rest('GET', '/v1/ledger', { key });
  const redirectOrigin = `https://owner-${environment}-${owner.id.slice(0, 8)}.example`;
  const settings = await testApp.rest('PATCH', '/v1/flow-settings', { key, body: { allowed_redirect_origins: [redirectOrigin] } });
  expect(settings.status).toBe(200);
  const reasonCode = `matrix_${environment}_${owner.id.slice(0, 8).replace(/-/g, '')}`;
  const ownCode = await testApp.rest('POST', '/v1/reason-codes', {
    key,
    body: {
      code: reasonCode,
      category: 'data',
      severity: 'medium',
      retryable: false,
      reviewer_text: "The owner's own code.",
      end_user_message: 'not_verified',
    },
  });
  expect(ownCode.status, JSON.stringify(ownCode.body)).toBe(201);
  // Every delivery of the owner's events settled (the receiver answers 200), so the snapshot is stable.
  const deliveries = await until(
    () => testApp.rest('GET', `/v1/webhook-destinations/${destination.body.uuid}/deliveries`, { key }),
    (response) =>
      response.body.deliveries?.length >= 2 &&
      response.body.deliveries.every((delivery: { status: string }) => delivery.status === 'succeeded'),
  );
  return {
    tenant: owner,
    environment,
    key,
    vendorData,
    workflowId: workflow.body.workflow_id,
    replayId: replay.body.replay_id,
    approvedSessionId: approved.sessionId,
    serviceToken: approved.serviceToken,
    pendingSessionId: pending.body.session_id,
    sessionToken: tokenOf(pending.body.url),
    listId: list.body.uuid,
    builtInListId: builtIn.uuid,
    entryId: entry.body.uuid,
    destinationId: destination.body.uuid,
    deliveryId: deliveries.body.deliveries[0].id,
    shareToken: await share(),
    ledgerEntryId: ledger.body.entries[0].entry_id,
    redirectOrigin,
    reasonCode,
  };
}

/** A pending session of another principal; its end-user token must not reach the owner's session. */
async function foreignSessionToken(key: string): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'standard_kyc', vendor_data: `matrix-foreign-${Math.random()}` },
  });
  expect(created.status).toBe(201);
  return tokenOf(created.body.url);
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  testApp = await startTestApp({ EMITTER_IN_PROCESS: 'true', DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true', EMITTER_POLL_INTERVAL_MS: '20' });
  [owner, outsider, partner] = await Promise.all([testApp.tenant(), testApp.tenant(), testApp.tenant()]);
  for (const environment of ['live', 'sandbox'] as const) {
    owned[environment] = await makeOwned(environment);
  }
  const [ownerAdmin, outsiderAdmin] = [await makeOperator(testApp, owner.id, 'admin'), await makeOperator(testApp, outsider.id, 'admin')];
  for (const environment of ['live', 'sandbox'] as const) {
    foreignOperators[environment] = [
      await signIn(testApp, ownerAdmin, OTHER[environment]),
      await signIn(testApp, outsiderAdmin, environment),
    ];
    ownOperators[environment] = await signIn(testApp, ownerAdmin, environment);
    foreignTokens[environment] = [
      await foreignSessionToken(keyOf(owner, OTHER[environment])),
      await foreignSessionToken(keyOf(outsider, environment)),
    ];
  }
}, 120_000);

afterAll(async () => {
  await testApp?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** The root field an operation document selects. */
function rootFieldOf(document: DocumentNode): string {
  const operation = document.definitions.find((definition) => definition.kind === 'OperationDefinition') as OperationDefinitionNode;
  const [field] = operation.selectionSet.selections;
  if (field?.kind !== 'Field') throw new Error('operation without a root field');
  return field.name.value;
}

describe('the tenant and environment matrix', () => {
  it('given the route table and the schema, when enumerated, then every route and every root operation has a case here', () => {
    const routes = REST_ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(
      routes.filter((route) => !ROUTE_CASES[route]),
      'routes without a case',
    ).toEqual([]);
    expect(
      Object.keys(ROUTE_CASES).filter((route) => !routes.includes(route)),
      'cases without a route',
    ).toEqual([]);

    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const covered = new Set([
      ...REST_ROUTES.map((route) => rootFieldOf(route.operation as DocumentNode)),
      ...Object.keys(END_USER_CASES),
      ...Object.keys(OPERATOR_CASES),
      ...SUBSCRIPTION_CASES,
    ]);
    const operations = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
      type ? Object.keys(type.getFields()) : [],
    );
    expect(
      operations.filter((operation) => !covered.has(operation)),
      'operations without a case',
    ).toEqual([]);
  });

  describe.each(['live', 'sandbox'] as const)('given objects owned in %s', (environment) => {
    it('when a key of the other environment and a key of another tenant call every route and operation, then each answers as for nothing there and the owner sees no change', async () => {
      const o = owned[environment]!;
      // The other environment's case ran first, and its callers (this owner's key and admin there)
      // made sessions here whose webhook deliveries may still be on their way: settle them first.
      await until(
        () => testApp.rest('GET', `/v1/webhook-destinations/${o.destinationId}/deliveries`, { key: o.key }),
        (response) => response.body.deliveries?.every((delivery: { status: string }) => delivery.status === 'succeeded'),
      );
      const before = await snapshot(o);
      for (const route of REST_ROUTES) {
        const routeCase = ROUTE_CASES[`${route.method} ${route.path}`]!;
        const foreign = routeCase.callers?.(o).foreign ?? foreignKeys(o);
        for (const key of foreign) {
          for (const call of routeCase.calls(o)) {
            const what = `${route.method} ${pathOf(route, call)} with ${key.slice(0, 12)}`;
            expectRefused(await viaRest(route, call, key), routeCase.refusal, o, call, `REST ${what}`);
            expectRefused(
              await viaGraphQL(route, call, key),
              routeCase.refusal,
              o,
              call,
              `GraphQL ${rootFieldOf(route.operation)} ${what}`,
            );
          }
        }
        // Sharing's callers are tenants by their keys' application; the operators' case is the others'.
        if (routeCase.callers) continue;
        for (const [index, operator] of foreignOperators[environment]!.entries()) {
          for (const call of routeCase.calls(o)) {
            const what = `GraphQL ${rootFieldOf(route.operation)} ${route.method} ${pathOf(route, call)} by foreign operator ${index}`;
            expectRefused(await viaGraphQL(route, call, operator), routeCase.refusal, o, call, what);
          }
        }
      }
      for (const [operation, operatorCase] of Object.entries(OPERATOR_CASES)) {
        for (const caller of [...foreignKeys(o), ...foreignOperators[environment]!]) {
          const answer =
            typeof caller === 'string'
              ? await gql(testApp, { key: caller }, operatorCase.query, operatorCase.variables(o))
              : await consoleGql(testApp, caller, operatorCase.query, operatorCase.variables(o));
          expectRefused({ status: answer.status, body: answer.body }, 'no_leak', o, {}, `${operation} by a foreign principal`);
        }
      }
      for (const [operation, endUserCase] of Object.entries(END_USER_CASES)) {
        const credentials: Credential[] = [
          ...foreignKeys(o).map((key) => ({ key })),
          ...foreignTokens[environment]!.map((sessionToken) => ({ sessionToken })),
        ];
        for (const credential of credentials) {
          const answer = await gql(testApp, credential, endUserCase.query, endUserCase.variables(o));
          const what = `${operation} with ${JSON.stringify(credential).slice(0, 30)}`;
          expect.soft(answer.body.errors?.[0]?.extensions?.code, `${what}: ${JSON.stringify(answer.body)}`).toBe('NOT_FOUND');
        }
        for (const [index, operator] of foreignOperators[environment]!.entries()) {
          const answer = await consoleGql(testApp, operator, endUserCase.query, endUserCase.variables(o));
          const what = `${operation} by foreign operator ${index}`;
          expect.soft(answer.body.errors?.[0]?.extensions?.code, `${what}: ${JSON.stringify(answer.body)}`).toBe('NOT_FOUND');
        }
      }
      expect(await snapshot(o)).toEqual(before);
    }, 240_000);

    it('when its own key makes the same calls, then none of them is refused as not found', async () => {
      const o = owned[environment]!;
      for (const [operation, endUserCase] of Object.entries(END_USER_CASES)) {
        const answer = await gql(testApp, { sessionToken: o.sessionToken }, endUserCase.query, endUserCase.variables(o));
        expect(answer.body.errors?.[0]?.extensions?.code ?? 'ok', `${operation}: ${JSON.stringify(answer.body)}`).not.toMatch(
          /NOT_FOUND|INTERNAL_ERROR/,
        );
      }
      // Deeper paths first within a phase: an entry is deleted before its list.
      const deepestFirst = [...REST_ROUTES].sort((a, b) => b.path.split('/').length - a.path.split('/').length);
      for (const phase of ['read', 'write', 'delete'] as const) {
        for (const route of deepestFirst) {
          const routeCase = ROUTE_CASES[`${route.method} ${route.path}`]!;
          if ((routeCase.phase ?? 'read') !== phase) continue;
          const own = routeCase.callers?.(o).own ?? o.key;
          for (const call of routeCase.calls(o)) {
            const what = `${route.method} ${pathOf(route, call)}`;
            // A deletion or a redemption succeeds once: its GraphQL twin is checked on the same footing before it.
            const transports = phase === 'delete' || route.path.endsWith('import-shared') ? [viaRest] : [viaGraphQL, viaRest];
            // The owner's admin in the console reaches the same objects (reads and writes; a deletion succeeds once).
            const withOperator =
              phase === 'delete' || routeCase.callers ? [] : [(r: RestRoute, c: Call) => viaGraphQL(r, c, ownOperators[environment]!)];
            for (const transport of [...transports.map((t) => (r: RestRoute, c: Call) => t(r, c, own)), ...withOperator]) {
              const answer = await transport(route, call);
              expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).not.toBe(404);
              expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
              if (routeCase.shows) expect(JSON.stringify(answer.body), what).toContain(routeCase.shows(o));
            }
          }
        }
      }
    }, 240_000);
  });

  describe('given a status change of an owner session', () => {
    it('when subscribers of the other environment and of another tenant listen, then only the owner environment subscriber receives it', async () => {
      for (const environment of ['live', 'sandbox'] as const) {
        const ownSubscriber = recordStatusEvents(testApp.ws({ 'x-api-key': keyOf(owner, environment) }));
        const foreign = [keyOf(owner, OTHER[environment]), keyOf(outsider, environment)].map((key) => ({
          key,
          events: recordStatusEvents(testApp.ws({ 'x-api-key': key })),
        }));
        await waitForSubscribers(testApp.app.services.live, 3);
        const vendorData = `matrix-subscription-${environment}`;
        const created = await testApp.rest('POST', '/v1/sessions', {
          key: keyOf(owner, environment),
          body: { workflow_id: 'standard_kyc', vendor_data: vendorData },
        });
        const [seen] = await ownSubscriber.take(1);
        expect(seen).toMatchObject({ sessionId: created.body.session_id, environment });
        // Each foreign subscriber's own next event proves the owner's event was published before it and skipped.
        for (const subscriber of foreign) {
          const control = await testApp.rest('POST', '/v1/sessions', {
            key: subscriber.key,
            body: { workflow_id: 'standard_kyc', vendor_data: `${vendorData}-control` },
          });
          const [first] = await subscriber.events.take(1);
          expect(first!.sessionId).toBe(control.body.session_id);
        }
        for (const subscription of [ownSubscriber, ...foreign.map((subscriber) => subscriber.events)]) subscription.unsubscribe();
        await waitForSubscribers(testApp.app.services.live, 0);
      }
    }, 60_000);
  });
});
