/**
 * List entries keep a readable label beside their fingerprint (issue 25, point 7): the name or the
 * document as added, sealed at rest with the service's key, read back over GraphQL by the list's
 * own tenant and environment only; the gate still matches on the fingerprint alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession, tokenOf } from '../sessions/support.js';
import { consoleGql, makeOperator, signIn } from '../console/support.js';

const ENTRIES = /* GraphQL */ `
  query ($id: String!) {
    listEntries(listId: $id) {
      results {
        id
        fingerprint
        label
      }
    }
  }
`;
const ADD_NAME = /* GraphQL */ `
  mutation ($listId: String!, $input: NameListEntryInput!) {
    addNameListEntry(listId: $listId, input: $input) {
      id
      label
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;

/** The tenant's built-in list of a type in an environment, over REST. */
async function builtIn(key: string, type: 'face' | 'document' | 'name'): Promise<string> {
  const response = await testApp.rest('GET', '/v1/lists', { key });
  return response.body.lists.find((list: { type: string; built_in: boolean }) => list.type === type && list.built_in).uuid;
}

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  other = await testApp.tenant();
}, 60_000);
afterAll(() => testApp?.close());

describe('list entry labels', () => {
  it('given a document added over REST and a name over GraphQL, when the entries are read, then each shows its label beside its fingerprint, sealed in the table', async () => {
    const documents = await builtIn(tenant.sandboxKey, 'document');
    const added = await testApp.rest('POST', `/v1/lists/${documents}/entries/document`, {
      key: tenant.sandboxKey,
      body: { country: 'gb', id_type: 'PASSPORT', document_number: '123 456-789', reason: 'stolen' },
    });
    expect(added.status).toBe(201);
    // The REST body is the spec's: no label field appears there.
    expect(added.body.label).toBeUndefined();
    const read = await testApp.graphql(ENTRIES, { id: documents }, tenant.sandboxKey);
    expect(read.body.data.listEntries.results).toEqual([
      { id: added.body.uuid, fingerprint: added.body.fingerprint, label: 'GB PASSPORT 123 456-789' },
    ]);

    const names = await builtIn(tenant.sandboxKey, 'name');
    const named = await testApp.graphql(ADD_NAME, { listId: names, input: { name: ' Ivan Fraudster ' } }, tenant.sandboxKey);
    expect(named.body.data.addNameListEntry.label).toBe('Ivan Fraudster');

    const rows = await testApp.app.orm.em
      .fork()
      .execute<{ label_sealed: string }[]>('select label_sealed from list_entry where id in (?, ?)', [
        added.body.uuid,
        named.body.data.addNameListEntry.id,
      ]);
    for (const row of rows) {
      expect(row.label_sealed).toMatch(/^v2\./);
      expect(row.label_sealed).not.toMatch(/Ivan|456/);
    }
  });

  it('given an operator of the tenant, when reading the list in the console, then the label shows; another tenant and the other environment reach nothing', async () => {
    const names = await builtIn(tenant.sandboxKey, 'name');
    const operator = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'), 'sandbox');
    const seen = await consoleGql(testApp, operator, ENTRIES, { id: names });
    expect(seen.body.data.listEntries.results.map((entry: { label: string }) => entry.label)).toContain('Ivan Fraudster');

    const elsewhere = await testApp.graphql(ENTRIES, { id: names }, other.sandboxKey);
    expect(elsewhere.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const live = await testApp.graphql(ENTRIES, { id: names }, tenant.liveKey);
    expect(live.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const liveOperator = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'), 'live');
    expect((await consoleGql(testApp, liveOperator, ENTRIES, { id: names })).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('given a listed document whose label is gone, when a session shows that document, then the fingerprint alone still declines it', async () => {
    const gated = await testApp.tenant();
    const documents = await builtIn(gated.sandboxKey, 'document');
    const added = await testApp.rest('POST', `/v1/lists/${documents}/entries/document`, {
      key: gated.sandboxKey,
      body: { country: 'GB', id_type: 'PASSPORT', document_number: '555666777' },
    });
    await testApp.app.orm.em.fork().execute('update list_entry set label_sealed = null where id = ?', [added.body.uuid]);
    const read = await testApp.graphql(ENTRIES, { id: documents }, gated.sandboxKey);
    expect(read.body.data.listEntries.results[0].label).toBeNull();

    const created = await createSession(testApp, gated.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'label-gate-1' });
    await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id, {
      document: { documentNumber: '555666777' },
    });
    const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: gated.sandboxKey });
    expect(decision.body.status).toBe('declined');
    expect(decision.body.reasons[0]).toMatchObject({ code: 'list_auto_decline', entry_id: added.body.uuid });
  }, 60_000);
});
