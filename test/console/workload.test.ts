/**
 * Workload (issue 25): a review SLA per workflow with each case's age and a breach marker,
 * assignment rules (round robin by workflow or country), "next case", and bulk claim, assign,
 * approve, decline and retake with one reason, each case audited on its own; inside the tenant and
 * environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { codeOf, consoleGql, inReviewSession, makeOperator, operatorIdOf, signIn, type ConsoleCredential } from './support.js';

const SET_SLA = /* GraphQL */ `
  mutation ($workflowId: String!, $minutes: Int) {
    setWorkflowSla(workflowId: $workflowId, minutes: $minutes) {
      workflowId
      minutes
    }
  }
`;
const CASE_SLA = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      reviewSla {
        ageSeconds
        minutes
        dueAt
        breached
      }
    }
  }
`;
const CREATE_RULE = /* GraphQL */ `
  mutation ($input: AssignmentRuleInput!) {
    createAssignmentRule(input: $input) {
      id
      operatorIds
    }
  }
`;
const DELETE_RULE = /* GraphQL */ `
  mutation ($id: String!) {
    deleteAssignmentRule(id: $id)
  }
`;
const APPLY = /* GraphQL */ `
  mutation {
    applyAssignmentRules
  }
`;
const NEXT = /* GraphQL */ `
  mutation {
    nextCase
  }
`;
const BULK = /* GraphQL */ `
  mutation ($input: BulkActionInput!) {
    bulkAction(input: $input) {
      sessionId
      ok
      code
    }
  }
