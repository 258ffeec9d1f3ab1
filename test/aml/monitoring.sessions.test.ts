import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import {
  monitorAfterImport,
  rescreenPendingRequests,
  RESCREEN_CLAIM_LEASE_SECONDS,
  RESCREEN_REQUEST_RETENTION_DAYS,
} from '../../src/sessions/aml-monitoring.js';
import { AML_RESCREEN_QUEUE } from '../../src/jobs/jobs.js';
import type { SanctionedEntity } from '../../src/engines/aml/entity.js';
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
  // Both words random: names of this file's other entities that shared a given name could score a
  // partial match (review) against each other, by chance of the letters drawn.
  const word = () => {
    const letters = [...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
    return `${letters[0]!.toUpperCase()}${letters.slice(1)}`;
  };
  return `${word()} ${word()}`;
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

  /** Waits until `condition` holds (another file's job runner may do the work on a shared database), at most 20 s. */
  async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not reached within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until a session has the given status. */
  async function waitForStatus(sessionId: string, status: string): Promise<void> {
    await waitUntil(
      async () => (await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.liveKey })).body.status === status,
    );
  }

  /** A listed OFAC person of that name. */
  const listedEntity = (name: string): SanctionedEntity => ({
    source_list: 'OFAC_SDN',
    source_id: `monitoring-${randomBytes(4).toString('hex')}`,
    kind: 'person',
    primary_name: name,
    aliases: [],
    dates_of_birth: [],
    countries: ['GB'],
    programs: ['TEST'],
    topics: ['sanction'],
  });

  it('given an approved live session, when a later list write names its subject, then the write records a re-screening request, and working through the requests sends the session to review, revokes its token and records both events; others stay approved', async () => {
    const listedName = uniqueName();
    const listed = await approvedSession(listedName);
    const untouched = await approvedSession(uniqueName());

    const em = testApp.app.orm.em.fork();
    const [before] = await em.execute<{ now: string }[]>('select now()::text as now');
    await upsertEntities(testApp.app.orm.em.fork(), [listedEntity(listedName)]);
    const [request] = await em.execute<{ n: string }[]>(
      `select count(*) as n from aml_rescreen_request where requested_at >= ?::timestamptz and 'OFAC_SDN' = any(lists)`,
      [before!.now],
    );
    expect(Number(request!.n)).toBeGreaterThanOrEqual(1);
    await rescreenPendingRequests(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets);
    await waitForStatus(listed.sessionId, 'in_review');

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

  it('given a request claimed by a run that died, when its lease has run out, then the next run takes it over; a live claim is left alone', async () => {
    const em = testApp.app.orm.em.fork();
    const [abandoned, live] = [randomUUID(), randomUUID()];
    await em.execute(
      `insert into aml_rescreen_request (id, lists, requested_at, claimed_at) values
         (?, '{UN_SC}', now(), now() - make_interval(secs => ?)), (?, '{UN_SC}', now(), now())`,
      [abandoned, RESCREEN_CLAIM_LEASE_SECONDS + 60, live],
    );
    await rescreenPendingRequests(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets);
    const done = async () =>
      Object.fromEntries(
        (
          await em.execute<{ id: string; done: boolean }[]>(
            'select id, done_at is not null as done from aml_rescreen_request where id in (?, ?)',
            [abandoned, live],
          )
        ).map((row) => [row.id, row.done]),
      );
    // On a shared database another file's job runner may be the run that took the abandoned request over.
    await waitUntil(async () => (await done())[abandoned] === true);
    expect(await done()).toEqual({ [abandoned]: true, [live]: false });
    await em.execute('delete from aml_rescreen_request where id = ?', [live]);
  });

  it('given done requests older and younger than the retention, when a run passes, then only the old ones are deleted', async () => {
    const em = testApp.app.orm.em.fork();
    const [old, recent] = [randomUUID(), randomUUID()];
    await em.execute(
      `insert into aml_rescreen_request (id, lists, requested_at, claimed_at, done_at) values
         (?, '{UN_SC}', now(), now(), now() - make_interval(days => ?)), (?, '{UN_SC}', now(), now(), now() - interval '1 day')`,
      [old, RESCREEN_REQUEST_RETENTION_DAYS + 1, recent],
    );
    await rescreenPendingRequests(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets);
    const left = await em.execute<{ id: string }[]>('select id from aml_rescreen_request where id in (?, ?)', [old, recent]);
    expect(left.map((row) => row.id)).toEqual([recent]);
  });

  it('given the job runner, when a list write names an approved subject and the re-screening job runs, then the session goes to review without anyone calling it', async () => {
    const listedName = uniqueName();
    const listed = await approvedSession(listedName);
    await upsertEntities(testApp.app.orm.em.fork(), [listedEntity(listedName)]);
    await testApp.app.jobs!.boss.send(AML_RESCREEN_QUEUE, {});
    await waitForStatus(listed.sessionId, 'in_review');
  });

  it('given a session already reopened, when monitoring runs again, then nothing changes twice', async () => {
    const summary = await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets, [
      'OFAC_SDN',
    ]);
    const again = await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets, ['OFAC_SDN']);
    expect(again.sentToReview).toBe(0);
    expect(summary.sentToReview).toBe(0);
  });
});
