import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSchema, SessionStatusChangeSchema } from '../../entities/session.entity.js';
import { SESSION_EXPIRY_QUEUE } from '../../src/jobs/jobs.js';
import { expireDueSessions } from '../../src/sessions/expiry.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, SUBMIT_DOCUMENT } from './support.js';

const SESSION_COUNT_QUERY = /* GraphQL */ `
  query ($first: Int) {
    sessions(first: $first) {
      edges {
        node {
          id
          status
          workflow {
            id
            nodes {
              type
            }
          }
          nodeResults {
            nodeType
            status
          }
          reviewHistory {
            toStatus
            actor
          }
          decision {
            status
            serviceToken
            complianceLevel
            nodeResults {
              nodeType
            }
          }
        }
      }
    }
  }
`;

describe('session lifecycle', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  const queries: string[] = [];

  beforeAll(async () => {
    testApp = await startTestApp({}, { onQuery: (sql) => queries.push(sql) });
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  /** Moves a session's expires_at into the past, as time passing would. */
  async function backdate(sessionId: string): Promise<void> {
    await testApp.app.orm.em.fork().execute(`update session set expires_at = now() - interval '1 second' where id = ?`, [sessionId]);
  }

  describe('expiry', () => {
    it('given a pending session past expires_at, when it is read, then it is expired on read and audited', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'expire-on-read' });
      await backdate(created.body.session_id);
      const response = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.sandboxKey });
      expect(response.body.status).toBe('expired');
    });

    it('given an expired session, when the same workflow and vendor create again, then a new session (never reused)', async () => {
      const first = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'expire-then-create' });
      await backdate(first.body.session_id);
      const second = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'expire-then-create' });
      expect(second.status).toBe(201);
      expect(second.body.idempotent_reuse).toBe(false);
      expect(second.body.session_id).not.toBe(first.body.session_id);
      const old = await testApp.app.orm.em.fork().findOneOrFail(SessionSchema, { id: first.body.session_id });
      expect(old.status).toBe('expired');
    });

    it('given in-progress and pending sessions past expires_at, when the sweep runs, then both expire and decided ones are untouched', async () => {
      const pending = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'sweep-pending' });
      const started = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'sweep-started' });
      await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, {
        sessionId: started.body.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      const declined = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'sweep-declined' });
      await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, {
        sessionId: declined.body.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:tampered' },
      });
      for (const session of [pending, started, declined]) await backdate(session.body.session_id);
      // The scheduled sweep may get there first; either way both must end expired, and only once.
      await expireDueSessions(testApp.app.orm.em.fork(), testApp.app.services);
      const em = testApp.app.orm.em.fork();
      expect((await em.findOneOrFail(SessionSchema, { id: pending.body.session_id })).status).toBe('expired');
      expect((await em.findOneOrFail(SessionSchema, { id: started.body.session_id })).status).toBe('expired');
      expect((await em.findOneOrFail(SessionSchema, { id: declined.body.session_id })).status).toBe('declined');
      for (const session of [pending, started]) {
        expect(await em.count(SessionStatusChangeSchema, { sessionId: session.body.session_id, toStatus: 'expired' })).toBe(1);
      }
    });

    it('given an expired session, when the end user submits, then 409 invalid_transition', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'expired-submit' });
      await backdate(created.body.session_id);
      const response = await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, {
        sessionId: created.body.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      expect(response.body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
    });

    it('given the job runner, when the app started, then the expiry sweep is scheduled every minute', async () => {
      const schedules = await testApp.app.jobs!.boss.getSchedules(SESSION_EXPIRY_QUEUE);
      expect(schedules.map((schedule) => schedule.cron)).toContain('* * * * *');
    });
  });

  describe('idempotency under concurrency', () => {
    it('given 50 concurrent identical creates, when they race, then exactly one session exists and every response names it', async () => {
      const body = { workflow_id: 'standard_kyc', vendor_data: 'racer' };
      const responses = await Promise.all(Array.from({ length: 50 }, () => createSession(testApp, tenant.sandboxKey, body)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 200)).toHaveLength(49);
      expect(new Set(responses.map((response) => response.body.session_id)).size).toBe(1);
      expect(await testApp.app.orm.em.fork().count(SessionSchema, { tenant: tenant.id, vendorData: 'racer' })).toBe(1);
    });
  });

  describe('DataLoaders', () => {
    let loaderTenant: TestTenant;
    // The 100 sessions are made in a hook: on a loaded machine they alone took most of a test's 30 s.
    beforeAll(async () => {
      loaderTenant = await testApp.tenant();
      for (let index = 0; index < 100; index += 1) {
        await createSession(testApp, loaderTenant.sandboxKey, {
          workflow_id: index % 2 ? 'standard_kyc' : 'aml_only',
          vendor_data: `loader-${index}`,
        });
      }
    });

    it('given 100 sessions, when listing them with every nested field, then the SQL count does not grow with the page', async () => {
      const count = async (first: number) => {
        queries.length = 0;
        const response = await testApp.graphql(SESSION_COUNT_QUERY, { first }, loaderTenant.sandboxKey);
        expect(response.body.errors).toBeUndefined();
        expect(response.body.data.sessions.edges).toHaveLength(first);
        // The per-minute expiry sweep and the API key epoch poll may run meanwhile; they are not the page's cost.
        return queries.filter(
          (sql) =>
            !/^(begin|commit|rollback)\b/i.test(sql.trim()) &&
            !sql.includes('expires_at <= now()') &&
            !sql.includes('api_key_epoch') &&
            !sql.includes('api_key_usage'),
        ).length;
      };
      const forTen = await count(10);
      const forHundred = await count(100);
      expect(forHundred).toBe(forTen);
      // (key lookup, unless cached) + page + workflows + node results + history (+ tokens for approved): a handful, not 100s.
      expect(forHundred).toBeLessThanOrEqual(8);
    });
  });
});
