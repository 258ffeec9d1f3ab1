import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_REPLAY_QUEUE } from '../../src/jobs/jobs.js';
import { REPLAY_INLINE_LIMIT, REPLAY_LEASE_SECONDS } from '../../src/workflows/replay.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { decidedDocumentAmlSession, sessionTablesDigest } from '../support/workflow-sessions.js';

/**
 * Replays too large to run within their request (issue 27, point 3): above REPLAY_INLINE_LIMIT
 * sessions the API queues the replay by itself, and the job runner's sweep finishes replays left
 * over, queued by a process that stopped, or running under a worker that was killed (no heartbeat
 * for REPLAY_LEASE_SECONDS), without taking one whose worker is alive. Through the real REST API
 * and the real pg-boss worker, on the database the run is given.
 */

const STRICT_AML = { id: 'aml_50', when: { '>=': [{ var: 'aml.score' }, 50] }, then: 'decline', reason: 'aml_score_at_or_above_threshold' };
/** Copies of each of the two real sessions: with them, the selection is just over the inline limit. */
const COPIES_EACH = REPLAY_INLINE_LIMIT / 2 + 9;
const SELECTED = 2 * (COPIES_EACH + 1);

describe('queued workflow replays', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let workflowId: string;
  let draftRevision: number;

  /** Reads a replay until `done` holds. */
  async function replayOnceDone(replayId: string) {
    let body: Record<string, any> = {};
    await expect
      .poll(
        async () => {
          body = (await testApp.rest('GET', `/v1/workflow-replays/${replayId}`, { key: tenant.sandboxKey })).body;
          return body.status;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe('done');
    return body;
  }

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant('Queue');
    other = await testApp.tenant('Other');
    const created = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: {
        name: 'Replay at scale',
        nodes: [
          { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
          { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
        ],
      },
    });
    workflowId = created.body.workflow_id;
    const clean = await decidedDocumentAmlSession(testApp, tenant.sandboxKey, workflowId, 'scale-clean', 'GB');
    const pep = await decidedDocumentAmlSession(testApp, tenant.sandboxKey, workflowId, 'scale-pep', 'GB', 'Sandbox Pep');
    expect([clean.status, pep.status]).toEqual(['approved', 'in_review']);
    // Past sessions in bulk: copies of the two real ones, rows and node results as the API stored them.
    const em = testApp.app.orm.em.fork();
    await em.transactional(async (tx) => {
      await tx.execute(
        `create temporary table replay_copies on commit drop as
           select gen_random_uuid() as id, s.id as source, g from session s, generate_series(1, ?) g where s.id in (?, ?)`,
        [COPIES_EACH, clean.id, pep.id],
      );
      await tx.execute(
        `insert into session select (jsonb_populate_record(null::session, to_jsonb(s) || jsonb_build_object(
           'id', c.id, 'vendor_data', s.vendor_data || '-' || c.g, 'created_at', s.created_at - make_interval(secs => c.g)))).*
           from replay_copies c join session s on s.id = c.source`,
      );
      await tx.execute(
        `insert into session_node_result select (jsonb_populate_record(null::session_node_result, to_jsonb(r) || jsonb_build_object('session_id', c.id))).*
           from replay_copies c join session_node_result r on r.session_id = c.source`,
      );
      // The boundary: the same workflow's sessions in the live environment are never replayed from sandbox.
      await tx.execute(
        `insert into session select (jsonb_populate_record(null::session, to_jsonb(s) || jsonb_build_object(
           'id', gen_random_uuid(), 'environment', 'live', 'vendor_data', 'live-' || g))).*
           from session s, generate_series(1, 7) g where s.id = ?`,
        [pep.id],
      );
    });
    const draft = await testApp.rest('POST', `/v1/workflows/${workflowId}/draft`, {
      key: tenant.sandboxKey,
      body: { rules: [STRICT_AML] },
    });
    expect(draft.status).toBe(200);
    draftRevision = draft.body.draft_revision;
  }, 120_000);
  afterAll(() => testApp.close());

  it('given more past sessions than the inline limit, when a replay is asked without background, then it is queued by itself and reports every change', async () => {
    const before = await sessionTablesDigest(testApp);
    const started = await testApp.rest('POST', `/v1/workflows/${workflowId}/replays`, {
      key: tenant.sandboxKey,
      body: { revision: draftRevision, last: 10_000 },
    });
    expect(started.status).toBe(201);
    expect(started.body.total).toBe(SELECTED);
    expect(['queued', 'running']).toContain(started.body.status);
    expect(started.body.done).toBeLessThan(SELECTED);

    const report = await replayOnceDone(started.body.replay_id);
    expect(report).toMatchObject({
      total: SELECTED,
      done: SELECTED,
      changed: COPIES_EACH + 1,
      by_reason: [{ reason: 'aml_score_at_or_above_threshold', count: COPIES_EACH + 1 }],
    });
    expect(report.changes).toHaveLength(COPIES_EACH + 1);
    expect(new Set(report.changes.map((change: { before: string; after: string }) => `${change.before}>${change.after}`))).toEqual(
      new Set(['in_review>declined']),
    );
    expect(await sessionTablesDigest(testApp)).toBe(before);
    for (const key of [other.sandboxKey, tenant.liveKey])
      expect((await testApp.rest('GET', `/v1/workflow-replays/${started.body.replay_id}`, { key })).status).toBe(404);
  }, 90_000);

  it('given replays left queued and left running by a killed worker, when the sweep job runs, then both finish and a live worker’s replay is left alone', async () => {
    const em = testApp.app.orm.em.fork();
    const leftQueued = randomUUID();
    const abandoned = randomUUID();
    const alive = randomUUID();
    const selection = JSON.stringify({ revision: draftRevision, last: 10_000 });
    // As a process leaves them: one queued and never started; one a killed worker had taken halfway, its
    // heartbeat older than the lease; one whose worker is alive (a fresh heartbeat).
    await em.execute(
      `insert into workflow_replay (id, tenant_id, environment, workflow_id, revision, selection, status, total, done, report, heartbeat_at, created_at)
       values (?, ?, 'sandbox', ?, ?, ?::jsonb, 'queued', ?, 0, null, null, now()),
              (?, ?, 'sandbox', ?, ?, ?::jsonb, 'running', ?, 200, '{"changed":100,"byReason":{},"changes":[]}'::jsonb,
               now() - make_interval(secs => ?), now()),
              (?, ?, 'sandbox', ?, ?, ?::jsonb, 'running', ?, 200, null, now(), now())`,
      [
        ...[leftQueued, tenant.id, workflowId, draftRevision, selection, SELECTED],
        ...[abandoned, tenant.id, workflowId, draftRevision, selection, SELECTED, REPLAY_LEASE_SECONDS + 60],
        ...[alive, tenant.id, workflowId, draftRevision, selection, SELECTED],
      ],
    );
    const before = await sessionTablesDigest(testApp);

    await testApp.app.jobs!.boss.send(WORKFLOW_REPLAY_QUEUE, {});

    for (const id of [leftQueued, abandoned]) {
      // Started again from the first session: the half-done report of the killed worker is not counted twice.
      expect(await replayOnceDone(id)).toMatchObject({ total: SELECTED, done: SELECTED, changed: COPIES_EACH + 1 });
    }
    const [live] = await em.execute<{ status: string; done: number }[]>(`select status, done from workflow_replay where id = ?`, [alive]);
    expect(live).toEqual({ status: 'running', done: 200 });
    expect(await sessionTablesDigest(testApp)).toBe(before);
    await em.execute(`delete from workflow_replay where id = ?`, [alive]);
  }, 90_000);
});
