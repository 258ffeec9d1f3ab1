/**
 * The console's session search (src/sessions/search.ts): one query finds sessions by name (fuzzy,
 * typed or read from the document), e-mail, phone and document number (keyed digests), session id
 * and vendor_data, in the caller's tenant and environment only, over GraphQL and the REST facade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession, tokenOf } from '../sessions/support.js';
import { consoleGql, makeOperator, signIn } from './support.js';
import { backfillSessionSearch } from '../../src/sessions/search.js';

const SEARCH = /* GraphQL */ `
  query ($query: String!, $first: Int) {
    searchSessions(query: $query, first: $first) {
      matchedOn
      session {
        id
        vendorData
        status
      }
    }
  }
`;

const EMAIL = 'Ada.Lovelace@Example.com';

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
/** Typed details only (sandbox). */
let ada: string;
/** A document read (sandbox): names and number from the document step. */
let grace: string;
/** The same e-mail in the live environment of the same tenant. */
let adaLive: string;
/** The same e-mail in another tenant. */
let adaElsewhere: string;

async function search(key: string, query: string, first?: number) {
  const answer = await testApp.graphql(SEARCH, { query, first }, key);
  return answer.body;
}

async function idsFound(key: string, query: string): Promise<string[]> {
  const body = await search(key, query);
  expect(body.errors).toBeUndefined();
  return body.data.searchSessions.map((hit: { session: { id: string } }) => hit.session.id);
}

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  other = await testApp.tenant();
  const typed = {
    contact_details: { email: EMAIL, phone: '+44 7911 123456' },
    expected_details: { first_name: 'Ada', last_name: 'Lovelace' },
  };
  ada = (await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'cust-ada-001', ...typed })).body
    .session_id;
  adaLive = (await createSession(testApp, tenant.liveKey, { workflow_id: 'aml_only', vendor_data: 'cust-ada-001', ...typed })).body
    .session_id;
  adaElsewhere = (await createSession(testApp, other.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'cust-ada-001', ...typed }))
    .body.session_id;
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'cust-grace-002' });
  grace = created.body.session_id;
  await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, grace, {
    fullName: 'Grace Hopper',
    document: { documentNumber: 'AB 123 456' },
  });
}, 120_000);

afterAll(async () => {
  await testApp?.close();
});

