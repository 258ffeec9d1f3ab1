/**
 * A page of each dashboard connection, with every nested field the console asks for, costs the
 * same number of SQL statements for 5 items as for 50: nested fields load through the request's
 * DataLoaders (one statement per kind), never one statement per row. Statements are counted where
 * the ORM runs them (`onQuery`, src/db/orm.ts), on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { seedScope, type SeededScope } from './dashboard-data.js';
import { consoleGql, makeOperator, signIn, type ConsoleCredential } from './support.js';

/** Everything the console's queue and case pages show of a session. */
const SESSION_FIELDS = `id status vendorData createdAt
  workflow { id name }
  decision { status complianceLevel serviceToken reasons { code message } nodeResults { nodeType status } }
  nodeResults { nodeType status provider warnings { code } details }
  reviewHistory { toStatus actor actorName reason at }
  notes { authorName body createdAt }
  evidence { kind contentType url }`;
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** Each connection and the query the console makes of it, `$first` items per page. */
const CONNECTIONS: { name: string; query: string; variables(seeded: SeededScope): Record<string, unknown> }[] = [
  {
    name: 'sessions',
    query: `query ($first: Int) { sessions(first: $first) { edges { cursor node { ${SESSION_FIELDS} } } ${PAGE_INFO} } }`,
    variables: () => ({}),
  },
  {
    name: 'reviewQueueSessions',
    query: `query ($first: Int) { reviewQueueSessions(first: $first) { totalCount edges { cursor node { ${SESSION_FIELDS} } } ${PAGE_INFO} } }`,
    variables: () => ({}),
  },
  {
    name: 'sessionTimeline',
    query: `query ($first: Int, $id: String!) { sessionTimeline(sessionId: $id, first: $first) {
      totalCount edges { cursor node { id fromStatus toStatus actor actorKeyId actorOperatorId actorName reason at } } ${PAGE_INFO} } }`,
    variables: (seeded) => ({ id: seeded.busySessionId }),
  },
  {
    name: 'sessionNotes',
    query: `query ($first: Int, $id: String!) { sessionNotes(sessionId: $id, first: $first) {
      totalCount edges { cursor node { id authorName authorOperatorId body createdAt } } ${PAGE_INFO} } }`,
    variables: (seeded) => ({ id: seeded.busySessionId }),
  },
  {
    name: 'listEntriesConnection',
    query: `query ($first: Int, $id: String!) { listEntriesConnection(listId: $id, first: $first) {
      totalCount edges { cursor node { id entryType fingerprint reason addedBy addedAt } } ${PAGE_INFO} } }`,
    variables: (seeded) => ({ id: seeded.listId }),
  },
  {
    name: 'webhookDestinationsConnection',
    query: `query ($first: Int) { webhookDestinationsConnection(first: $first) {
      totalCount edges { cursor node { id url version events active createdAt } } ${PAGE_INFO} } }`,
    variables: () => ({}),
  },
  {
    name: 'webhookDeliveriesConnection',
    query: `query ($first: Int, $id: ID) { webhookDeliveriesConnection(destinationId: $id, first: $first) {
      edges { cursor node { id eventType status attemptCount lastStatusCode createdAt destination { id url }
        attempts { id status responseStatusCode durationMs attemptedAt } } } ${PAGE_INFO} } }`,
    variables: (seeded) => ({ id: seeded.destinationId }),
  },
  {
    name: 'operators',
    query: `query ($first: Int) { operators(first: $first) { totalCount edges { cursor node { id email name role createdAt } } ${PAGE_INFO} } }`,
    variables: () => ({}),
  },
  {
    name: 'apiKeys',
    query: `query ($first: Int) { apiKeys(first: $first) { totalCount edges { cursor node { id prefix name environment createdAt revokedAt } } ${PAGE_INFO} } }`,
    variables: () => ({}),
  },
];

const ROWS = 55;
/** The API key cache reads its epoch every 200 ms, and the keys' last uses are written every minute, on timers (src/auth/key-cache.ts, key-usage.ts), whatever the requests: not a request's cost. */
const BACKGROUND_POLL = /from "?api_key_epoch"?|into "?api_key_usage"?/;

let testApp: TestApp;
let seeded: SeededScope;
let admin: ConsoleCredential;
const statements: string[] = [];

beforeAll(async () => {
  // No job runner: its expiry sweep would add its statements to whichever page it ran beside.
  testApp = await startTestApp({ JOBS_ENABLED: 'false' }, { onQuery: (sql) => statements.push(sql) });
  const tenant = await testApp.tenant();
  seeded = await seedScope(testApp, tenant.id, 'sandbox', tenant.sandboxKey, ROWS);
  admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'), 'sandbox');
  // A note on the newest sessions, so the page of 5 has notes to load as the page of 50 does.
  await consoleGql(testApp, admin, 'mutation ($id: String!) { addSessionNote(sessionId: $id, body: "seen") { id } }', {
    id: seeded.approvedSessionId,
  });
}, 120_000);
afterAll(() => testApp?.close());