`;
const CLAIM_OF = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      claim {
        operatorId
      }
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let admin: ConsoleCredential;
let adminLive: ConsoleCredential;
let ada: ConsoleCredential;
let grace: ConsoleCredential;
let viewer: ConsoleCredential;
let otherAdmin: ConsoleCredential;
let adaId: string;
let graceId: string;

/** Runs one operation and fails the test on any error. */
async function ok(credential: ConsoleCredential, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const answer = await consoleGql(testApp, credential, query, variables);
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data;
}

/** Releases every claim of the tenant's sandbox cases so each test starts from an unheld queue. */
async function releaseAll(): Promise<void> {
  await testApp.app.orm.em.fork().execute('delete from session_claim where tenant_id = ?', [tenant.id]);
}

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  const adminEmail = await makeOperator(testApp, tenant.id, 'admin', 'Ada Admin');
  admin = await signIn(testApp, adminEmail, 'sandbox');
  adminLive = await signIn(testApp, adminEmail, 'live');
  ada = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Ada Lovelace'));
  grace = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper'));
  viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
  otherAdmin = await signIn(testApp, await makeOperator(testApp, other.id, 'admin'));
  [adaId, graceId] = await Promise.all([operatorIdOf(testApp, ada), operatorIdOf(testApp, grace)]);
}, 60_000);
afterAll(() => testApp?.close());

describe('SLA per workflow', () => {
  it('given a workflow SLA, when a case of it is read, then its age, due time and breach marker follow the SLA; removing it clears them', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    const none = (await ok(admin, CASE_SLA, { id })).session.reviewSla;
    await ok(admin, SET_SLA, { workflowId: 'aml_only', minutes: 60 });
    const within = (await ok(admin, CASE_SLA, { id })).session.reviewSla;
    // The case entered review over a minute "ago": the SLA of one minute is past.
    await testApp.app.orm.em.fork().execute(`update session set review_entered_at = now() - interval '2 minutes' where id = ?`, [id]);
    await ok(admin, SET_SLA, { workflowId: 'aml_only', minutes: 1 });
    const breached = (await ok(admin, CASE_SLA, { id })).session.reviewSla;
    const live = await consoleGql(testApp, adminLive, '{ workflowSlas { workflowId minutes } }');
    await ok(admin, SET_SLA, { workflowId: 'aml_only', minutes: null });

    expect(none).toMatchObject({ minutes: null, dueAt: null, breached: false });
    expect(within).toMatchObject({ minutes: 60, breached: false });
    // Due an hour after entering review (seconds are rounded on both sides, and the clock moved on).
    expect(Math.abs(within.dueAt - (Math.floor(Date.now() / 1000) - within.ageSeconds) - 3600)).toBeLessThanOrEqual(3);
    expect(breached).toMatchObject({ minutes: 1, breached: true });
    expect(breached.ageSeconds).toBeGreaterThanOrEqual(120);
    expect(live.body.data.workflowSlas).toEqual([]);
  });

  it('given a session created days ago that entered review just now, then its age and due time count from its entry into review, not from creation', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    await testApp.app.orm.em.fork().execute(`update session set created_at = now() - interval '3 days' where id = ?`, [id]);
    await ok(admin, SET_SLA, { workflowId: 'aml_only', minutes: 60 });
    const sla = (await ok(admin, CASE_SLA, { id })).session.reviewSla;
    const entered = (await ok(admin, 'query ($id: String!) { session(id: $id) { createdAt reviewEnteredAt } }', { id })).session;
    await ok(admin, SET_SLA, { workflowId: 'aml_only', minutes: null });

    expect(entered.reviewEnteredAt - entered.createdAt).toBeGreaterThanOrEqual(3 * 86_400 - 60);
    expect(sla.ageSeconds).toBeLessThan(600);
    expect(sla).toMatchObject({ minutes: 60, breached: false, dueAt: entered.reviewEnteredAt + 3600 });
  });

  it('given bad input or the wrong caller, when setting an SLA, then refused', async () => {
    expect(codeOf(await consoleGql(testApp, admin, SET_SLA, { workflowId: 'aml_only', minutes: 0 }))).toBe('VALIDATION_FAILED');
    expect(codeOf(await consoleGql(testApp, admin, SET_SLA, { workflowId: 'no-such-workflow', minutes: 5 }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, ada, SET_SLA, { workflowId: 'aml_only', minutes: 5 }))).toBe('FORBIDDEN');
    expect(
      (await testApp.graphql(SET_SLA, { workflowId: 'aml_only', minutes: 5 }, tenant.sandboxKey)).body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
  });
});

describe('assignment rules and next case', () => {
  it('given a round-robin rule for a workflow, when the rules run, then its unclaimed cases alternate between the pool, each audited', async () => {
    await releaseAll();
    const ids = [];
    for (let index = 0; index < 4; index += 1) ids.push(await inReviewSession(testApp, tenant.sandboxKey));
    const rule = (await ok(admin, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [adaId, graceId] } })).createAssignmentRule;
    const assigned = (await ok(admin, APPLY)).applyAssignmentRules;
    const holders = await Promise.all(ids.map(async (id) => (await ok(admin, CLAIM_OF, { id })).session.claim?.operatorId));
    const audit = (await ok(admin, '{ auditLog(filter: { action: "session.assigned" }) { edges { node { targetId } } } }')).auditLog.edges;
    await ok(admin, DELETE_RULE, { id: rule.id });

    expect(assigned).toBeGreaterThanOrEqual(4);
    expect(holders.filter((holder) => holder === adaId).length).toBe(2);
    expect(holders.filter((holder) => holder === graceId).length).toBe(2);
    for (const id of ids) expect(audit.map((edge: { node: { targetId: string } }) => edge.node.targetId)).toContain(id);
  });

  it('given a round-robin rule, when cases enter review, then each is handed out in the same transaction, alternating, audited under the rules, with nobody running them', async () => {
    await releaseAll();
    const rule = (await ok(admin, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [adaId, graceId] } })).createAssignmentRule;
    const ids = [];
    // inReviewSession returns once the submission answered in_review: the claim must already be there.
    for (let index = 0; index < 4; index += 1) ids.push(await inReviewSession(testApp, tenant.sandboxKey));
    const claims = await testApp.app.orm.em
      .fork()
      .execute<{ session_id: string; operator_id: string }[]>(
        'select session_id, operator_id from session_claim where session_id = any(?::uuid[])',
        [`{${ids.join(',')}}`],
      );
    const audit = (
      await ok(admin, '{ auditLog(filter: { action: "session.assigned" }) { edges { node { targetId actorName details } } } }')
    ).auditLog.edges.map((edge: { node: { targetId: string; actorName: string; details: string } }) => edge.node);
    await ok(admin, DELETE_RULE, { id: rule.id });

    const holders = ids.map((id) => claims.find((claim) => claim.session_id === id)?.operator_id);
    expect(holders.filter((holder) => holder === adaId).length).toBe(2);
    expect(holders.filter((holder) => holder === graceId).length).toBe(2);
    expect(holders[0]).not.toBe(holders[1]);
    for (const id of ids) {
      const line = audit.find((entry: { targetId: string }) => entry.targetId === id);
      expect(line).toMatchObject({ actorName: 'Assignment rules' });
      expect(JSON.parse(line!.details)).toMatchObject({ rule_id: rule.id, on: 'review_entry' });
      expect(['Ada Lovelace', 'Grace Hopper']).toContain(JSON.parse(line!.details).assignee_name);
    }
  });

  it('given a rule of the live environment or of another tenant, when a sandbox case enters review, then it is not handed out', async () => {
    await releaseAll();
    const liveRule = (await ok(adminLive, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [adaId] } })).createAssignmentRule;
    const otherOperator = await operatorIdOf(testApp, otherAdmin);
    const foreignRule = (await ok(otherAdmin, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [otherOperator] } }))
      .createAssignmentRule;
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    const held = (await ok(admin, CLAIM_OF, { id })).session.claim;
    await ok(adminLive, DELETE_RULE, { id: liveRule.id });
    await ok(otherAdmin, DELETE_RULE, { id: foreignRule.id });
    expect(held).toBeNull();
  });

  it('given a rule by country that matches nothing, then no case is handed out', async () => {
    await releaseAll();
    await inReviewSession(testApp, tenant.sandboxKey);
    const rule = (await ok(admin, CREATE_RULE, { input: { country: 'JP', operatorIds: [adaId] } })).createAssignmentRule;
    const assigned = (await ok(admin, APPLY)).applyAssignmentRules;
    await ok(admin, DELETE_RULE, { id: rule.id });
    expect(assigned).toBe(0);
  });

  it('given unclaimed cases, when a reviewer asks for the next case twice, then they get the longest-waiting one claimed, then the same one while they hold it', async () => {
    await releaseAll();
    const first = await nextCaseOf(grace);
    const again = await nextCaseOf(grace);
    const forAda = await nextCaseOf(ada);

    expect(first).not.toBeNull();
    expect((await ok(admin, CLAIM_OF, { id: first })).session.claim.operatorId).toBe(graceId);
    expect(again).toBe(first);
    expect(forAda).not.toBe(first);
    expect(codeOf(await consoleGql(testApp, viewer, NEXT))).toBe('FORBIDDEN');
  });

  it('given another tenant or environment, when reading or deleting rules and asking for the next case, then none of these cases or rules is reached', async () => {
    await releaseAll();
    const rule = (await ok(admin, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [adaId] } })).createAssignmentRule;
    expect(codeOf(await consoleGql(testApp, otherAdmin, DELETE_RULE, { id: rule.id }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, adminLive, DELETE_RULE, { id: rule.id }))).toBe('NOT_FOUND');
    expect((await ok(adminLive, '{ assignmentRules { id } }')).assignmentRules).toEqual([]);
    expect((await ok(otherAdmin, NEXT)).nextCase).toBeNull();
    expect((await ok(adminLive, NEXT)).nextCase).toBeNull();
    const foreignPool = await consoleGql(testApp, otherAdmin, CREATE_RULE, { input: { workflowId: 'aml_only', operatorIds: [adaId] } });
    expect(codeOf(foreignPool)).toBe('VALIDATION_FAILED');
    await ok(admin, DELETE_RULE, { id: rule.id });
  });
});

async function nextCaseOf(credential: ConsoleCredential): Promise<string | null> {
  return (await ok(credential, NEXT)).nextCase;
}

describe('bulk actions', () => {
  it('given three cases, one held by a colleague, when a reviewer declines them in bulk with one reason, then two are declined and audited one by one, and the held one is refused alone', async () => {
    await releaseAll();
    const ids = await Promise.all([0, 1, 2].map(() => inReviewSession(testApp, tenant.sandboxKey)));
    await ok(grace, 'mutation ($id: String!) { claimSession(id: $id) { operatorId } }', { id: ids[2] });
    const outcomes = (await ok(ada, BULK, { input: { sessionIds: ids, action: 'decline', reason: 'Bulk: known fraud ring' } })).bulkAction;
    const audit = (
      await ok(admin, '{ auditLog(filter: { action: "session.declined" }) { edges { node { targetId actorName details } } } }')
    ).auditLog.edges.map((edge: { node: unknown }) => edge.node);

    expect(outcomes).toEqual([
      { sessionId: ids[0], ok: true, code: null },
      { sessionId: ids[1], ok: true, code: null },
      { sessionId: ids[2], ok: false, code: 'SESSION_CLAIMED' },
    ]);
    for (const id of ids.slice(0, 2)) {
      const line = audit.find((entry: { targetId: string }) => entry.targetId === id);
      expect(line).toMatchObject({ actorName: 'Ada Lovelace' });
      expect(JSON.parse(line.details).reason).toBe('Bulk: known fraud ring');
    }
    expect((await ok(admin, CLAIM_OF, { id: ids[2] })).session.status).toBe('in_review');
  });

  it('given cases, when claiming, assigning, approving and sending for retake in bulk, then each case takes it', async () => {
    await releaseAll();
    const ids = await Promise.all([0, 1].map(() => inReviewSession(testApp, tenant.sandboxKey)));
    const claimed = (await ok(ada, BULK, { input: { sessionIds: ids, action: 'claim' } })).bulkAction;
    const assigned = (await ok(admin, BULK, { input: { sessionIds: ids, action: 'assign', operatorId: graceId } })).bulkAction;
    const reviewerAssign = (await ok(ada, BULK, { input: { sessionIds: ids, action: 'assign', operatorId: adaId } })).bulkAction;
    const retaken = (
      await ok(grace, BULK, { input: { sessionIds: [ids[0]], action: 'retake', nodeType: 'aml_screening', reason: 'Type your full name' } })
    ).bulkAction;
    const approved = (await ok(grace, BULK, { input: { sessionIds: [ids[1]], action: 'approve', reason: 'Not the listed person' } }))
      .bulkAction;

    expect(claimed.every((outcome: { ok: boolean }) => outcome.ok)).toBe(true);
    expect(assigned.every((outcome: { ok: boolean }) => outcome.ok)).toBe(true);
    expect(reviewerAssign.every((outcome: { code: string }) => outcome.code === 'FORBIDDEN')).toBe(true);
    expect(retaken).toEqual([{ sessionId: ids[0], ok: true, code: null }]);
    expect(approved).toEqual([{ sessionId: ids[1], ok: true, code: null }]);
    expect((await ok(admin, CLAIM_OF, { id: ids[0] })).session.status).toBe('in_progress');
    expect((await ok(admin, CLAIM_OF, { id: ids[1] })).session.status).toBe('approved');
  });

  it('given bad input, another tenant or the other environment, when acting in bulk, then refused per case or as a whole', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    const noReason = await consoleGql(testApp, ada, BULK, { input: { sessionIds: [id], action: 'decline' } });
    const empty = await consoleGql(testApp, ada, BULK, { input: { sessionIds: [], action: 'claim' } });
    const foreign = (await ok(otherAdmin, BULK, { input: { sessionIds: [id, 'not-a-uuid'], action: 'decline', reason: 'x' } })).bulkAction;
    const live = (await ok(adminLive, BULK, { input: { sessionIds: [id], action: 'approve', reason: 'x' } })).bulkAction;

    expect(codeOf(noReason)).toBe('VALIDATION_FAILED');
    expect(codeOf(empty)).toBe('VALIDATION_FAILED');
    expect(foreign.map((outcome: { code: string }) => outcome.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect(live).toEqual([{ sessionId: id, ok: false, code: 'NOT_FOUND' }]);
    expect((await ok(admin, CLAIM_OF, { id })).session.status).toBe('in_review');
    expect(codeOf(await consoleGql(testApp, viewer, BULK, { input: { sessionIds: [id], action: 'claim' } }))).toBe('FORBIDDEN');
  });
});
