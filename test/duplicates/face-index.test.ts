/**
 * The in-memory 1:N face index (src/duplicates/template-index.ts) stays consistent with the table:
 * two processes' copies (two registries over one database, as two API processes hold) see each
 * other's inserts on their next search, never report an erased session (erased through the real
 * API), a rolled-back insert or a replaced template, keep to the tenant and environment, and
 * answer as the exact scan in SQL does. Templates are synthetic (random unit vectors as rotated
 * embeddings); the real-photo path is test/duplicates/replay-and-duplicates.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUPLICATE_FACE_SIMILARITY } from '../../src/duplicates/duplicates.js';
import { findDuplicateFaces, SESSION_FACES, type DuplicateSearchMode } from '../../src/duplicates/face-search.js';
import { TemplateIndexRegistry } from '../../src/duplicates/template-index.js';
import { projectTemplate, templateBytes } from '../../src/engines/face/index.js';
import { nearby, randomUnit } from '../../bench/support/templates.js';
import { prng } from '../support/prng.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

let testApp: TestApp;
const random = prng(2211);
/** A face: its rotated embedding; `capture` is one more photo of it (two captures: cosine about 0.98). */
const face = () => randomUnit(random);
const capture = (source: Float64Array) => projectTemplate(nearby(source, random, 0.15));

beforeAll(async () => {
  testApp = await startTestApp();
}, 120_000);
afterAll(async () => {
  await testApp?.close();
});

const em = (): EntityManager => testApp.app.orm.em.fork() as unknown as EntityManager;

/** A tenant with a live workflow its sessions use. */
async function setUp(): Promise<{ tenant: TestTenant; workflowId: string }> {
  const tenant = await testApp.tenant();
  const created = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.liveKey,
    body: { name: 'faces', nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }] },
  });
  expect(created.status).toBe(201);
  return { tenant, workflowId: created.body.workflow_id };
}

/** A decided session with a selfie template, written as the decision flow writes it; returns its id. */
async function storeSession(
  tx: EntityManager,
  given: { tenantId: string; workflowId: string; environment?: string; vendorData: string; template: Int8Array },
): Promise<string> {
  const id = randomUUID();
  await tx.execute(
    `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, expires_at)
     values (?, ?, ?, ?, ?, 'approved', now() + interval '7 days')`,
    [id, given.tenantId, given.environment ?? 'live', given.workflowId, given.vendorData],
    'run',
  );
  await tx.execute(
    `insert into session_list_subject (session_id, tenant_id, node_type, kind, template, key_version) values (?, ?, 'biometric_kyc', 'face', ?, 1)`,
    [id, given.tenantId, templateBytes(given.template)],
    'run',
  );
  return id;
}

/** One search as the decision runs it (inside a transaction), through a process's registry or a database path. */
function search(through: TemplateIndexRegistry | DuplicateSearchMode, tenantId: string, probe: Int8Array, environment = 'live') {
  const query = {
    scope: { tenantId, environment: environment as 'live' | 'sandbox' },
    sessionId: randomUUID(),
    vendorData: 'the-searcher',
    keyVersion: 1,
    probe,
    minSimilarity: DUPLICATE_FACE_SIMILARITY,
    limit: 10,
  };
  return em().transactional(async (tx) =>
    typeof through === 'string'
      ? findDuplicateFaces(tx, { ...query, mode: through })
      : (await through.get(tx, SESSION_FACES, query.scope, 1))
          .search(tx, { ...query, excludeId: query.sessionId, detailParams: [query.vendorData] })
          .then((matches) => matches.map((match) => ({ sessionId: match.id, similarity: match.similarity }))),
  );
}
const ids = (matches: { sessionId: string }[]) => matches.map((match) => match.sessionId).sort();

