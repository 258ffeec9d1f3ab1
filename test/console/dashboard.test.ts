/**
 * Dashboard aggregates (issue 16.4): decisions per day by outcome, the review backlog by age, the
 * funnel from created to decided and the time to decision, counted in SQL for the caller's tenant
 * and environment only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldSessionCounts } from '../../src/dashboard/stats.service.js';
import { SESSION_COUNTS_FOLD_QUEUE } from '../../src/jobs/jobs.js';
import { gql, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const DECISIONS = /* GraphQL */ `
  query ($days: Int) {
    decisionsPerDay(days: $days) {
      day
      approved
      declined
    }
  }
`;
const BACKLOG = /* GraphQL */ `
  query {
    reviewBacklog {
      underAnHour
      underADay
      underAWeek
      older
    }
  }
`;
const SUBMIT_AML = /* GraphQL */ `
  mutation ($sessionId: String!, $input: AmlStepInput!) {
    submitAmlData(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
}, 60_000);
afterAll(() => testApp?.close());

/** An AML-only sandbox session of `key` screened for `fullName`; returns its id and status. */
async function screened(key: string, fullName: string): Promise<{ id: string; status: string }> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `stats-${Math.random()}` },
  });
  const answer = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_AML, {
    sessionId: created.body.session_id,
    input: { fullName, country: 'GB' },
  });
  return { id: created.body.session_id, status: answer.body.data.submitAmlData.status };
}

const FUNNEL = /* GraphQL */ `
  query ($days: Int) {
    sessionFunnel(days: $days) {
      created
      started
      submitted
      decided
    }
  }
`;
const TIME_TO_DECISION = /* GraphQL */ `
  query ($days: Int) {
    timeToDecision(days: $days) {
      decided
      underAMinute
      underTenMinutes
      underAnHour
      underADay
      older
      p50Seconds
      p90Seconds
    }
  }
