/**
 * Who may call what (src/auth/authorization.ts): (a) every root field of the built schema against
 * every caller kind, decided by the module and compared with the expectation written out here,
 * so a field added without being classified fails; (b) through the real API, one refused cell
 * per audience, each with FORBIDDEN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '../../entities/operator.entity.js';
import { CALLER_KINDS, decide, ROOT_FIELD_RULES, type CallerKind, type RootOperation } from '../../src/auth/authorization.js';
import type { Principal } from '../../src/auth/context.js';
import { getSchema } from '../../src/graphql/schema.js';
import { codeOf, consoleGql, makeOperator, signIn, type ConsoleCredential } from '../console/support.js';
import { gql, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

/** The audience of each root field and the least role that may run it, as this test expects it. */
const S = 'session/viewer';
const SA = 'session/admin';
const T = 'tenant/viewer';
const TR = 'tenant/reviewer';
const TA = 'tenant/admin';
const OR = 'operators/reviewer';
const OA = 'operators/admin';
const A = 'admins/admin';
const SELF = 'self/viewer';

const EXPECTED: Record<RootOperation, Record<string, string>> = {
  query: {
    apiKeys: A,
    assignmentRules: T,
    auditLog: A,
    currentOperator: T,
    decisionsByReason: T,
    decisionsPerDay: T,
    flowSettings: T,
    hostedFlow: S,
    introspectServiceToken: T,
    ledgerEntries: T,
    list: T,
    listEntries: T,
    listEntriesConnection: T,
    lists: T,
    operatorInvitations: A,
    operators: A,
    reasonCodes: T,
    reviewBacklog: T,
    reviewQueueSessions: T,
    searchSessions: T,
    session: T,
    sessionFunnel: T,
    sessionNotes: T,
    sessionTimeline: T,
    sessions: T,
    timeToDecision: T,
    verificationSteps: S,
    webhookDeliveries: T,
    webhookDeliveriesConnection: T,
    webhookDelivery: T,
    webhookDestination: T,
    webhookDestinations: T,
    webhookDestinationsConnection: T,
    workflow: T,
    workflowPublications: T,
    workflowReplay: T,
    workflowRevisions: T,
    workflowSlas: T,
    workflows: T,
  },
  mutation: {
    addDocumentListEntry: TR,
    addFaceListEntry: TR,
    addNameListEntry: TR,
    addSessionNote: TR,
    applyAssignmentRules: A,
    assignSession: OA,
    bulkAction: OR,
    changeOwnPassword: SELF,
    checkProofOfAddress: TA,
    claimSession: OR,
    confirmPhoneCode: SA,
    confirmTotpEnrolment: SELF,
    createApiKey: A,
    createAssignmentRule: A,
    createList: TA,
    createOperator: A,
    createReasonCode: TA,
    createSession: TA,
    createWebhookDestination: TA,
    createWorkflow: TA,
    deleteAssignmentRule: A,
    deleteList: TA,
    deleteListEntry: TR,
    deleteReasonCode: TA,
    deleteWebhookDestination: TA,
    deleteWorkflow: TA,
    disableOwnTotp: SELF,
    disposeAmlHit: TR,
    eraseSession: TA,
    importSharedSession: TA,
    inviteOperator: A,
    issueCaptureNonce: SA,
    nextCase: OR,
    publishWorkflowRevision: TA,
    releaseSession: OR,
    replayWebhookDelivery: TR,
    requestPhoneCode: SA,
    requestRetake: TR,
    resetOperatorPassword: A,
    resetOperatorTotp: A,
    reviewSession: TR,
    revokeApiKey: A,
    revokeOperatorInvitation: A,
    revokeServiceToken: TA,
    rotateCallbackSecret: TA,
    saveWorkflowDraft: TA,
    screenAml: TA,
    sendTestWebhook: TA,
    setEvidenceRetention: OA,
    setWorkflowSla: A,
    shareSession: TA,
    startLivenessChallenge: SA,
    startTotpEnrolment: SELF,
    startWorkflowReplay: TA,
    submitAmlData: SA,
    submitBusinessRegistry: SA,
    submitDocument: SA,
    submitProofOfAddress: SA,
    submitSelfie: SA,
    updateFlowSettings: TA,
    updateList: TA,
    updateOperator: A,
    updateWebhookDestination: TA,
    updateWorkflow: TA,
    verifyIdDocument: TA,
  },
  subscription: { hostedFlowChanged: S, reviewQueue: T, sessionStatusChanged: T },
};

const RANK: Record<OperatorRole, number> = { viewer: 0, reviewer: 1, admin: 2 };

