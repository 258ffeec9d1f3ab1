/**
 * The dashboard connections keep to the caller's tenant and environment: for each query, the
 * owner's admin signed in to the owner's environment sees the owner's objects, while the owner's
 * admin signed in to the other environment and an admin of another tenant see none of them, and
 * the owner's ids (a session, a list, a destination) are NOT_FOUND for them. Operators are people
 * of the tenant (both environments): another tenant's admin never sees them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { gql } from '../sessions/support.js';
import { seedScope, type SeededScope } from './dashboard-data.js';
import { consoleGql, makeOperator, signIn, type ConsoleCredential } from './support.js';

const REVIEW_QUEUE = `query ($after: String) { reviewQueueSessions(first: 100, after: $after) {
  totalCount edges { cursor node { id status } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
const TIMELINE = `query ($sessionId: String!) { sessionTimeline(sessionId: $sessionId, first: 100) { totalCount edges { node { id toStatus actorName } } } }`;
const NOTES = `query ($sessionId: String!) { sessionNotes(sessionId: $sessionId, first: 100) { totalCount edges { node { id sessionId authorName } } } }`;
const LIST_ENTRIES = `query ($listId: String!) { listEntriesConnection(listId: $listId, first: 100) { totalCount edges { node { id fingerprint } } } }`;
const DESTINATIONS = `query { webhookDestinationsConnection(first: 100) { totalCount edges { node { id url } } } }`;
const DELIVERIES = `query ($destinationId: ID) { webhookDeliveriesConnection(destinationId: $destinationId, first: 100) {
  edges { node { id sessionId destination { id } attempts { id } } } pageInfo { hasNextPage } } }`;
const OPERATORS = `query { operators(first: 100) { totalCount edges { node { id name } } } }`;
const API_KEYS = `query { apiKeys(first: 100) { totalCount edges { node { id prefix environment } } } }`;

const ROWS = 3;

let testApp: TestApp;
let owner: TestTenant;
let outsider: TestTenant;
let seeded: SeededScope;
/** The owner's admin in sandbox (the seeded scope). */
let own: ConsoleCredential;
/** The owner's admin in live, and another tenant's admin in sandbox. */
let foreign: { name: string; credential: ConsoleCredential }[];

beforeAll(async () => {
  testApp = await startTestApp();
  [owner, outsider] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  seeded = await seedScope(testApp, owner.id, 'sandbox', owner.sandboxKey, ROWS);
  // The outsider and the owner's live scope have objects of their own, so "none of the owner's" is not "nothing at all".
  await seedScope(testApp, outsider.id, 'sandbox', outsider.sandboxKey, ROWS);
  await seedScope(testApp, owner.id, 'live', owner.liveKey, ROWS);
  const [ownerAdmin, outsiderAdmin] = [await makeOperator(testApp, owner.id, 'admin'), await makeOperator(testApp, outsider.id, 'admin')];
  own = await signIn(testApp, ownerAdmin, 'sandbox');
  foreign = [
    { name: "the owner's admin in live", credential: await signIn(testApp, ownerAdmin, 'live') },
    { name: "another tenant's admin", credential: await signIn(testApp, outsiderAdmin, 'sandbox') },
  ];
}, 120_000);
afterAll(() => testApp?.close());

/** The node ids of a connection in a GraphQL answer. */
function idsOf(data: Record<string, { edges: { node: { id: string } }[] }>): string[] {
  return Object.values(data)[0]!.edges.map((edge) => edge.node.id);
}

/** Runs a connection query as the owner's admin, then as each foreign admin; returns the owner's ids and each foreign answer. */
async function asEveryone(query: string, variables: Record<string, unknown> = {}) {
  const mine = await consoleGql(testApp, own, query, variables);
  expect(mine.body.errors, JSON.stringify(mine.body)).toBeUndefined();
  const others = await Promise.all(
    foreign.map(async ({ name, credential }) => ({ name, ...(await consoleGql(testApp, credential, query, variables)) })),
  );
  return { ownIds: idsOf(mine.body.data), ownData: mine.body.data, others };
}

/** Asserts each foreign answer lists objects of its own scope only. */
function expectNoneOf(ownIds: string[], others: { name: string; body: any }[]): void {
  expect(ownIds.length).toBeGreaterThan(0);
  for (const other of others) {
    expect(other.body.errors, `${other.name}: ${JSON.stringify(other.body)}`).toBeUndefined();
    const theirs = idsOf(other.body.data);
    expect(theirs.length, other.name).toBeGreaterThan(0);
    expect(
      theirs.filter((id) => ownIds.includes(id)),
      other.name,
    ).toEqual([]);
  }
}

/** Asserts each foreign answer is NOT_FOUND. */
function expectNotFound(others: { name: string; body: any }[]): void {
  for (const other of others)
    expect(other.body.errors?.[0]?.extensions?.code, `${other.name}: ${JSON.stringify(other.body)}`).toBe('NOT_FOUND');
}

