/**
 * What each operator role may change on the console's lists, workflows and webhook pages, enforced
 * by the server (issue 16.3): a viewer changes nothing; a reviewer adds and removes list entries and
 * replays deliveries, audited by name; lists themselves, workflows and destinations stay an
 * admin's. A replay is a real signed POST to the destination.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';
import { consoleGql, makeOperator, signIn, type ConsoleCredential } from './support.js';

const LISTS = `query { lists { id type builtIn entries } }`;
const ADD_NAME = `mutation ($listId: String!) { addNameListEntry(listId: $listId, input: { name: "Ivan Fraudster", reason: "seen in review" }) { id addedBy addedByName } }`;
const DELETE_ENTRY = `mutation ($listId: String!, $entryId: String!) { deleteListEntry(listId: $listId, entryId: $entryId) }`;
const CREATE_LIST = `mutation { createList(input: { name: "Mules", type: name }) { id } }`;
const UPDATE_WORKFLOW = `mutation ($id: String!) { updateWorkflow(id: $id, input: { name: "renamed" }) { id } }`;
const CREATE_DESTINATION = `mutation { createWebhookDestination(input: { url: "http://127.0.0.1:9/hook" }) { secret } }`;
const REPLAY = `mutation ($id: ID!) { replayWebhookDelivery(id: $id) { id status replayedBy replayedAt } }`;
const DELIVERIES = `query ($destinationId: ID) { webhookDeliveries(destinationId: $destinationId) { deliveries { id status replayedBy attempts { status responseStatusCode } } } }`;

let testApp: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let destinationId: string;
let viewer: ConsoleCredential;
let reviewer: ConsoleCredential;

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  tenant = await testApp.tenant();
  receiver = await startReceiver();
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url: receiver.url } });
  expect(destination.status).toBe(201);
  receiver.secret = destination.body.secret;
  destinationId = destination.body.uuid ?? destination.body.id;
  viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer', 'Vera Viewer'));
  reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper'));
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await testApp?.close();
});

/** The code of the first error of an answer. */
const code = (answer: { body: any }) => answer.body.errors?.[0]?.extensions?.code as string | undefined;

/** The built-in name list's id and entry count, as the operator sees it. */
async function nameList(credential: ConsoleCredential): Promise<{ id: string; entries: number }> {
  const lists = (await consoleGql(testApp, credential, LISTS)).body.data.lists as {
    id: string;
    type: string;
    builtIn: boolean;
    entries: number;
  }[];
  return lists.find((list) => list.type === 'name' && list.builtIn)!;
}

/**
 * Sends a test message to the destination and waits until the receiver got it and the emitter
 * recorded the success (a replay before that would race the emitter's own bookkeeping); returns
 * the delivery id.
 */
async function deliveredTest(): Promise<string> {
  const sent = await testApp.rest('POST', `/v1/webhook-destinations/${destinationId}/test`, { key: tenant.sandboxKey });
  expect(sent.status).toBe(202);
  const id = sent.body.id as string;
  await receiver.waitFor((all) => all.some((item) => item.id === id));
  await expect
    .poll(
      async () =>
        (await testApp.graphql(`query ($id: ID!) { webhookDelivery(id: $id) { status } }`, { id }, tenant.sandboxKey)).body.data
          .webhookDelivery.status,
    )
    .toBe('succeeded');
  return id;
}

describe('console roles on lists, workflows and webhooks', () => {
  it('given a viewer, when adding or removing a list entry, replaying a delivery or changing a setting, then every one is FORBIDDEN and nothing changes', async () => {
    const list = await nameList(viewer);
    const entry = (await testApp.graphql(ADD_NAME, { listId: list.id }, tenant.sandboxKey)).body.data.addNameListEntry;
    const deliveryId = await deliveredTest();
    const received = receiver.received.length;

    expect(code(await consoleGql(testApp, viewer, ADD_NAME, { listId: list.id }))).toBe('FORBIDDEN');
    expect(code(await consoleGql(testApp, viewer, DELETE_ENTRY, { listId: list.id, entryId: entry.id }))).toBe('FORBIDDEN');
    expect(code(await consoleGql(testApp, viewer, REPLAY, { id: deliveryId }))).toBe('FORBIDDEN');
    expect(code(await consoleGql(testApp, viewer, CREATE_LIST))).toBe('FORBIDDEN');
    expect(code(await consoleGql(testApp, viewer, CREATE_DESTINATION))).toBe('FORBIDDEN');

    expect((await nameList(viewer)).entries).toBe(list.entries + 1);
    const deliveries = (await consoleGql(testApp, viewer, DELIVERIES, { destinationId })).body.data.webhookDeliveries.deliveries;
    expect(deliveries.find((delivery: { id: string }) => delivery.id === deliveryId).replayedBy).toBeNull();
    expect(receiver.received.length).toBe(received);
  });

  it("given a reviewer, when adding and removing a list entry, then both work and the entry names the reviewer; lists, workflows and destinations stay an admin's", async () => {
    const list = await nameList(reviewer);
    const added = await consoleGql(testApp, reviewer, ADD_NAME, { listId: list.id });
    expect(added.body.data.addNameListEntry).toMatchObject({ addedByName: 'Grace Hopper' });
    expect(added.body.data.addNameListEntry.addedBy).toMatch(/^operator:/);
    expect((await nameList(reviewer)).entries).toBe(list.entries + 1);
    const removed = await consoleGql(testApp, reviewer, DELETE_ENTRY, { listId: list.id, entryId: added.body.data.addNameListEntry.id });
    expect(removed.body.data.deleteListEntry).toBe(true);
    expect((await nameList(reviewer)).entries).toBe(list.entries);

    expect(code(await consoleGql(testApp, reviewer, CREATE_LIST))).toBe('FORBIDDEN');
    expect(code(await consoleGql(testApp, reviewer, CREATE_DESTINATION))).toBe('FORBIDDEN');
    const custom = await testApp.graphql(
      `mutation { createWorkflow(input: { name: "custom", nodes: [{ type: aml_screening, required: true, provider: "openkyc:aml_screen" }] }) { id } }`,
      {},
      tenant.sandboxKey,
    );
    expect(code(await consoleGql(testApp, reviewer, UPDATE_WORKFLOW, { id: custom.body.data.createWorkflow.id }))).toBe('FORBIDDEN');
  });

  it('given a delivered message, when a reviewer replays it from the console, then the receiver gets the same body signed again and the delivery names who replayed it', async () => {
    const deliveryId = await deliveredTest();
    const first = receiver.received.find((item) => item.id === deliveryId)!;

    const replay = await consoleGql(testApp, reviewer, REPLAY, { id: deliveryId });
    expect(replay.body.data.replayWebhookDelivery).toMatchObject({ id: deliveryId, status: 'pending', replayedBy: 'Grace Hopper' });
    expect(typeof replay.body.data.replayWebhookDelivery.replayedAt).toBe('number');

    await receiver.waitFor((all) => all.filter((item) => item.id === deliveryId).length === 2);
    const again = receiver.received.filter((item) => item.id === deliveryId)[1]!;
    expect(again.verified).toBe(true);
    expect(again.rawBody).toBe(first.rawBody);
    const other = await signIn(testApp, await makeOperator(testApp, (await testApp.tenant()).id, 'reviewer'));
    expect(code(await consoleGql(testApp, other, REPLAY, { id: deliveryId }))).toBe('NOT_FOUND');
  });
});
