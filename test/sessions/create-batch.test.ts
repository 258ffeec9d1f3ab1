/**
 * Session creates written together and session reads read together (src/db/batcher.ts): creates
 * that queue while statements are in flight share one statement, each still gets exactly its own
 * rows, a slot taken twice in one batch yields one session, a row the database refuses fails only
 * its own create, and grouped reads each get their own session.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusChanged } from '../../src/domain/events.js';
import { CREATE_BATCH_CONCURRENCY, insertSession, type CreateRow } from '../../src/sessions/create-batch.js';
import { readSessionWithResults } from '../../src/sessions/session-record.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

let testApp: TestApp;
let tenant: TestTenant;
const statements: string[] = [];

beforeAll(async () => {
  testApp = await startTestApp({}, { onQuery: (sql) => statements.push(sql) });
  tenant = await testApp.tenant();
});
afterAll(() => testApp.close());

/** A create of `standard_kyc` for the test tenant's sandbox key. */
function createRow(vendorData: string, overrides: Partial<CreateRow> = {}): CreateRow {
  const id = randomUUID();
  return {
    id,
    tenant_id: tenant.id,
    environment: 'sandbox',
    workflow_id: 'standard_kyc',
    vendor_data: vendorData,
    callback: null,
    redirect_url: null,
    language: null,
    metadata: { vendor: vendorData },
    contact_details: null,
    expected_details: null,
    key_id: tenant.sandboxKeyId,
    operator_id: null,
    actor_name: null,
    ttl_seconds: 3600,
    nodes: [
      { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
      { type: 'aml_screening', required: false, provider: 'openkyc:aml_screen' },
    ],
    audit_id: randomUUID(),
    changed_at: new Date().toISOString(),
    event_id: randomUUID(),
    payload: statusChanged(
      { id, workflowId: 'standard_kyc', vendorData: 'batch', environment: 'sandbox' },
      null,
      'pending',
      'api',
      null,
      new Date(),
    ).payload,
    snapshot: null,
    ...overrides,
  };
}

const createStatements = () => statements.filter((sql) => sql.includes('insert into session (')).length;

describe('creates and reads written and read together', () => {
  it('given 20 creates submitted at once, when written, then the first ones go alone and the rest share one statement, each with exactly its own rows', async () => {
    const em = testApp.app.orm.em.fork();
    const before = createStatements();
    const rows = Array.from({ length: 20 }, (_, i) => createRow(`batch-${i}-${randomUUID()}`));
    const created = await Promise.all(rows.map((row) => insertSession(em, row)));
    // CREATE_BATCH_CONCURRENCY statements start at once; the other creates queue and share the next one.
    expect(createStatements() - before).toBe(CREATE_BATCH_CONCURRENCY + 1);
    expect(created.map((row) => row?.id)).toEqual(rows.map((row) => row.id));
    expect(created.map((row) => row?.vendor_data)).toEqual(rows.map((row) => row.vendor_data));
    expect(new Set(created.map((row) => row?.event_seq)).size).toBe(20);
    const ids = JSON.stringify(rows.map((row) => row.id));
    const [counts] = await em.execute<{ nodes: string; audits: string; events: string }[]>(
      `select (select count(*) from session_node_result where session_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))) as nodes,
              (select count(*) from session_status_change where session_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))) as audits,
              (select count(*) from outbox_event where session_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))) as events`,
      [ids, ids, ids],
    );
    expect(counts).toEqual({ nodes: '40', audits: '20', events: '20' });
    const [metadata] = await em.execute<{ metadata: { vendor: string } }[]>('select metadata from session where id = ?', [rows[7]!.id]);
    expect(metadata!.metadata).toEqual({ vendor: rows[7]!.vendor_data });
  });

  it('given one slot twice in the same batch, when written, then one session is created and the other create gets none', async () => {
    const em = testApp.app.orm.em.fork();
    const fillers = Array.from({ length: CREATE_BATCH_CONCURRENCY }, (_, i) => createRow(`filler-${i}-${randomUUID()}`));
    const slot = `twice-${randomUUID()}`;
    const [first, second] = [createRow(slot), createRow(slot)];
    const results = await Promise.all([...fillers, first, second].map((row) => insertSession(em, row)));
    const [a, b] = results.slice(fillers.length);
    expect([a, b].filter((row) => row !== null)).toHaveLength(1);
    const [count] = await em.execute<{ n: string }[]>('select count(*) as n from session where vendor_data = ?', [slot]);
    expect(count!.n).toBe('1');
  });

  it('given a batch with a row the database refuses, when written, then that create fails alone and the others are created', async () => {
    const em = testApp.app.orm.em.fork();
    const fillers = Array.from({ length: CREATE_BATCH_CONCURRENCY }, (_, i) => createRow(`filler-${i}-${randomUUID()}`));
    const good = [createRow(`good-a-${randomUUID()}`), createRow(`good-b-${randomUUID()}`)];
    const bad = createRow(`bad-${randomUUID()}`, { workflow_id: 'no_such_workflow' });
    const settled = await Promise.allSettled([...fillers, good[0]!, bad, good[1]!].map((row) => insertSession(em, row)));
    const [goodA, refused, goodB] = settled.slice(fillers.length);
    expect(goodA).toMatchObject({ status: 'fulfilled', value: { id: good[0]!.id } });
    expect(goodB).toMatchObject({ status: 'fulfilled', value: { id: good[1]!.id } });
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: '23503' } });
  });

  it('given reads submitted at once (the same session twice, an upper-case id, an unknown id), when read, then they share statements and each gets its own session with its node results', async () => {
    const em = testApp.app.orm.em.fork();
    const rows = Array.from({ length: 6 }, (_, i) => createRow(`read-${i}-${randomUUID()}`));
    await Promise.all(rows.map((row) => insertSession(em, row)));
    const unknown = randomUUID();
    const ids = [...rows.map((row) => row.id), rows[2]!.id, rows[4]!.id.toUpperCase(), unknown];
    const before = statements.filter((sql) => sql.includes('from unnest($1::uuid[]) as wanted')).length;
    const read = await Promise.all(ids.map((id) => readSessionWithResults(em, id)));
    expect(statements.filter((sql) => sql.includes('from unnest($1::uuid[]) as wanted')).length - before).toBe(2 + 1);
    expect(read.map((entry) => entry?.session.id ?? null)).toEqual([...rows.map((row) => row.id), rows[2]!.id, rows[4]!.id, null]);
    for (const entry of read.slice(0, -1)) {
      expect(entry!.nodeResults.map((result) => [result.nodeType, result.status])).toEqual([
        ['aml_screening', 'pending'],
        ['document_verification', 'pending'],
      ]);
    }
    expect(read[1]!.session.vendorData).toBe(rows[1]!.vendor_data);
  });
});