describe('dashboard connections keep to the tenant and the environment', () => {
  it('given in-review sessions in three scopes, when each admin reads reviewQueueSessions, then each sees only its own', async () => {
    const { ownIds, ownData, others } = await asEveryone(REVIEW_QUEUE);
    expect(ownIds).toContain(seeded.inReviewSessionId);
    expect(ownIds).not.toContain(seeded.pendingSessionId);
    expect(ownData.reviewQueueSessions.totalCount).toBe(ROWS + 1);
    expectNoneOf(ownIds, others);
  });

  it('given a session with a timeline, when foreign admins read it by id, then NOT_FOUND', async () => {
    const { ownIds, ownData, others } = await asEveryone(TIMELINE, { sessionId: seeded.busySessionId });
    expect(ownIds.length).toBeGreaterThanOrEqual(ROWS);
    expect(ownData.sessionTimeline.totalCount).toBe(ownIds.length);
    expectNotFound(others);
  });

  it('given a session with notes, when foreign admins read them by id, then NOT_FOUND', async () => {
    const { ownIds, ownData, others } = await asEveryone(NOTES, { sessionId: seeded.busySessionId });
    expect(ownIds).toHaveLength(ROWS);
    expect(ownData.sessionNotes.totalCount).toBe(ROWS);
    expectNotFound(others);
  });

  it("given a list with entries, when foreign admins read the list's entries, then NOT_FOUND", async () => {
    const { ownIds, ownData, others } = await asEveryone(LIST_ENTRIES, { listId: seeded.listId });
    expect(ownIds).toHaveLength(ROWS);
    expect(ownData.listEntriesConnection.totalCount).toBe(ROWS);
    expectNotFound(others);
  });

  it('given destinations in three scopes, when each admin reads webhookDestinationsConnection, then each sees only its own', async () => {
    const { ownIds, others } = await asEveryone(DESTINATIONS);
    expect(ownIds).toContain(seeded.destinationId);
    expectNoneOf(ownIds, others);
  });

  it("given deliveries in three scopes, when each admin reads the delivery log, then each sees only its own, and the owner's destination is NOT_FOUND to others", async () => {
    const { ownIds, ownData, others } = await asEveryone(DELIVERIES, {});
    expect(ownIds).toHaveLength(ROWS);
    expect(ownData.webhookDeliveriesConnection.edges[0].node).toMatchObject({
      destination: { id: seeded.destinationId },
      attempts: [expect.anything()],
    });
    expectNoneOf(ownIds, others);
    expectNotFound((await asEveryone(DELIVERIES, { destinationId: seeded.destinationId })).others);
  });

  it("given operators of two tenants, when each admin reads operators, then another tenant's admin sees none of the owner's", async () => {
    const { ownIds, ownData, others } = await asEveryone(OPERATORS);
    // The owner's sandbox and live seeds both add operators (people of the tenant), and its admin.
    expect(ownData.operators.totalCount).toBe(2 * ROWS + 1);
    const [ownerInLive, outsiderAdmin] = others;
    // People see both environments: the owner's admin signed in to live lists the same operators.
    expect(idsOf(ownerInLive!.body.data).sort()).toEqual([...ownIds].sort());
    expectNoneOf(ownIds, [outsiderAdmin!]);
  });

  it('given keys in three scopes, when each admin reads apiKeys, then each sees only its tenant and environment, never a key', async () => {
    const { ownIds, ownData, others } = await asEveryone(API_KEYS);
    // The seeded keys and the test tenant's own sandbox key.
    expect(ownData.apiKeys.totalCount).toBe(ROWS + 1);
    expect(ownData.apiKeys.edges.every((edge: { node: { environment: string } }) => edge.node.environment === 'sandbox')).toBe(true);
    expect(JSON.stringify(ownData)).not.toContain(owner.sandboxKey);
    expectNoneOf(ownIds, others);
  });

  it('given an API key or a viewer, when it reads operators or apiKeys, then FORBIDDEN', async () => {
    const viewer = await signIn(testApp, await makeOperator(testApp, owner.id, 'viewer'), 'sandbox');
    for (const query of [OPERATORS, API_KEYS]) {
      expect((await gql(testApp, { key: owner.sandboxKey }, query)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect((await consoleGql(testApp, viewer, query)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('given an API key, when it reads the review queue, then it sees its own scope as an admin does', async () => {
    const withKey = await gql(testApp, { key: owner.sandboxKey }, REVIEW_QUEUE);
    const withAdmin = await consoleGql(testApp, own, REVIEW_QUEUE);
    expect(idsOf(withKey.body.data)).toEqual(idsOf(withAdmin.body.data));
  });
});

describe('paging a connection', () => {
  it('given more items than a page, when paged with first and after, then every item comes once, in order, with Relay page info', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const answer = await consoleGql(testApp, own, REVIEW_QUEUE.replace('first: 100', 'first: 2'), { after });
      const connection = answer.body.data.reviewQueueSessions;
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      seen.push(...idsOf(answer.body.data));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    const all = idsOf((await consoleGql(testApp, own, REVIEW_QUEUE)).body.data);
    expect(seen).toEqual(all);
  });

  it('given a cursor this API did not make, when passed as after, then a validation error naming after', async () => {
    // A forged position with an id that is no UUID would otherwise reach the database as a cast error.
    const forged = Buffer.from(JSON.stringify([new Date().toISOString(), 'not-a-uuid'])).toString('base64url');
    for (const after of ['not-a-cursor', forged]) {
      for (const [query, variables] of [
        [REVIEW_QUEUE, { after }],
        [
          NOTES.replace('first: 100', 'first: 100, after: $after').replace('$sessionId: String!', '$sessionId: String!, $after: String'),
          { sessionId: seeded.busySessionId, after },
        ],
      ] as const) {
        const answer = await consoleGql(testApp, own, query, variables);
        expect(answer.body.errors?.[0]?.extensions?.fieldErrors?.[0]?.field, JSON.stringify(answer.body)).toBe('after');
      }
    }
  });
});