describe('in-memory face index', () => {
  it('given two processes that loaded a scope, when one stores a new session, then the other finds it on its next search, as the SQL scan does, with the same similarity', async () => {
    const { tenant, workflowId } = await setUp();
    const person = face();
    const first = await em().transactional((tx) =>
      storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'a', template: capture(person) }),
    );
    for (let i = 0; i < 30; i++)
      await em().transactional((tx) =>
        storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: `other-${i}`, template: capture(face()) }),
      );
    const processA = new TemplateIndexRegistry();
    const processB = new TemplateIndexRegistry();
    const probe = capture(person);
    expect(ids(await search(processA, tenant.id, probe))).toEqual([first]);
    expect(ids(await search(processB, tenant.id, probe))).toEqual([first]);

    const second = await em().transactional((tx) =>
      storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'b', template: capture(person) }),
    );
    const fromB = await search(processB, tenant.id, probe);
    expect(ids(fromB)).toEqual([first, second].sort());
    const exact = await search('exact', tenant.id, probe);
    expect(ids(exact)).toEqual(ids(fromB));
    for (const match of fromB) expect(match.similarity).toBeCloseTo(exact.find((m) => m.sessionId === match.sessionId)!.similarity, 12);
    // The new row is held now: the next search finds it from memory, and holds it once.
    const index = await processB.get(em(), SESSION_FACES, { tenantId: tenant.id, environment: 'live' }, 1);
    expect(index.size).toBe(32);
    expect(ids(await search(processB, tenant.id, probe))).toEqual([first, second].sort());
    expect(index.size).toBe(32);
    // Faces nobody stored find nothing, in memory as in SQL.
    for (let i = 0; i < 5; i++) {
      const stranger = capture(face());
      expect(await search(processA, tenant.id, stranger)).toEqual([]);
      expect(await search('exact', tenant.id, stranger)).toEqual([]);
    }
  }, 120_000);

  it('given a session found by two processes, when it is erased through the API, then neither finds it again and the copies let go of it', async () => {
    const { tenant, workflowId } = await setUp();
    const person = face();
    const kept = await em().transactional((tx) =>
      storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'kept', template: capture(person) }),
    );
    const erasedId = await em().transactional((tx) =>
      storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'erased', template: capture(person) }),
    );
    const processA = new TemplateIndexRegistry();
    const processB = new TemplateIndexRegistry();
    const probe = capture(person);
    expect(ids(await search(processA, tenant.id, probe))).toEqual([kept, erasedId].sort());
    expect(ids(await search(processB, tenant.id, probe))).toEqual([kept, erasedId].sort());

    const erased = await testApp.rest('POST', `/v1/sessions/${erasedId}/erase`, { key: tenant.liveKey });
    expect(erased.status).toBe(200);
    expect(ids(await search(processA, tenant.id, probe))).toEqual([kept]);
    expect(ids(await search(processB, tenant.id, probe))).toEqual([kept]);
    expect(ids(await search('memory', tenant.id, probe))).toEqual([kept]);
    // The copy forgets the row once every transaction older than the erasure has finished, and
    // xids are the whole server's: another database's open transaction (a parallel test file)
    // holds that back. Each search re-reads and forgets what it can, so search until it has.
    await expect
      .poll(async () => {
        expect(ids(await search(processA, tenant.id, probe))).toEqual([kept]);
        return (await processA.get(em(), SESSION_FACES, { tenantId: tenant.id, environment: 'live' }, 1)).size;
      })
      .toBe(1);
  }, 120_000);

  it('given a session stored in a transaction that rolls back, when searched inside it and after, then it is found only inside, and the copy lets go of it', async () => {
    const { tenant, workflowId } = await setUp();
    const person = face();
    const processA = new TemplateIndexRegistry();
    const probe = capture(person);
    expect(await search(processA, tenant.id, probe)).toEqual([]);
    const scope = { tenantId: tenant.id, environment: 'live' as const };
    let seenInside: string[] = [];
    let storedId = '';
    await expect(
      em().transactional(async (tx) => {
        storedId = await storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'gone', template: capture(person) });
        const index = await processA.get(tx, SESSION_FACES, scope, 1);
        const inside = await index.search(tx, {
          excludeId: randomUUID(),
          detailParams: ['x'],
          probe,
          minSimilarity: DUPLICATE_FACE_SIMILARITY,
          limit: 10,
        });
        seenInside = inside.map((match) => match.id);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seenInside).toEqual([storedId]);
    expect(await search(processA, tenant.id, probe)).toEqual([]);
    // Forgotten once every older transaction of the server has finished (see the erasure case).
    await expect
      .poll(async () => {
        expect(await search(processA, tenant.id, probe)).toEqual([]);
        return (await processA.get(em(), SESSION_FACES, scope, 1)).size;
      })
      .toBe(0);
  }, 120_000);

  it('given a session whose selfie is taken again (its template replaced), when searched, then the old face no longer finds it and the new one does', async () => {
    const { tenant, workflowId } = await setUp();
    const before = face();
    const after = face();
    const sessionId = await em().transactional((tx) =>
      storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'retaken', template: capture(before) }),
    );
    const processA = new TemplateIndexRegistry();
    expect(ids(await search(processA, tenant.id, capture(before)))).toEqual([sessionId]);
    // As the list gate's observer writes a retake: an upsert of the same row.
    await em().execute(
      `insert into session_list_subject (session_id, tenant_id, node_type, kind, template, key_version) values (?, ?, 'biometric_kyc', 'face', ?, 1)
       on conflict (session_id, node_type, kind) do update set template = excluded.template`,
      [sessionId, tenant.id, templateBytes(capture(after))],
      'run',
    );
    expect(await search(processA, tenant.id, capture(before))).toEqual([]);
    expect(ids(await search(processA, tenant.id, capture(after)))).toEqual([sessionId]);
  }, 120_000);

  it("given the same face in this tenant's sandbox and in another tenant, when a live session of this tenant searches, then neither is found; nor one with the searcher's own vendor_data", async () => {
    const { tenant, workflowId } = await setUp();
    const other = await setUp();
    const person = face();
    await em().transactional(async (tx) => {
      await storeSession(tx, { tenantId: tenant.id, workflowId, environment: 'sandbox', vendorData: 'sandbox', template: capture(person) });
      await storeSession(tx, {
        tenantId: other.tenant.id,
        workflowId: other.workflowId,
        vendorData: 'elsewhere',
        template: capture(person),
      });
      await storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'the-searcher', template: capture(person) });
    });
    const processA = new TemplateIndexRegistry();
    expect(await search(processA, tenant.id, capture(person))).toEqual([]);
    expect(await search('exact', tenant.id, capture(person))).toEqual([]);
    expect(await search(processA, tenant.id, capture(person), 'sandbox')).toHaveLength(1);
  }, 120_000);

  it.skipIf(!process.env.DATABASE_URL)(
    'given a transaction that stores a session while another process searches, when it commits after that search, then the next search finds it (the watermark waits for running transactions)',
    async () => {
      const { tenant, workflowId } = await setUp();
      const person = face();
      const processA = new TemplateIndexRegistry();
      const probe = capture(person);
      expect(await search(processA, tenant.id, probe)).toEqual([]);
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let stored!: () => void;
      const storedSignal = new Promise<void>((resolve) => (stored = resolve));
      let sessionId = '';
      const writer = em().transactional(async (tx) => {
        sessionId = await storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'late', template: capture(person) });
        stored();
        await committing;
      });
      await storedSignal;
      // Another transaction starts and commits after the writer began: the watermark must not pass the writer.
      await em().transactional((tx) =>
        storeSession(tx, { tenantId: tenant.id, workflowId, vendorData: 'unrelated', template: capture(face()) }),
      );
      expect(await search(processA, tenant.id, probe)).toEqual([]);
      commit();
      await writer;
      expect(ids(await search(processA, tenant.id, probe))).toEqual([sessionId]);
    },
    120_000,
  );
});
