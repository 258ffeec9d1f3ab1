/**
 * Claim and assign (issue 16): a reviewer claims an in-review case so that nobody else decides
 * it, an admin may hand it to someone, API keys review regardless (the spec's integrator review),
 * two decisions at once leave exactly one winner, every change is audited with the operator's
 * name, and consoles following the review queue hear of each claim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForSubscribers } from '../events/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import {
  codeOf,
  consoleGql,
  consoleSocket,
  inReviewSession,
  makeOperator,
  operatorAuditOf,
  operatorIdOf,
  signIn,
  type ConsoleCredential,
} from './support.js';

const CLAIM = /* GraphQL */ `
  mutation ($id: String!) {
    claimSession(id: $id) {
      sessionId
      operatorName
    }
  }
`;
const RELEASE = /* GraphQL */ `
  mutation ($id: String!) {
    releaseSession(id: $id)
  }
`;
const ASSIGN = /* GraphQL */ `
  mutation ($id: String!, $operatorId: String!) {
    assignSession(id: $id, operatorId: $operatorId) {
      operatorId
      operatorName
    }
  }
`;
const REVIEW = /* GraphQL */ `
  mutation ($id: String!, $decision: ReviewDecision!, $reason: String!) {
    reviewSession(id: $id, decision: $decision, reason: $reason) {
      id
      status
    }
  }
`;
const SESSION = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      claim {
        operatorId
        operatorName
      }
      reviewHistory {
        toStatus
      }
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let ada: ConsoleCredential;
let grace: ConsoleCredential;
let admin: ConsoleCredential;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  [ada, grace, admin] = await Promise.all([
    makeOperator(testApp, tenant.id, 'reviewer', 'Ada Lovelace').then((email) => signIn(testApp, email)),
    makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper').then((email) => signIn(testApp, email)),
    makeOperator(testApp, tenant.id, 'admin', 'Alan Turing').then((email) => signIn(testApp, email)),
  ]);
}, 60_000);
afterAll(() => testApp?.close());

