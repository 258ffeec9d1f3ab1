/**
 * Dashboard aggregates (issue 16.4): decisions per day by outcome and the review backlog by age,
 * counted in SQL for the caller's tenant and environment only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
