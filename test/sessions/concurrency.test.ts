/**
 * Concurrent writes to one session are serialised by a row lock that waits (FOR UPDATE), never
 * skipped: racing requests are applied one after another or cleanly refused with 409, never 500,
 * and the session is never left stuck. On a PostgreSQL server a request waiting on a lock gives up
 * after DB_LOCK_TIMEOUT_MS with a 503, and /readyz reports a database that stopped answering.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, SUBMIT_SELFIE, createSession, gql, tokenOf } from './support.js';

/** Rounds of each race: a race lost by chance once would hide a bug. */
const ROUNDS = 4;
/** Lock timeout of the test server, in milliseconds: short, so the blocked requests answer quickly. */
const LOCK_TIMEOUT_MS = 500;

const SESSION_STATUS = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      nodeResults {
        nodeType
        status
      }
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({ DB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) });
  tenant = await testApp.tenant();
});
afterAll(() => testApp.close());

/** A new standard_kyc session and its end-user token. */
async function standardSession(vendorData: string): Promise<{ id: string; token: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: vendorData });
  expect(created.status).toBe(201);
  return { id: created.body.session_id, token: tokenOf(created.body.url) };
}

/** The error code of a GraphQL answer, or `OK`. */
const outcomeOf = (response: { status: number; body: any }) => response.body.errors?.[0]?.extensions?.code ?? 'OK';

describe('concurrent writes to one session', () => {
  it('given an in-review session, when approved and declined at once, then one 200 and one 409, consistently', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: `review-race-${round}` });
      const id = created.body.session_id;
      await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_AML, { sessionId: id, input: { fullName: 'Sandbox Pep' } });

      const [approve, decline] = await Promise.all(
        (['approved', 'declined'] as const).map((decision) =>
          testApp.rest('POST', `/v1/sessions/${id}/review`, { key: tenant.sandboxKey, body: { decision, reason: `race ${round}` } }),
        ),
      );

      expect([approve.status, decline.status].sort()).toEqual([200, 409]);
      const loser = approve.status === 409 ? approve : decline;
      expect(loser.body.code).toBe('invalid_transition');
      const winner = approve.status === 200 ? 'approved' : 'declined';
      const decision = await testApp.rest('GET', `/v1/sessions/${id}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.status).toBe(winner);
      expect(decision.body.service_token !== undefined).toBe(winner === 'approved');
    }
  });

  it('given a new session, when its three different steps are submitted at once, then all are applied and the session is decided', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { id, token } = await standardSession(`steps-race-${round}`);
      const credential = { sessionToken: token };

      const responses = await Promise.all([
        gql(testApp, credential, SUBMIT_DOCUMENT, {
          sessionId: id,
          // The document names the person whose data the AML step types: the AML node screens the document's holder.
          input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName: 'Jane', lastName: 'Example' },
        }),
        gql(testApp, credential, SUBMIT_SELFIE, { sessionId: id, input: { selfie: SANDBOX_IMAGE } }),
        gql(testApp, credential, SUBMIT_AML, { sessionId: id, input: { fullName: 'Jane Example' } }),
      ]);

      // Each is applied or cleanly refused; a refused step is resubmitted, as a client would.
      for (const response of responses) {
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
        expect(['OK', 'CONFLICT']).toContain(outcomeOf(response));
      }
      const session = await gql(testApp, { key: tenant.sandboxKey }, SESSION_STATUS, { id });
      const passed = session.body.data.session.nodeResults.filter((node: { status: string }) => node.status === 'passed');
      expect(passed.map((node: { nodeType: string }) => node.nodeType).sort()).toEqual([
        'aml_screening',
        'biometric_kyc',
        'document_verification',
      ]);
      expect(session.body.data.session.status).toBe('approved');
    }
  });

  it('given a new session, when the same step is submitted twice at once, then it is applied once and the other gets 409', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { id, token } = await standardSession(`same-step-race-${round}`);
      const credential = { sessionToken: token };

      // The document step: the AML step of a workflow with a document waits for it, and takes a resubmission meanwhile.
      const responses = await Promise.all(
        ['Jane', 'Ada'].map((firstName) =>
          gql(testApp, credential, SUBMIT_DOCUMENT, {
            sessionId: id,
            input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName, lastName: 'Example' },
          }),
        ),
      );

      expect(responses.map(outcomeOf).sort()).toEqual(['CONFLICT', 'OK']);
      const history = await testApp.app.orm.em
        .fork()
        .execute<{ count: number }[]>(
          `select count(*)::int as count from session_status_change where session_id = ? and to_status = 'in_progress'`,
          [id],
        );
      expect(history[0].count).toBe(1);
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a table locked by someone else (PostgreSQL server)', () => {
  let holder: pg.Client;

  beforeAll(async () => {
    holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
  });
  afterAll(async () => {
    await holder.query('rollback').catch(() => undefined);
    await holder.end();
  });

  it('given an ACCESS EXCLUSIVE lock on session, when creating and listing sessions and probing readiness, then 503 problems, not a hang; afterwards all is well', async () => {
    expect((await testApp.rest('GET', '/readyz')).status).toBe(200);
    await holder.query('begin');
    await holder.query('lock table session in access exclusive mode');
    try {
      const [created, listed, ready] = await Promise.all([
        createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'behind-a-lock' }),
        testApp.rest('GET', '/v1/sessions', { key: tenant.sandboxKey }),
        testApp.rest('GET', '/readyz'),
      ]);
      // Nothing waits for the lock's holder: were anything to, the test's own timeout would end it.
      for (const response of [created, listed]) {
        expect(response.status).toBe(503);
        expect(response.body.code).toBe('service_unavailable');
        expect(response.headers.get('retry-after')).toBe('1');
      }
      expect(ready.status).toBe(503);
    } finally {
      await holder.query('rollback');
    }
    expect((await testApp.rest('GET', '/readyz')).status).toBe(200);
    const after = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'behind-a-lock' });
    expect(after.status).toBe(201);
  });
});