`;

/**
 * A session of `key` whose history is written as given: created `createdHoursAgo` hours ago, then
 * moved through `path`, each step `[status, seconds after creation]` written to its row and its
 * history; the last step is its status.
 */
async function history(key: string, createdHoursAgo: number, path: [string, number][]): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `funnel-${randomUUID()}` },
  });
  expect(created.status).toBe(201);
  const id = created.body.session_id as string;
  const em = testApp.app.orm.em.fork();
  const createdAt = new Date(Date.now() - createdHoursAgo * 3_600_000);
  await em.execute(`update session set created_at = ? where id = ?`, [createdAt, id]);
  await em.execute(`update session_status_change set created_at = ? where session_id = ?`, [createdAt, id]);
  let from = 'pending';
  for (const [to, seconds] of path) {
    // Each step changes the row's status, as the service does (the row keeps its furthest stage).
    await em.execute(`update session set status = ? where id = ?`, [to, id]);
    await em.execute(
      `insert into session_status_change (id, session_id, tenant_id, from_status, to_status, actor, created_at)
       select ?, id, tenant_id, ?, ?, 'decision_engine', ? from session where id = ?`,
      [randomUUID(), from, to, new Date(createdAt.getTime() + seconds * 1000), id],
    );
    from = to;
  }
  return id;
}

describe('dashboard aggregates', () => {
  it("given decisions and cases in review in this scope and elsewhere, when counting, then only this scope's count, by day and by age", async () => {
    expect((await screened(tenant.sandboxKey, 'Ada Lovelace')).status).toBe('approved');
    const review = await screened(tenant.sandboxKey, 'Sandbox Pep');
    const waiting = await screened(tenant.sandboxKey, 'Sandbox Pep');
    const old = await screened(tenant.sandboxKey, 'Sandbox Pep');
    await testApp.rest('POST', `/v1/sessions/${review.id}/review`, {
      key: tenant.sandboxKey,
      body: { decision: 'declined', reason: 'stats' },
    });
    await screened(other.sandboxKey, 'Ada Lovelace');
    await screened(other.sandboxKey, 'Sandbox Pep');
    await testApp.app.orm.em.fork().execute(`update session set updated_at = now() - interval '2 days' where id = ?`, [old.id]);

    const decisions = (await testApp.graphql(DECISIONS, { days: 3 }, tenant.sandboxKey)).body.data.decisionsPerDay;
    const backlog = (await testApp.graphql(BACKLOG, {}, tenant.sandboxKey)).body.data.reviewBacklog;
    const live = (await testApp.graphql(BACKLOG, {}, tenant.liveKey)).body.data.reviewBacklog;

    const today = new Date().toISOString().slice(0, 10);
    expect(decisions).toHaveLength(3);
    expect(decisions.at(-1)).toEqual({ day: today, approved: 1, declined: 1 });
    expect(decisions.slice(0, 2).every((day: { approved: number; declined: number }) => day.approved === 0 && day.declined === 0)).toBe(
      true,
    );
    expect(backlog).toEqual({ underAnHour: 1, underADay: 0, underAWeek: 1, older: 0 });
    expect(live).toEqual({ underAnHour: 0, underADay: 0, underAWeek: 0, older: 0 });
    expect(waiting.status).toBe('in_review');
  });

  it('given a number of days out of range, when counting, then it is VALIDATION_FAILED', async () => {
    for (const days of [0, 91]) {
      const answer = await testApp.graphql(DECISIONS, { days }, tenant.sandboxKey);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
  });

  it('given sessions with a known history in this scope and elsewhere, when charting the funnel and the time to decision, then the exact figures of this scope', async () => {
    const [mine, foreign] = await Promise.all([testApp.tenant(), testApp.tenant()]);
    const key = mine.sandboxKey;
    await history(key, 1, []); // created only
    await history(key, 1, [['in_progress', 10]]); // started
    await history(key, 1, [
      ['in_progress', 10],
      ['in_review', 50],
    ]); // submitted
    await history(key, 2, [['approved', 30]]); // decided in 30 s, without passing in_progress
    await history(key, 3, [
      ['in_progress', 10],
      ['declined', 300],
    ]); // decided in 5 min
    await history(key, 5, [
      ['in_progress', 10],
      ['expired', 3600],
    ]); // started, then expired
    await history(key, 48, [
      ['in_progress', 60],
      ['in_review', 600],
      ['approved', 7200],
    ]); // decided in 2 h
    await history(key, 72, [
      ['in_progress', 60],
      ['in_review', 600],
      ['approved', 172_800],
    ]); // decided in 2 days
    await history(key, 40 * 24, [['approved', 30]]); // created and decided 40 days ago: outside both windows
    await history(mine.liveKey, 1, [['approved', 30]]); // the live environment
    await history(foreign.sandboxKey, 1, [['declined', 30]]); // another tenant

    const funnel = (await testApp.graphql(FUNNEL, { days: 30 }, key)).body.data.sessionFunnel;
    expect(funnel).toEqual({ created: 8, started: 7, submitted: 5, decided: 4 });
    // The same once the triggers' pending changes are folded into the hourly counts.
    await foldSessionCounts(testApp.app.orm.em.fork());
    expect((await testApp.graphql(FUNNEL, { days: 30 }, key)).body.data.sessionFunnel).toEqual(funnel);
    const times = (await testApp.graphql(TIME_TO_DECISION, { days: 30 }, key)).body.data.timeToDecision;
    // Decided in 30, 300, 7 200 and 172 800 seconds: the median halves 300 and 7 200; the 90th
    // percentile is 7 200 + 0.7 × (172 800 − 7 200) (linear interpolation, percentile_cont).
    expect(times).toEqual({
      decided: 4,
      underAMinute: 1,
      underTenMinutes: 1,
      underAnHour: 0,
      underADay: 1,
      older: 1,
      p50Seconds: 3750,
      p90Seconds: 123_120,
    });
    // One day back: only the sessions created (or decided) in the last 24 hours.
    expect((await testApp.graphql(FUNNEL, { days: 1 }, key)).body.data.sessionFunnel).toEqual({
      created: 6,
      started: 5,
      submitted: 3,
      decided: 2,
    });
    expect((await testApp.graphql(FUNNEL, {}, mine.liveKey)).body.data.sessionFunnel).toEqual({
      created: 1,
      started: 1,
      submitted: 1,
      decided: 1,
    });
    const empty = (await testApp.graphql(TIME_TO_DECISION, {}, (await testApp.tenant()).sandboxKey)).body.data.timeToDecision;
    expect(empty).toMatchObject({ decided: 0, p50Seconds: null, p90Seconds: null });
    for (const query of [FUNNEL, TIME_TO_DECISION]) {
      const answer = await testApp.graphql(query, { days: 91 }, key);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
  });

  it('given sessions just inside and just outside the window, folded or not, and one deleted, when charting the funnel, then it counts by the exact instant of creation', async () => {
    const { sandboxKey: key } = await testApp.tenant();
    const fold = () => foldSessionCounts(testApp.app.orm.em.fork());
    const funnel = async (days: number) => (await testApp.graphql(FUNNEL, { days }, key)).body.data.sessionFunnel;
    // The window's first hour is partial (now − 24 h is rarely on the hour): it is counted from the
    // session rows, the whole hours after it from the counts; 6 minutes either side of its start.
    await history(key, 23.9, [['in_progress', 10]]);
    await history(key, 24.1, [['approved', 30]]);
    const inside = await history(key, 0, [
      ['in_progress', 10],
      ['in_review', 20],
    ]);
    const expected = { created: 2, started: 2, submitted: 1, decided: 0 };
    expect(await funnel(1)).toEqual(expected);
    await fold();
    expect(await funnel(1)).toEqual(expected);
    expect(await funnel(2)).toEqual({ created: 3, started: 3, submitted: 2, decided: 1 });

    // A later stage reached after the fold is a pending change beside the counts.
    await testApp.app.orm.em.fork().execute(`update session set status = 'declined' where id = ?`, [inside]);
    expect(await funnel(1)).toEqual({ ...expected, decided: 1 });
    // A deleted session (retention, a tenant's removal) leaves the counts with its row.
    await testApp.app.orm.em.fork().execute(`delete from session where id = ?`, [inside]);
    expect(await funnel(1)).toEqual({ created: 1, started: 1, submitted: 0, decided: 0 });
    await fold();
    expect(await funnel(1)).toEqual({ created: 1, started: 1, submitted: 0, decided: 0 });
    expect(await funnel(2)).toEqual({ created: 2, started: 2, submitted: 1, decided: 1 });
  });

  it("given sessions entering and leaving review, folded or not, when the review queue is read with its totalCount, then it is the scope's exact number in review", async () => {
    const [mine, foreign] = await Promise.all([testApp.tenant(), testApp.tenant()]);
    const QUEUE = '{ reviewQueueSessions(first: 1) { totalCount edges { node { id } } } }';
    const total = async (key: string) => (await testApp.graphql(QUEUE, {}, key)).body.data.reviewQueueSessions.totalCount;
    const counted = async () =>
      Number(
        (
          await testApp.app.orm.em
            .fork()
            .execute<{ n: number }[]>(
              `select count(*)::int as n from session where tenant_id = ? and environment = 'sandbox' and status = 'in_review'`,
              [mine.id],
            )
        )[0]!.n,
      );
    const inReview = [0, 1, 2].map(() => history(mine.sandboxKey, 1, [['in_review', 10]]));
    const [first, second] = await Promise.all(inReview);
    await history(mine.liveKey, 1, [['in_review', 10]]); // the live environment
    await history(foreign.sandboxKey, 1, [['in_review', 10]]); // another tenant
    await history(mine.sandboxKey, 1, [['in_progress', 10]]); // not in review
    expect(await total(mine.sandboxKey)).toBe(3);
    await foldSessionCounts(testApp.app.orm.em.fork());
    expect(await total(mine.sandboxKey)).toBe(3);
    // A reviewer's decision and a deletion take sessions out; pending changes and counts add up.
    await testApp.app.orm.em.fork().execute(`update session set status = 'approved' where id = ?`, [first]);
    await testApp.app.orm.em.fork().execute(`delete from session where id = ?`, [second]);
    expect(await total(mine.sandboxKey)).toBe(1);
    expect(await counted()).toBe(1);
    await foldSessionCounts(testApp.app.orm.em.fork());
    expect(await total(mine.sandboxKey)).toBe(1);
    expect(await total(mine.liveKey)).toBe(1);
    expect(await total(foreign.sandboxKey)).toBe(1);
  });

  it('given sessions just created, when the scheduled fold job runs, then their pending changes are folded into the counts and the figures stay the same', async () => {
    const { id: tenantId, sandboxKey: key } = await testApp.tenant();
    await history(key, 2, [['in_progress', 10]]);
    await history(key, 3, [['in_review', 10]]);
    const pending = async () =>
      Number(
        (
          await testApp.app.orm.em
            .fork()
            .execute<{ n: number }[]>(
              `select (select count(*) from session_funnel_change where tenant_id = ?) + (select count(*) from session_status_count_change where tenant_id = ?) as n`,
              [tenantId, tenantId],
            )
        )[0]!.n,
      );
    const before = (await testApp.graphql(FUNNEL, { days: 1 }, key)).body.data.sessionFunnel;
    expect(before).toEqual({ created: 2, started: 2, submitted: 1, decided: 0 });
    expect(await pending()).toBeGreaterThan(0);
    await testApp.app.jobs!.boss.send(SESSION_COUNTS_FOLD_QUEUE, {});
    await expect.poll(pending).toBe(0);
    expect((await testApp.graphql(FUNNEL, { days: 1 }, key)).body.data.sessionFunnel).toEqual(before);
    expect(
      (await testApp.graphql('{ reviewQueueSessions(first: 1) { totalCount } }', {}, key)).body.data.reviewQueueSessions.totalCount,
    ).toBe(1);
  });
});
