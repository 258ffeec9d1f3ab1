import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { monitorAfterImport } from '../../src/aml/monitoring.service.js';
import { upsertEntities } from '../../src/engines/aml/store.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SUBMIT_AML } from '../sessions/support.js';

const HISTORY = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      reviewHistory {
        fromStatus
        toStatus
        actor
        reason
      }
    }
  }
`;

/** A name no fixture or other test uses, so the shared list tables cannot interfere. */
function uniqueName(): string {
  const letters = [...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
  return `Velimir ${letters[0].toUpperCase()}${letters.slice(1)}`;
}

describe('ongoing AML monitoring of approved sessions', () => {
  let testApp: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  /** A live aml_only session approved for `fullName`; returns its id and service token. */
  async function approvedSession(fullName: string) {
    const created = await createSession(testApp, tenant.liveKey, { workflow_id: 'aml_only', vendor_data: `monitored-${fullName}` });
    expect(created.status).toBe(201);
    const step = await gql(testApp, { key: tenant.liveKey }, SUBMIT_AML, {
      sessionId: created.body.session_id,
      input: { fullName, country: 'GB' },
    });
    expect(step.body.data.submitAmlData.status).toBe('approved');
    const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.liveKey });
    return { sessionId: created.body.session_id as string, token: decision.body.service_token as string };
  }

  it('given an approved live session, when a later import lists its subject, then it goes back to review, its token is revoked and both events are recorded; others stay approved', async () => {
    const listedName = uniqueName();
    const listed = await approvedSession(listedName);
    const untouched = await approvedSession(uniqueName());

    await upsertEntities(testApp.app.orm.em.fork(), [
      {
        source_list: 'OFAC_SDN',
        source_id: `monitoring-${randomBytes(4).toString('hex')}`,
        kind: 'person',
        primary_name: listedName,
        aliases: [],
        dates_of_birth: [],
        countries: ['GB'],
        programs: ['TEST'],
        topics: ['sanction'],
      },
    ]);
    const summary = await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, ['OFAC_SDN']);
    expect(summary.sentToReview).toBeGreaterThanOrEqual(1);

    const history = await testApp.graphql(HISTORY, { id: listed.sessionId }, tenant.liveKey);
    expect(history.body.data.session.status).toBe('in_review');
    expect(history.body.data.session.reviewHistory.at(-1)).toMatchObject({
      fromStatus: 'approved',
      toStatus: 'in_review',
      actor: 'monitoring',
    });
    const decision = await testApp.rest('GET', `/v1/sessions/${listed.sessionId}/decision`, { key: tenant.liveKey });
    expect(decision.body).not.toHaveProperty('service_token');
    expect(decision.body.reasons.map((reason: { code: string }) => reason.code)).toContain('aml_new_hit');
    const introspection = await testApp.rest('POST', '/v1/service-tokens/introspect', {
      key: tenant.liveKey,
      body: { token: listed.token },
    });
    expect(introspection.body.status).toBe('revoked');
    const events = await testApp.app.orm.em.fork().find(OutboxEventSchema, { sessionId: listed.sessionId }, { orderBy: { seq: 'asc' } });
    expect(events.map((event) => event.type)).toContain('agent.revoked');
    expect(events.at(-1)?.type === 'session.status_changed' || events.at(-2)?.type === 'session.status_changed').toBe(true);

    const other = await testApp.rest('GET', `/v1/sessions/${untouched.sessionId}/decision`, { key: tenant.liveKey });
    expect(other.body.status).toBe('approved');
  });

  it('given a session already reopened, when monitoring runs again, then nothing changes twice', async () => {
    const summary = await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, ['OFAC_SDN']);
    const again = await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, ['OFAC_SDN']);
    expect(again.sentToReview).toBe(0);
    expect(summary.sentToReview).toBe(0);
  });
});