/** The expected answer of one cell: allowed, or the error code. */
function expectedCell(operation: RootOperation, expectation: string, kind: CallerKind): 'allowed' | 'UNAUTHENTICATED' | 'FORBIDDEN' {
  const [audience, minRole] = expectation.split('/') as [string, OperatorRole];
  if (kind === 'none') return 'UNAUTHENTICATED';
  if (kind === 'end_user') return audience === 'session' ? 'allowed' : 'FORBIDDEN';
  if (kind === 'api_key') return audience === 'session' || audience === 'tenant' ? 'allowed' : 'FORBIDDEN';
  // Operators: reads are every role's unless for admins; a mutation needs its least role.
  const needed = operation === 'mutation' || audience === 'admins' ? minRole : 'viewer';
  return RANK[kind] >= RANK[needed] ? 'allowed' : 'FORBIDDEN';
}

/** A principal of each kind, for the unit table. */
function principalOf(kind: CallerKind): Principal | null {
  const scope = { tenantId: 't', environment: 'sandbox' as const };
  if (kind === 'none') return null;
  if (kind === 'end_user') return { kind: 'end_user', token: 'x' };
  if (kind === 'api_key') return { kind: 'api_key', apiKeyId: 'k', ...scope };
  return { kind: 'operator', operatorId: 'o', operatorName: 'O', role: kind, loginId: 'l', ...scope };
}

describe('who may call what: every root field × every caller kind', () => {
  it('classifies every root field of the schema, and nothing else', async () => {
    const schema = await getSchema();
    const types = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() };
    for (const operation of ['query', 'mutation', 'subscription'] as const) {
      const fields = Object.keys(types[operation]!.getFields()).sort();
      expect(Object.keys(ROOT_FIELD_RULES[operation]).sort(), `${operation} fields of the rules`).toEqual(fields);
      expect(Object.keys(EXPECTED[operation]).sort(), `${operation} fields of this test's table`).toEqual(fields);
    }
  });

  it('decides each cell as the table expects', () => {
    const wrong: string[] = [];
    let cells = 0;
    for (const operation of ['query', 'mutation', 'subscription'] as const)
      for (const [field, expectation] of Object.entries(EXPECTED[operation]))
        for (const kind of CALLER_KINDS) {
          const decision = decide(operation, field, principalOf(kind));
          const got = decision.allowed ? 'allowed' : decision.code.toUpperCase();
          const want = expectedCell(operation, expectation, kind);
          cells += 1;
          if (got !== want) wrong.push(`${operation} ${field} as ${kind}: ${got}, expected ${want}`);
          if (!decision.allowed) expect(decision.message.length).toBeGreaterThan(10);
        }
    expect(wrong).toEqual([]);
    expect(cells).toBe(107 * CALLER_KINDS.length);
  });

  it('keeps an operator whose password an admin chose to changeOwnPassword', () => {
    const principal = { ...principalOf('admin')!, passwordChangeRequired: true } as Principal;
    expect(decide('mutation', 'changeOwnPassword', principal).allowed).toBe(true);
    expect(decide('mutation', 'createList', principal)).toMatchObject({ allowed: false, code: 'forbidden' });
    expect(decide('query', 'lists', principal).allowed).toBe(true);
  });
});

describe('who may call what, through the API', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let viewer: ConsoleCredential;
  let reviewer: ConsoleCredential;
  let sessionToken: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'));
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'aml_only', vendor_data: `authz-${Math.random()}` },
    });
    expect(created.status).toBe(201);
    sessionToken = tokenOf(created.body.url);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('refuses an API key an operators-only operation', async () => {
    const answer = await testApp.graphql('mutation { nextCase }', {}, tenant.sandboxKey);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(answer.body.errors?.[0]?.message).toBe('The workload actions are for operators signed in to the console, not API keys.');
  });

  it('refuses a reviewer an admins-only read', async () => {
    const answer = await consoleGql(testApp, reviewer, '{ auditLog { pageInfo { hasNextPage } } }');
    expect(codeOf(answer)).toBe('FORBIDDEN');
    expect(answer.body.errors[0].message).toBe('A reviewer cannot read the audit log; ask an admin.');
  });

  it('refuses a viewer a mutation', async () => {
    const answer = await consoleGql(testApp, viewer, 'mutation { createList(input: { name: "x", type: name }) { id } }');
    expect(codeOf(answer)).toBe('FORBIDDEN');
    expect(answer.body.errors[0].message).toBe('A viewer cannot run createList; ask an admin of your organisation.');
  });

  it('refuses an end-user token a tenant operation, and answers it on its own steps', async () => {
    const refused = await gql(testApp, { sessionToken }, '{ workflows { id } }');
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'aml_only', vendor_data: `authz-${Math.random()}` },
    });
    const steps = await gql(
      testApp,
      { sessionToken: tokenOf(created.body.url) },
      'query ($id: String!) { verificationSteps(sessionId: $id) { sessionId } }',
      {
        id: created.body.session_id,
      },
    );
    expect(steps.body.errors).toBeUndefined();
  });
});
