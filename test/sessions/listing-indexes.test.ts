/**
 * Every listing on an index (issue 29.6), asserted with EXPLAIN on the PostgreSQL server: the
 * statements the API runs for the sessions listing (plain and with each filter), the review queue
 * and the console's charts are captured as the server sends them, then planned with sequential
 * scans switched off. A table the planner still scans whole has no index that serves the
 * statement: at a million sessions that is a scan of every session or status change. Runs only
 * with DATABASE_URL (PGlite plans alike, but the server is what a million sessions live on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

/** Tables that grow with the sessions and lists: none may be read whole by a listing. */
const LARGE_TABLES = [
  'session',
  'session_status_change',
  'session_node_result',
  'session_search',
  'outbox_event',
  'webhook_delivery',
  'list_entry',
];

/** One node of an EXPLAIN (FORMAT JSON) plan. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The relations a plan reads with a sequential scan. */
function sequentialScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(sequentialScans)];
}

describe.runIf(process.env.DATABASE_URL)('listings on indexes (PostgreSQL server)', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  /** A custom name list of the tenant's sandbox with an entry. */
  let listId: string;
  /** A session of the tenant's sandbox. */
  let sessionId: string;
  /** Statements captured while `capturing` is on. */
  const captured: string[] = [];
  let capturing = false;

  beforeAll(async () => {
    testApp = await startTestApp({}, { onQuery: (sql, formatted) => capturing && captured.push(formatted ?? sql) });
    tenant = await testApp.tenant();
    for (let index = 0; index < 3; index += 1) {
      const created = await testApp.rest('POST', '/v1/sessions', {
        key: tenant.sandboxKey,
        body: { workflow_id: 'standard_kyc', vendor_data: `listing-${index}` },
      });
      expect(created.status).toBe(201);
      sessionId = (created.body as { session_id: string }).session_id;
    }
    const list = await testApp.rest('POST', '/v1/lists', { key: tenant.sandboxKey, body: { name: 'Watched', type: 'name' } });
    expect(list.status).toBe(201);
    listId = (list.body as { uuid: string }).uuid;
    const entry = await testApp.rest('POST', `/v1/lists/${listId}/entries/name`, { key: tenant.sandboxKey, body: { name: 'Jane Doe' } });
    expect(entry.status).toBe(201);
  });
  afterAll(async () => {
    await testApp?.close();
  });

  /** Runs `call` and returns the selects it sent that read a large table. */
  async function statementsOf(call: () => Promise<{ status: number; body?: unknown }>): Promise<string[]> {
    captured.length = 0;
    capturing = true;
    try {
      const answer = await call();
      expect(answer.status).toBe(200);
      expect((answer.body as { errors?: unknown } | undefined)?.errors).toBeUndefined();
    } finally {
      capturing = false;
    }
    return captured.filter(
      (sql) => /^\s*(select|with)\b/i.test(sql) && LARGE_TABLES.some((table) => new RegExp(`\\b${table}\\b`).test(sql)),
    );
  }

  /** `sql`'s plan with sequential scans off (in a transaction of its own). */
  async function planOf(sql: string): Promise<PlanNode> {
    return testApp.app.orm.em.fork().transactional(async (tx) => {
      await tx.execute('set local enable_seqscan = off');
      const [row] = await tx.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (format json) ${sql}`);
      return row!['QUERY PLAN'][0].Plan;
    });
  }

  /** The large tables `sql`'s plan scans whole even with sequential scans off. */
  async function scannedWhole(sql: string): Promise<string[]> {
    return sequentialScans(await planOf(sql)).filter((table) => LARGE_TABLES.includes(table));
  }

  const listings: [string, () => Promise<{ status: number; body?: unknown }>][] = [
    ['GET /v1/sessions', () => testApp.rest('GET', '/v1/sessions', { key: tenant.sandboxKey })],
    ['GET /v1/sessions?vendor_data=', () => testApp.rest('GET', '/v1/sessions?vendor_data=listing-1', { key: tenant.sandboxKey })],
    ['GET /v1/sessions?status=', () => testApp.rest('GET', '/v1/sessions?status=pending,in_review', { key: tenant.sandboxKey })],
    ['GET /v1/sessions?workflow_id=', () => testApp.rest('GET', '/v1/sessions?workflow_id=standard_kyc', { key: tenant.sandboxKey })],
    ['review queue', () => testApp.graphql('{ reviewQueueSessions(first: 20) { edges { node { id } } } }', {}, tenant.sandboxKey)],
    ['funnel chart', () => testApp.graphql('{ sessionFunnel(days: 90) { created started submitted decided } }', {}, tenant.sandboxKey)],
    ['decisions per day', () => testApp.graphql('{ decisionsPerDay(days: 90) { day approved declined } }', {}, tenant.sandboxKey)],
    ['review backlog', () => testApp.graphql('{ reviewBacklog { underAnHour older } }', {}, tenant.sandboxKey)],
    ['GET /v1/sessions/search?q=', () => testApp.rest('GET', '/v1/sessions/search?q=jane%20doe', { key: tenant.sandboxKey })],
    [
      'session timeline',
      () => testApp.graphql(`{ sessionTimeline(sessionId: "${sessionId}", first: 20) { edges { node { id } } } }`, {}, tenant.sandboxKey),
    ],
    ['GET /v1/lists/{id}/entries', () => testApp.rest('GET', `/v1/lists/${listId}/entries?limit=20`, { key: tenant.sandboxKey })],
    [
      'list entries connection (with totalCount)',
      () =>
        testApp.graphql(
          `{ listEntriesConnection(listId: "${listId}", first: 20) { totalCount edges { node { id } } } }`,
          {},
          tenant.sandboxKey,
        ),
    ],
    [
      'webhook deliveries connection',
      () => testApp.graphql('{ webhookDeliveriesConnection(first: 20) { edges { node { id } } } }', {}, tenant.sandboxKey),
    ],
    [
      'webhook deliveries connection (by status)',
      () => testApp.graphql('{ webhookDeliveriesConnection(status: failed, first: 20) { edges { node { id } } } }', {}, tenant.sandboxKey),
    ],
  ];

  it.each(listings)('given a tenant with sessions, when %s is read, then no statement scans a large table whole', async (_name, call) => {
    const statements = await statementsOf(call);
    expect(statements.length).toBeGreaterThan(0);
    for (const sql of statements) expect(await scannedWhole(sql), sql).toEqual([]);
  });

  it('given the vendor_data filter, when the page is planned, then an index is searched by vendor_data (not every session of the tenant filtered)', async () => {
    const [sql] = await statementsOf(() => testApp.rest('GET', '/v1/sessions?vendor_data=listing-1', { key: tenant.sandboxKey }));
    const conditions = nodesOf(await planOf(sql!)).map((node) => node['Index Cond'] ?? '');
    expect(
      conditions.some((condition) => condition.includes('vendor_data')),
      JSON.stringify(conditions),
    ).toBe(true);
  });

  it.each([
    ['GET /v1/lists', () => testApp.rest('GET', '/v1/lists', { key: tenant.sandboxKey })],
    ['GET /v1/lists/{id}', () => testApp.rest('GET', `/v1/lists/${listId}`, { key: tenant.sandboxKey })],
  ])(
    'given a list with entries, when %s is read, then no statement reads its entries (the count is kept on the list row)',
    async (_name, call) => {
      captured.length = 0;
      capturing = true;
      try {
        expect((await call()).status).toBe(200);
      } finally {
        capturing = false;
      }
      expect(captured.filter((sql) => /\blist_entry\b/.test(sql))).toEqual([]);
    },
  );

  it('given the funnel chart, when it is planned, then it reads no status history (the furthest stage is on the session row)', async () => {
    const statements = await statementsOf(() =>
      testApp.graphql('{ sessionFunnel(days: 90) { created started submitted decided } }', {}, tenant.sandboxKey),
    );
    for (const sql of statements)
      expect(nodesOf(await planOf(sql)).map((node) => node['Relation Name'])).not.toContain('session_status_change');
  });
});