describe('searchSessions (GraphQL)', () => {
  it('finds a session by its e-mail, whatever the case, and says so', async () => {
    const body = await search(tenant.sandboxKey, ' ada.lovelace@EXAMPLE.com ');
    expect(body.data.searchSessions).toEqual([
      { matchedOn: ['email'], session: { id: ada, vendorData: 'cust-ada-001', status: 'pending' } },
    ]);
  });

  it('finds a session by its phone, spaced or written with 00', async () => {
    expect(await idsFound(tenant.sandboxKey, '+447911123456')).toEqual([ada]);
    expect(await idsFound(tenant.sandboxKey, '0044 7911 123 456')).toEqual([ada]);
  });

  it('finds a typed name, misspelt or partial', async () => {
    expect(await idsFound(tenant.sandboxKey, 'Lovelace')).toEqual([ada]);
    expect(await idsFound(tenant.sandboxKey, 'ada lovelase')).toEqual([ada]);
  });

  it('finds the name and the document number read from the document', async () => {
    const byName = await search(tenant.sandboxKey, 'hoper grace');
    expect(byName.data.searchSessions).toEqual([
      expect.objectContaining({ matchedOn: ['name'], session: expect.objectContaining({ id: grace }) }),
    ]);
    const byNumber = await search(tenant.sandboxKey, 'ab-123456');
    expect(byNumber.data.searchSessions).toEqual([
      expect.objectContaining({ matchedOn: ['document_number'], session: expect.objectContaining({ id: grace }) }),
    ]);
  });

  it('finds a session by its id or a prefix of it, and by vendor data or a part of it', async () => {
    expect(await idsFound(tenant.sandboxKey, grace)).toEqual([grace]);
    expect(await idsFound(tenant.sandboxKey, grace.slice(0, 8).toUpperCase())).toEqual([grace]);
    expect(await idsFound(tenant.sandboxKey, 'cust-grace-002')).toEqual([grace]);
    expect((await idsFound(tenant.sandboxKey, 'cust-')).sort()).toEqual([ada, grace].sort());
    // The exact vendor_data outranks a partial one.
    expect((await idsFound(tenant.sandboxKey, 'ada-001'))[0]).toBe(ada);
  });

  it('finds nothing for what no session has', async () => {
    expect(await idsFound(tenant.sandboxKey, 'nobody@example.org')).toEqual([]);
    expect(await idsFound(tenant.sandboxKey, 'Zbigniew Qwertyuiop')).toEqual([]);
  });

  it('stays in the tenant and environment of the key', async () => {
    expect(await idsFound(tenant.liveKey, EMAIL)).toEqual([adaLive]);
    expect(await idsFound(other.sandboxKey, EMAIL)).toEqual([adaElsewhere]);
    expect(await idsFound(other.sandboxKey, grace)).toEqual([]);
    expect(await idsFound(other.sandboxKey, 'Grace Hopper')).toEqual([]);
    expect(await idsFound(tenant.liveKey, 'ab123456')).toEqual([]);
  });

  it('stays in the tenant and environment an operator signed in to', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');
    const sandbox = await signIn(testApp, email, 'sandbox');
    const live = await signIn(testApp, email, 'live');
    const inSandbox = await consoleGql(testApp, sandbox, SEARCH, { query: 'lovelace' });
    expect(inSandbox.body.data.searchSessions.map((hit: any) => hit.session.id)).toEqual([ada]);
    const inLive = await consoleGql(testApp, live, SEARCH, { query: 'lovelace' });
    expect(inLive.body.data.searchSessions.map((hit: any) => hit.session.id)).toEqual([adaLive]);
  });

  it('refuses an empty or over-long query and a bad page size with VALIDATION_FAILED', async () => {
    for (const [query, first] of [
      ['   ', undefined],
      ['x'.repeat(201), undefined],
      ['ada', 0],
      ['ada', 101],
    ] as const) {
      const body = await search(tenant.sandboxKey, query, first);
      expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
  });

  it('needs a key', async () => {
    const answer = await testApp.graphql(SEARCH, { query: 'ada' }, null);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('keeps no readable e-mail, phone or document number in the search table', async () => {
    const rows = await testApp.app.orm.em
      .fork()
      .execute<{ name_normalized: string; exact_tokens: string[] | string }[]>(
        'select name_normalized, exact_tokens from session_search where session_id in (?, ?)',
        [ada, grace],
      );
    const stored = JSON.stringify(rows);
    expect(stored).toContain('lovelace');
    for (const secret of ['ada.lovelace', 'example.com', '7911', '123456', 'AB123456', '123456']) expect(stored).not.toContain(secret);
  });
});

describe('GET /v1/sessions/search', () => {
  it('answers the search with matched_on beside each session', async () => {
    const answer = await testApp.rest('GET', `/v1/sessions/search?q=${encodeURIComponent(EMAIL)}`, { key: tenant.sandboxKey });
    expect(answer.status).toBe(200);
    expect(answer.body.sessions).toEqual([
      expect.objectContaining({ session_id: ada, vendor_data: 'cust-ada-001', matched_on: ['email'] }),
    ]);
  });

  it('stays in the tenant and environment of the key', async () => {
    const live = await testApp.rest('GET', `/v1/sessions/search?q=${encodeURIComponent(EMAIL)}`, { key: tenant.liveKey });
    expect(live.body.sessions.map((session: any) => session.session_id)).toEqual([adaLive]);
    const elsewhere = await testApp.rest('GET', `/v1/sessions/search?q=${grace}`, { key: other.sandboxKey });
    expect(elsewhere.body.sessions).toEqual([]);
  });

  it('answers a missing or bad query with a problem, never a 500', async () => {
    for (const query of ['', '?q=', `?q=${'x'.repeat(201)}`, '?q=ada&limit=0', '?q=ada&other=1']) {
      const answer = await testApp.rest('GET', `/v1/sessions/search${query}`, { key: tenant.sandboxKey });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await testApp.rest('GET', '/v1/sessions/search?q=ada', { key: null })).status).toBe(401);
  });
});

describe('erasure', () => {
  it('given a decided session, when it is erased, then its name and document number no longer find it; its id still does', async () => {
    const decided = await testApp.rest('GET', `/v1/sessions/${grace}`, { key: tenant.sandboxKey });
    expect(['approved', 'declined']).toContain(decided.body.status);
    expect(await idsFound(tenant.sandboxKey, 'ab123456')).toEqual([grace]);
    const erased = await testApp.rest('POST', `/v1/sessions/${grace}/erase`, { key: tenant.sandboxKey });
    expect(erased.status).toBe(200);
    expect(await idsFound(tenant.sandboxKey, 'ab123456')).toEqual([]);
    expect(await idsFound(tenant.sandboxKey, 'grace hopper')).toEqual([]);
    expect(await idsFound(tenant.sandboxKey, grace)).toEqual([grace]);
  });
});

describe('sessions from before search existed', () => {
  it('given a session without a search entry, when the backfill runs, then it is found by name and e-mail again, and a second run indexes nothing', async () => {
    const email = 'katherine.johnson@example.org';
    const older = (
      await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'standard_kyc',
        vendor_data: 'cust-kj-009',
        contact_details: { email },
        expected_details: { first_name: 'Katherine', last_name: 'Johnson' },
      })
    ).body.session_id as string;
    // As it was before the upgrade: no entry.
    const em = testApp.app.orm.em.fork();
    await em.execute('delete from session_search where session_id = ?', [older], 'run');
    expect(await idsFound(tenant.sandboxKey, email)).not.toContain(older);

    expect(await backfillSessionSearch(em, testApp.app.services.secrets)).toBeGreaterThanOrEqual(1);
    expect(await idsFound(tenant.sandboxKey, email)).toContain(older);
    expect(await idsFound(tenant.sandboxKey, 'Katherine Jonson')).toContain(older);
    expect(await idsFound(other.sandboxKey, email)).not.toContain(older);
    expect(await backfillSessionSearch(em, testApp.app.services.secrets)).toBe(0);
  });
});