/** Runs one page and returns the statements it cost and its edges. */
async function page(query: string, variables: Record<string, unknown>): Promise<{ statements: string[]; edges: number }> {
  statements.length = 0;
  const answer = await consoleGql(testApp, admin, query, variables);
  const cost = statements.filter((sql) => !BACKGROUND_POLL.test(sql));
  expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
  const connection = Object.values(answer.body.data as Record<string, { edges: unknown[] }>)[0]!;
  return { statements: cost, edges: connection.edges.length };
}

describe('SQL statements per page of a dashboard connection', () => {
  it.each(CONNECTIONS)(
    'given $name with more than 50 items, when a page of 5 and a page of 50 are read, then both cost the same statements',
    async (connection) => {
      const variables = connection.variables(seeded);
      // A first read warms what every request pays once per process (the sign-in cache, prepared statements).
      await page(connection.query, { ...variables, first: 5 });
      const small = await page(connection.query, { ...variables, first: 5 });
      const large = await page(connection.query, { ...variables, first: 50 });
      expect(small.edges).toBe(5);
      expect(large.edges).toBe(50);
      expect(large.statements.length, `${small.statements.join('\n')}\n---\n${large.statements.join('\n')}`).toBe(small.statements.length);
      // A handful: the sign-in, the page, its count and one per nested kind; never one per row.
      expect(large.statements.length).toBeLessThan(20);
    },
  );
});

describe('SQL statements per page of the session search', () => {
  const SEARCH = `query ($first: Int) { searchSessions(query: "dash-bulk", first: $first) { matchedOn session { ${SESSION_FIELDS} } } }`;

  /** Runs one search page and returns the statements it cost and its hits. */
  async function searchPage(first: number): Promise<{ statements: string[]; hits: number }> {
    statements.length = 0;
    const answer = await consoleGql(testApp, admin, SEARCH, { first });
    expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
    return { statements: statements.filter((sql) => !BACKGROUND_POLL.test(sql)), hits: answer.body.data.searchSessions.length };
  }

  it('given more than 50 matching sessions, when a page of 5 and a page of 50 are searched, then both cost the same statements', async () => {
    // The first search also reads the tenant's search secret, once per process.
    await searchPage(5);
    const small = await searchPage(5);
    const large = await searchPage(50);
    expect(small.hits).toBe(5);
    expect(large.hits).toBe(50);
    expect(large.statements.length, `${small.statements.join('\n')}\n---\n${large.statements.join('\n')}`).toBe(small.statements.length);
    expect(large.statements.length).toBeLessThan(20);
  });
});

describe('totalCount counted only when asked for', () => {
  /** The statements among those a page cost that total the set: a `count(*)`, or a read of the kept count of sessions per status. */
  const counts = (cost: string[]) => cost.filter((sql) => /\bcount\(|\bsession_status_count\b/i.test(sql));
  const PAGES = [
    { name: 'reviewQueueSessions', type: 'ReviewQueueConnection', field: 'reviewQueueSessions(first: 5)', declaration: '' },
    {
      name: 'listEntriesConnection',
      type: 'ListEntryConnection',
      field: 'listEntriesConnection(listId: $id, first: 5)',
      declaration: '($id: String!)',
    },
  ];

  it.each(PAGES)(
    'given $name, when a page is read without totalCount, then no count is made; with it (directly or in a fragment), the set is totalled once',
    async ({ type, field, declaration }) => {
      const variables = declaration ? { id: seeded.listId } : {};
      const plain = await page(`query ${declaration} { ${field} { edges { node { id } } } }`, variables);
      expect(plain.edges).toBe(5);
      expect(counts(plain.statements)).toEqual([]);

      const direct = await page(`query ${declaration} { ${field} { totalCount edges { node { id } } } }`, variables);
      expect(counts(direct.statements)).toHaveLength(1);
      const fragment = `fragment Sized on ${type} { ... on ${type} { totalCount } }`;
      const viaFragment = await page(`query ${declaration} { ${field} { ...Sized edges { node { id } } } } ${fragment}`, variables);
      expect(counts(viaFragment.statements)).toHaveLength(1);

      const total = async (query: string) =>
        Object.values((await consoleGql(testApp, admin, query, variables)).body.data as Record<string, { totalCount: number }>)[0]!
          .totalCount;
      const counted = await total(`query ${declaration} { ${field} { totalCount } }`);
      expect(counted).toBeGreaterThanOrEqual(ROWS);
      expect(await total(`query ${declaration} { ${field} { ...Sized } } ${fragment}`)).toBe(counted);
    },
  );
});