describe('claiming a case', () => {
  it('given a case Ada claimed, when Grace decides or claims it, then both are refused with SESSION_CLAIMED and nothing changes; Ada decides it and the claim is gone', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);

    const claimed = await consoleGql(testApp, ada, CLAIM, { id });
    const again = await consoleGql(testApp, ada, CLAIM, { id });
    const graceDecides = await consoleGql(testApp, grace, REVIEW, { id, decision: 'approved', reason: 'looks fine' });
    const graceClaims = await consoleGql(testApp, grace, CLAIM, { id });
    const seen = await consoleGql(testApp, grace, SESSION, { id });

    expect(claimed.body.data.claimSession).toEqual({ sessionId: id, operatorName: 'Ada Lovelace' });
    expect(again.body.data.claimSession.operatorName).toBe('Ada Lovelace');
    expect(codeOf(graceDecides)).toBe('SESSION_CLAIMED');
    expect(graceDecides.body.errors[0].message).toContain('Ada Lovelace');
    expect(codeOf(graceClaims)).toBe('SESSION_CLAIMED');
    expect(seen.body.data.session).toMatchObject({ status: 'in_review', claim: { operatorName: 'Ada Lovelace' } });

    const decided = await consoleGql(testApp, ada, REVIEW, { id, decision: 'declined', reason: 'sanctioned' });
    expect(decided.body.data?.reviewSession.status).toBe('declined');
    expect((await consoleGql(testApp, ada, SESSION, { id })).body.data.session.claim).toBeNull();
    expect(await operatorAuditOf(testApp, id)).toEqual([{ action: 'session.claimed', actor_name: 'Ada Lovelace', environment: 'sandbox' }]);
  });

  it('given a claimed case, when the tenant API key reviews it, then the integrator review works as the spec says', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    await consoleGql(testApp, ada, CLAIM, { id });

    const reviewed = await testApp.rest('POST', `/v1/sessions/${id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'approved', reason: 'checked by the integrator' },
    });

    expect(reviewed.status).toBe(200);
    expect(reviewed.body.status).toBe('approved');
  });

  it('given a claim, when its holder releases it, then another reviewer may claim it; a reviewer cannot release a colleague’s claim but an admin can', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    await consoleGql(testApp, ada, CLAIM, { id });

    expect(codeOf(await consoleGql(testApp, grace, RELEASE, { id }))).toBe('SESSION_CLAIMED');
    expect((await consoleGql(testApp, ada, RELEASE, { id })).body.data.releaseSession).toBe(true);
    expect((await consoleGql(testApp, grace, CLAIM, { id })).body.data.claimSession.operatorName).toBe('Grace Hopper');
    expect((await consoleGql(testApp, admin, RELEASE, { id })).body.data.releaseSession).toBe(true);

    expect((await operatorAuditOf(testApp, id)).map((row) => `${row.action} by ${row.actor_name}`)).toEqual([
      'session.claimed by Ada Lovelace',
      'session.released by Ada Lovelace',
      'session.claimed by Grace Hopper',
      'session.released by Alan Turing',
    ]);
  });

  it('given a case, when an admin assigns it to Grace, then Grace holds it; a reviewer may not assign and a viewer may not claim', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    await consoleGql(testApp, ada, CLAIM, { id });

    const byReviewer = await consoleGql(testApp, ada, ASSIGN, { id, operatorId: await operatorIdOf(testApp, ada) });
    const toViewer = await consoleGql(testApp, admin, ASSIGN, { id, operatorId: await operatorIdOf(testApp, viewer) });
    const assigned = await consoleGql(testApp, admin, ASSIGN, { id, operatorId: await operatorIdOf(testApp, grace) });
    const viewerClaims = await consoleGql(testApp, viewer, CLAIM, { id });

    expect(codeOf(byReviewer)).toBe('FORBIDDEN');
    expect(codeOf(toViewer)).toBe('VALIDATION_FAILED');
    expect(assigned.body.data.assignSession).toEqual({ operatorId: await operatorIdOf(testApp, grace), operatorName: 'Grace Hopper' });
    expect(codeOf(viewerClaims)).toBe('FORBIDDEN');
    expect(codeOf(await consoleGql(testApp, ada, REVIEW, { id, decision: 'approved', reason: 'mine' }))).toBe('SESSION_CLAIMED');
    expect((await operatorAuditOf(testApp, id)).at(-1)).toEqual({
      action: 'session.assigned',
      actor_name: 'Alan Turing',
      environment: 'sandbox',
    });
  });

  it('given cases of another tenant, of the other environment and an operator of another tenant, when claiming or assigning, then each is NOT_FOUND', async () => {
    const foreign = await inReviewSession(testApp, other.sandboxKey);
    const own = await inReviewSession(testApp, tenant.sandboxKey);
    const live = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'), 'live');
    const outsider = await signIn(testApp, await makeOperator(testApp, other.id, 'reviewer'));

    expect(codeOf(await consoleGql(testApp, ada, CLAIM, { id: foreign }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, live, CLAIM, { id: own }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, live, RELEASE, { id: own }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, admin, ASSIGN, { id: own, operatorId: await operatorIdOf(testApp, outsider) }))).toBe(
      'NOT_FOUND',
    );
    expect(codeOf(await consoleGql(testApp, admin, ASSIGN, { id: foreign, operatorId: await operatorIdOf(testApp, grace) }))).toBe(
      'NOT_FOUND',
    );
  });

  it('given an API key, when it claims, then it is FORBIDDEN: claims are for people', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);

    const answer = await testApp.graphql(CLAIM, { id }, tenant.sandboxKey);

    expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('two reviewers deciding at once', () => {
  it('given an unclaimed case, when Ada approves and Grace declines at the same moment, then exactly one wins and the other gets a conflict with nothing changed', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);

    const answers = await Promise.all([
      consoleGql(testApp, ada, REVIEW, { id, decision: 'approved', reason: 'Ada says yes' }),
      consoleGql(testApp, grace, REVIEW, { id, decision: 'declined', reason: 'Grace says no' }),
    ]);

    const won = answers.filter((answer) => !answer.body.errors);
    const lost = answers.filter((answer) => answer.body.errors);
    expect(won).toHaveLength(1);
    expect(lost.map(codeOf)).toEqual(['INVALID_TRANSITION']);
    const after = (await consoleGql(testApp, ada, SESSION, { id })).body.data.session;
    expect(after.status).toBe(won[0]!.body.data.reviewSession.status);
    expect(
      after.reviewHistory.filter(
        (change: { toStatus: string }) =>
          change.toStatus !== 'in_review' && change.toStatus !== 'pending' && change.toStatus !== 'in_progress',
      ),
    ).toHaveLength(1);
  });
});

describe('the review queue hears of claims', () => {
  it('given a console following reviewQueue, when a case is claimed and released, then it gets both changes with the holder', async () => {
    const id = await inReviewSession(testApp, tenant.sandboxKey);
    const socket = consoleSocket(testApp, grace, grace.csrfToken);
    const received: { sessionId: string; actor: string; reason: string | null }[] = [];
    const both = new Promise<void>((resolve, reject) => {
      socket.subscribe<{ reviewQueue: { sessionId: string; actor: string; reason: string | null } }>(
        { query: 'subscription { reviewQueue { sessionId actor reason } }' },
        {
          next: ({ data }) => {
            received.push(data!.reviewQueue);
            if (received.length === 2) resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await waitForSubscribers(testApp.app.services.live, 1);

    await consoleGql(testApp, ada, CLAIM, { id });
    await consoleGql(testApp, ada, RELEASE, { id });
    await both;

    expect(received).toEqual([
      { sessionId: id, actor: 'claim', reason: 'Ada Lovelace' },
      { sessionId: id, actor: 'claim', reason: null },
    ]);
    await socket.dispose();
  });
});
