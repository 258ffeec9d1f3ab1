/**
 * Every input of the security audit's "M1 in full" list (NUL, lone surrogates, malformed country
 * codes, deep metadata, 32-bit overflows, over-long ids), sent over REST and GraphQL, end-user
 * mutations included: each answers 4xx naming the field, never 5xx, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { SANDBOX_IMAGE, gql, tokenOf, type Credential } from '../sessions/support.js';

const NUL = 'Ada\u0000x';
const LONE_SURROGATE = 'Ada\ud800x';
const DEEP_METADATA = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

const CREATE_SESSION = /* GraphQL */ `
  mutation ($input: CreateSessionInput!) {
    createSession(input: $input) {
      session {
        id
      }
    }
  }
`;
const SUBMIT_AML = /* GraphQL */ `
  mutation ($sessionId: String!, $input: AmlStepInput!) {
    submitAmlData(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
const SUBMIT_DOCUMENT = /* GraphQL */ `
  mutation ($sessionId: String!, $input: DocumentStepInput!) {
    submitDocument(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
const SUBMIT_POA = /* GraphQL */ `
  mutation ($sessionId: String!, $input: ProofOfAddressStepInput!) {
    submitProofOfAddress(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
const SUBMIT_BUSINESS = /* GraphQL */ `
  mutation ($sessionId: String!, $input: BusinessRegistryStepInput!) {
    submitBusinessRegistry(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
const VERIFICATION_STEPS = /* GraphQL */ `
  query ($sessionId: String!) {
    verificationSteps(sessionId: $sessionId) {
      status
      steps {
        nodeType
        status
      }
    }
  }
`;

/** One REST probe: method, path, and a body (an object, or raw JSON text). */
interface RestProbe {
  name: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  rawBody?: string;
  /** The field the answer must name (snake_case, as sent). */
  field?: string;
}

/** One GraphQL probe: an operation and its variables. */
interface GraphQLProbe {
  name: string;
  query: string;
  variables: () => Record<string, unknown>;
  /** The field the error must name. */
  field?: string;
  /** The whole request body as JSON text, instead of query and variables. */
  rawBody?: string;
}

describe('hostile input: no 5xx, nothing stored', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let partner: TestTenant;
  let inReviewSessionId: string;
  let approvedToken: string;
  let shareToken: string;
  let listId: string;
  let destinationId: string;
  let workflowId: string;
  let enhancedSession: { id: string; token: string };
  let kybSession: { id: string; token: string };

  /** Row counts and states the probes must leave as they were. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const em = testApp.app.orm.em.fork();
    // Counted for this file's two tenants only: on a PostgreSQL server other test files write to
    // the same database at the same time.
    const tenants = [tenant.id, partner.id];
    const [counts] = await em.execute<Record<string, unknown>[]>(
      `select
      (select count(*) from session where tenant_id = any(?::uuid[]))::int as sessions,
      (select count(*) from workflow where deleted_at is null and (tenant_id is null or tenant_id = any(?::uuid[])))::int as workflows,
      (select count(*) from list where tenant_id = any(?::uuid[]))::int as lists,
      (select count(*) from list_entry e join list l on l.id = e.list_id where l.tenant_id = any(?::uuid[]))::int as entries,
      (select count(*) from webhook_destination where tenant_id = any(?::uuid[]))::int as destinations,
      (select count(*) from check_run where tenant_id = any(?::uuid[]))::int as check_runs,
      (select count(*) from service_token where revoked_at is null and tenant_id = any(?::uuid[]))::int as valid_tokens,
      (select count(*) from ledger_entry where payer_tenant_id = any(?::uuid[]) or originating_tenant_id = any(?::uuid[]))::int as ledger_entries,
      (select count(*) from session_node_result r join session s on s.id = r.session_id
        where r.status <> 'pending' and s.tenant_id = any(?::uuid[]))::int as results,
      (select status from session where id = ?) as in_review_status,
      (select name from list where id = ?) as list_name,
      (select url from webhook_destination where id = ?) as destination_url,
      (select name from workflow where id = ?) as workflow_name`,
      [...Array.from({ length: 10 }, () => `{${tenants.join(',')}}`), inReviewSessionId, listId, destinationId, workflowId],
    );
    return counts;
  }

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    partner = await testApp.tenant();
    const key = tenant.sandboxKey;
    const session = async (workflow: string, vendorData: string) => {
      const created = await testApp.rest('POST', '/v1/sessions', { key, body: { workflow_id: workflow, vendor_data: vendorData } });
      return { id: created.body.session_id as string, token: tokenOf(created.body.url) };
    };
    const inReview = await session('aml_only', 'in-review');
    await gql(testApp, { key }, SUBMIT_AML, { sessionId: inReview.id, input: { fullName: 'Sandbox Pep' } });
    inReviewSessionId = inReview.id;
    const approved = await session('aml_only', 'approved');
    await gql(testApp, { key }, SUBMIT_AML, { sessionId: approved.id, input: { fullName: 'Ada Lovelace' } });
    approvedToken = (await testApp.rest('GET', `/v1/sessions/${approved.id}/decision`, { key })).body.service_token;
    shareToken = (await testApp.rest('POST', `/v1/sessions/${approved.id}/share`, { key, body: { partner_application_id: partner.id } }))
      .body.share_token;
    listId = (await testApp.rest('POST', '/v1/lists', { key, body: { name: 'Watch', type: 'name' } })).body.uuid;
    destinationId = (await testApp.rest('POST', '/v1/webhook-destinations', { key, body: { url: 'https://example.com/hook' } })).body.uuid;
    workflowId = (
      await testApp.rest('POST', '/v1/workflows', {
        key,
        body: { name: 'Custom', nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }] },
      })
    ).body.workflow_id;
    enhancedSession = await session('enhanced_kyc', 'end-user');
    kybSession = await session('kyb', 'business');
    expect([inReviewSessionId, approvedToken, shareToken, listId, destinationId, workflowId].every(Boolean)).toBe(true);
  });
  afterAll(() => testApp.close());

  const restProbes: RestProbe[] = [
    ...(
      [
        ['workflow_id', { workflow_id: 'aml\u0000only', vendor_data: 'u' }],
        ['vendor_data', { workflow_id: 'aml_only', vendor_data: NUL }],
        ['vendor_data', { workflow_id: 'aml_only', vendor_data: LONE_SURROGATE }],
        ['callback', { workflow_id: 'aml_only', vendor_data: 'u', callback: `https://example.com/${NUL}` }],
        ['callback', { workflow_id: 'aml_only', vendor_data: 'u', callback: `https://example.com/${LONE_SURROGATE}` }],
        ['metadata.a.b', { workflow_id: 'aml_only', vendor_data: 'u', metadata: { a: { b: NUL } } }],
        ['metadata.a[0]', { workflow_id: 'aml_only', vendor_data: 'u', metadata: { a: [LONE_SURROGATE] } }],
        ['metadata', { workflow_id: 'aml_only', vendor_data: 'u', metadata: { [NUL]: 1 } }],
        ['metadata', { workflow_id: 'aml_only', vendor_data: 'u', metadata: { [LONE_SURROGATE]: 1 } }],
        ['expected_details.first_name', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { first_name: NUL } }],
        ['expected_details.last_name', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { last_name: LONE_SURROGATE } }],
        ['expected_details.country', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country: 'G\u0000' } }],
        ['expected_details.country', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country: 'G\ud800' } }],
        ['expected_details.country', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country: 'ABC' } }],
        ['expected_details.country', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country: 'G' } }],
        ['expected_details.country', { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country: 'G1' } }],
      ] as const
    ).map(([field, body], index): RestProbe => ({
      name: `create session #${index} ${field}`,
      method: 'POST',
      path: () => '/v1/sessions',
      body: () => body,
      field,
    })),
    {
      name: 'create session, metadata 5,000 levels deep',
      method: 'POST',
      path: () => '/v1/sessions',
      rawBody: `{"workflow_id":"aml_only","vendor_data":"deep","metadata":${DEEP_METADATA}}`,
    },
    ...[NUL, LONE_SURROGATE].map((reason): RestProbe => ({
      name: `review reason ${JSON.stringify(reason)}`,
      method: 'POST',
      path: () => `/v1/sessions/${inReviewSessionId}/review`,
      body: () => ({ decision: 'approved', reason }),
      field: 'reason',
    })),
    ...[NUL, LONE_SURROGATE].map((reason): RestProbe => ({
      name: `revoke reason ${JSON.stringify(reason)}`,
      method: 'POST',
      path: () => '/v1/service-tokens/revoke',
      body: () => ({ token: approvedToken, reason }),
      field: 'reason',
    })),
    {
      name: 'import workflow_id NUL',
      method: 'POST',
      path: () => '/v1/sessions/import-shared',
      body: () => ({ share_token: shareToken, trust_review: true, workflow_id: 'aml\u0000only' }),
      field: 'workflow_id',
    },
    {
      name: 'import vendor_data NUL',
      method: 'POST',
      path: () => '/v1/sessions/import-shared',
      body: () => ({ share_token: shareToken, trust_review: true, workflow_id: 'aml_only', vendor_data: NUL }),
      field: 'vendor_data',
    },
    { name: 'create list name NUL', method: 'POST', path: () => '/v1/lists', body: () => ({ name: NUL, type: 'name' }), field: 'name' },
    { name: 'rename list NUL', method: 'PATCH', path: () => `/v1/lists/${listId}`, body: () => ({ name: NUL }), field: 'name' },
    {
      name: 'name entry reason NUL',
      method: 'POST',
      path: () => `/v1/lists/${listId}/entries/name`,
      body: () => ({ name: 'John Blocked', reason: NUL }),
      field: 'reason',
    },
    {
      name: 'document entry reason NUL',
      method: 'POST',
      path: () => `/v1/lists/${listId}/entries/document`,
      body: () => ({ country: 'GB', id_type: 'PASSPORT', document_number: 'X1', reason: NUL }),
      field: 'reason',
    },
    {
      name: 'document entry country GBR',
      method: 'POST',
      path: () => `/v1/lists/${listId}/entries/document`,
      body: () => ({ country: 'GBR', id_type: 'PASSPORT', document_number: 'X1' }),
      field: 'country',
    },
    ...[NUL, LONE_SURROGATE].map((name): RestProbe => ({
      name: `poa expected_name ${JSON.stringify(name)}`,
      method: 'POST',
      path: () => '/v1/poa',
      body: () => ({ document_image: SANDBOX_IMAGE, expected_name: name }),
      field: 'expected_name',
    })),
    {
      name: 'id verification metadata key NUL',
      method: 'POST',
      path: () => '/v1/id-verification',
      body: () => ({ country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE, metadata: { [NUL]: 1 } }),
      field: 'metadata',
    },
    {
      name: 'id verification metadata value LS',
      method: 'POST',
      path: () => '/v1/id-verification',
      body: () => ({ country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE, metadata: { a: LONE_SURROGATE } }),
      field: 'metadata.a',
    },
    {
      name: 'id verification metadata deep',
      method: 'POST',
      path: () => '/v1/id-verification',
      rawBody: `{"country":"GB","id_type":"PASSPORT","image_front":"${SANDBOX_IMAGE}","metadata":${DEEP_METADATA}}`,
    },
    {
      name: 'create destination url NUL',
      method: 'POST',
      path: () => '/v1/webhook-destinations',
      body: () => ({ url: `https://example.com/${NUL}` }),
      field: 'url',
    },
    {
      name: 'update destination url NUL',
      method: 'PATCH',
      path: () => `/v1/webhook-destinations/${destinationId}`,
      body: () => ({ url: `https://example.com/${NUL}` }),
      field: 'url',
    },
    {
      name: 'create workflow name NUL',
      method: 'POST',
      path: () => '/v1/workflows',
      body: () => ({ name: NUL, nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }] }),
      field: 'name',
    },
    {
      name: 'update workflow name NUL',
      method: 'PATCH',
      path: () => `/v1/workflows/${workflowId}`,
      body: () => ({ name: NUL }),
      field: 'name',
    },
    { name: 'get workflow id with NUL', method: 'GET', path: () => '/v1/workflows/a%00b', field: 'workflow_id' },
    {
      name: 'patch workflow id with NUL',
      method: 'PATCH',
      path: () => '/v1/workflows/a%00b',
      body: () => ({ name: 'x' }),
      field: 'workflow_id',
    },
    // Fastify itself answers 404 for a path parameter over 100 characters: still a 4xx, before any query.
    { name: 'get workflow id of 101 characters', method: 'GET', path: () => `/v1/workflows/${'a'.repeat(101)}` },
    { name: 'list sessions vendor_data NUL', method: 'GET', path: () => '/v1/sessions?vendor_data=%00', field: 'vendor_data' },
    { name: 'list sessions workflow_id NUL', method: 'GET', path: () => '/v1/sessions?workflow_id=%00', field: 'workflow_id' },
    { name: 'list entries offset 2^31', method: 'GET', path: () => `/v1/lists/${listId}/entries?offset=2147483648`, field: 'offset' },
  ];

  it.each(restProbes.map((probe) => [probe.name, probe] as const))(
    'given REST %s, when sent, then 4xx naming the field',
    async (_name, probe) => {
      const before = await snapshot();
      const response = await testApp.rest(probe.method, probe.path(), {
        key: tenant.sandboxKey,
        ...(probe.rawBody !== undefined ? { rawBody: probe.rawBody } : probe.body ? { body: probe.body() } : {}),
      });
      expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      if (probe.field) expect(response.body.errors?.map((error: { field: string }) => error.field)).toContain(probe.field);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('given an alpha-3 code or a country name, when creating a session, then 400 suggesting the alpha-2 code', async () => {
    for (const [country, suggestion] of [
      ['GBR', 'GB'],
      ['United Kingdom', 'GB'],
      ['deu', 'DE'],
      ['UK', 'GB'],
    ]) {
      const response = await testApp.rest('POST', '/v1/sessions', {
        key: tenant.sandboxKey,
        body: { workflow_id: 'aml_only', vendor_data: 'u', expected_details: { country } },
      });
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ field: 'expected_details.country' });
      expect(response.body.errors[0].message).toContain(`did you mean ${suggestion}?`);
    }
  });

  it('given created_after and created_before beyond 2^31, when listing sessions, then 200 over REST and GraphQL', async () => {
    const rest = await testApp.rest('GET', '/v1/sessions?created_after=2147483648&created_before=9007199254740991', {
      key: tenant.sandboxKey,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.sessions).toEqual([]);
    const query = 'query ($after: UnixTime) { sessions(filter: { createdAfter: $after }) { edges { cursor } } }';
    for (const after of [2147483648, '2100-01-01T00:00:00Z']) {
      const response = await testApp.graphql(query, { after }, tenant.sandboxKey);
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.sessions.edges).toEqual([]);
    }
    const before = await testApp.graphql(
      '{ sessions(filter: { createdBefore: 9007199254740991 }) { edges { cursor } } }',
      {},
      tenant.sandboxKey,
    );
    expect(before.body.data.sessions.edges.length).toBeGreaterThan(0);
    const invalid = await testApp.graphql(query, { after: 'yesterday' }, tenant.sandboxKey);
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  const graphqlProbes: GraphQLProbe[] = [
    {
      name: 'createSession vendorData NUL',
      query: CREATE_SESSION,
      variables: () => ({ input: { workflowId: 'aml_only', vendorData: NUL } }),
      field: 'input.vendorData',
    },
    {
      name: 'createSession workflowId LS',
      query: CREATE_SESSION,
      variables: () => ({ input: { workflowId: LONE_SURROGATE, vendorData: 'u' } }),
      field: 'input.workflowId',
    },
    {
      name: 'createSession metadata key NUL',
      query: CREATE_SESSION,
      variables: () => ({ input: { workflowId: 'aml_only', vendorData: 'u', metadata: { [NUL]: 1 } } }),
      field: 'input.metadata',
    },
    // Sent as raw JSON: serialising 5,000 levels would overflow the test's own stack.
    {
      name: 'createSession metadata 5,000 levels deep',
      query: CREATE_SESSION,
      variables: () => ({}),
      rawBody: `{"query":${JSON.stringify(CREATE_SESSION)},"variables":{"input":{"workflowId":"aml_only","vendorData":"u","metadata":${DEEP_METADATA}}}}`,
    },
    {
      name: 'createSession country ABC',
      query: CREATE_SESSION,
      variables: () => ({ input: { workflowId: 'aml_only', vendorData: 'u', expectedDetails: { country: 'ABC' } } }),
    },
    {
      name: 'createSession literal firstName NUL',
      query:
        'mutation { createSession(input: { workflowId: "aml_only", vendorData: "u", expectedDetails: { firstName: "A\\u0000" } }) { session { id } } }',
      variables: () => ({}),
      field: 'input.expectedDetails.firstName',
    },
    {
      name: 'reviewSession reason NUL',
      query: 'mutation ($id: String!, $reason: String!) { reviewSession(id: $id, decision: approved, reason: $reason) { status } }',
      variables: () => ({ id: inReviewSessionId, reason: NUL }),
      field: 'reason',
    },
    {
      name: 'revokeServiceToken reason LS',
      query: 'mutation ($token: String!, $reason: String!) { revokeServiceToken(token: $token, reason: $reason) { status } }',
      variables: () => ({ token: approvedToken, reason: LONE_SURROGATE }),
      field: 'reason',
    },
    {
      name: 'importSharedSession vendorData NUL',
      query: 'mutation ($input: ImportSharedSessionInput!) { importSharedSession(input: $input) { sessionId } }',
      variables: () => ({ input: { shareToken, trustReview: true, workflowId: 'aml_only', vendorData: NUL } }),
      field: 'input.vendorData',
    },
    {
      name: 'createList name NUL',
      query: 'mutation ($name: String!) { createList(input: { name: $name, type: name }) { id } }',
      variables: () => ({ name: NUL }),
      field: 'input.name',
    },
    {
      name: 'updateList name NUL',
      query: 'mutation ($id: String!, $name: String!) { updateList(id: $id, input: { name: $name }) { id } }',
      variables: () => ({ id: listId, name: NUL }),
      field: 'input.name',
    },
    {
      name: 'addNameListEntry reason NUL',
      query: 'mutation ($id: String!, $input: NameListEntryInput!) { addNameListEntry(listId: $id, input: $input) { id } }',
      variables: () => ({ id: listId, input: { name: 'John Blocked', reason: NUL } }),
      field: 'input.reason',
    },
    {
      name: 'addDocumentListEntry reason NUL',
      query: 'mutation ($id: String!, $input: DocumentListEntryInput!) { addDocumentListEntry(listId: $id, input: $input) { id } }',
      variables: () => ({ id: listId, input: { country: 'GB', idType: 'PASSPORT', documentNumber: 'X1', reason: NUL } }),
      field: 'input.reason',
    },
    {
      name: 'checkProofOfAddress expectedName LS',
      query: 'mutation ($input: CheckProofOfAddressInput!) { checkProofOfAddress(input: $input) { poaId } }',
      variables: () => ({ input: { documentImage: SANDBOX_IMAGE, expectedName: LONE_SURROGATE } }),
      field: 'input.expectedName',
    },
    {
      name: 'verifyIdDocument metadata value NUL',
      query: 'mutation ($input: VerifyIdDocumentInput!) { verifyIdDocument(input: $input) { verificationId } }',
      variables: () => ({ input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, metadata: { a: NUL } } }),
      field: 'input.metadata.a',
    },
    {
      name: 'createWebhookDestination url NUL',
      query: 'mutation ($url: String!) { createWebhookDestination(input: { url: $url }) { secret } }',
      variables: () => ({ url: `https://example.com/${NUL}` }),
      field: 'input.url',
    },
    {
      name: 'updateWebhookDestination url NUL',
      query: 'mutation ($id: ID!, $url: String!) { updateWebhookDestination(id: $id, input: { url: $url }) { secret } }',
      variables: () => ({ id: destinationId, url: `https://example.com/${NUL}` }),
      field: 'input.url',
    },
    {
      name: 'createWorkflow name NUL',
      query:
        'mutation ($name: String!) { createWorkflow(input: { name: $name, nodes: [{ type: aml_screening, required: true, provider: "openkyc:aml_screen" }] }) { id } }',
      variables: () => ({ name: NUL }),
      field: 'input.name',
    },
    {
      name: 'updateWorkflow name NUL',
      query: 'mutation ($id: String!, $name: String!) { updateWorkflow(id: $id, input: { name: $name }) { id } }',
      variables: () => ({ id: workflowId, name: NUL }),
      field: 'input.name',
    },
    {
      name: 'workflow id NUL',
      query: 'query ($id: String!) { workflow(id: $id) { id } }',
      variables: () => ({ id: 'a\u0000b' }),
      field: 'id',
    },
    {
      name: 'updateWorkflow id NUL',
      query: 'mutation ($id: String!) { updateWorkflow(id: $id, input: { name: "x" }) { id } }',
      variables: () => ({ id: 'a\u0000b' }),
      field: 'id',
    },
    {
      name: 'workflow id of 10 MB',
      query: 'query ($id: String!) { workflow(id: $id) { id } }',
      variables: () => ({ id: 'a'.repeat(10 * 1024 * 1024) }),
      field: 'id',
    },
    {
      name: 'sessions vendorData NUL',
      query: 'query ($v: String) { sessions(filter: { vendorData: $v }) { edges { cursor } } }',
      variables: () => ({ v: NUL }),
      field: 'filter.vendorData',
    },
    {
      name: 'sessions vendorData of 5 MB',
      query: 'query ($v: String) { sessions(filter: { vendorData: $v }) { edges { cursor } } }',
      variables: () => ({ v: 'v'.repeat(5 * 1024 * 1024) }),
      field: 'filter.vendorData',
    },
    {
      name: 'sessions workflowId NUL',
      query: 'query ($w: String) { sessions(filter: { workflowId: $w }) { edges { cursor } } }',
      variables: () => ({ w: NUL }),
      field: 'filter.workflowId',
    },
    {
      name: 'listEntries offset 2^31',
      query: 'query ($id: String!) { listEntries(listId: $id, offset: 2147483648) { count } }',
      variables: () => ({ id: listId }),
    },
  ];

  it.each(graphqlProbes.map((probe) => [probe.name, probe] as const))(
    'given GraphQL %s, when sent, then a client error naming the field',
    async (_name, probe) => {
      const before = await snapshot();
      const response = probe.rawBody
        ? await fetch(`${testApp.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.sandboxKey },
            body: probe.rawBody,
          }).then(async (raw) => ({ status: raw.status, body: await raw.json() }))
        : await gql(testApp, { key: tenant.sandboxKey }, probe.query, probe.variables());
      expect(response.status).toBeLessThan(500);
      const [error] = response.body.errors ?? [];
      expect(String(error?.extensions?.code), JSON.stringify(response.body).slice(0, 500)).toMatch(
        /^(VALIDATION_FAILED|GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT)$/,
      );
      if (probe.field)
        expect(error.extensions.fieldErrors?.map((fieldError: { field: string }) => fieldError.field)).toContain(probe.field);
      expect(await snapshot()).toEqual(before);
    },
  );

  /** End-user mutations, reachable with the session token alone. */
  const endUserProbes: Array<{
    name: string;
    session: () => { id: string; token: string };
    query: string;
    input: Record<string, unknown>;
    field?: string;
  }> = [
    ...[NUL, LONE_SURROGATE, 'ABC', 'GBR'].map((country) => ({
      name: `submitDocument country ${JSON.stringify(country)}`,
      session: () => enhancedSession,
      query: SUBMIT_DOCUMENT,
      input: { country, idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
    })),
    {
      name: 'submitDocument firstName NUL',
      session: () => enhancedSession,
      query: SUBMIT_DOCUMENT,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName: NUL },
      field: 'input.firstName',
    },
    {
      name: 'submitDocument lastName LS',
      session: () => enhancedSession,
      query: SUBMIT_DOCUMENT,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, lastName: LONE_SURROGATE },
      field: 'input.lastName',
    },
    {
      name: 'submitDocument documentNumber NUL',
      session: () => enhancedSession,
      query: SUBMIT_DOCUMENT,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, documentNumber: NUL },
      field: 'input.documentNumber',
    },
    {
      name: 'submitAmlData country NUL',
      session: () => enhancedSession,
      query: SUBMIT_AML,
      input: { fullName: 'Ada Lovelace', country: 'G\u0000' },
      field: 'input.country',
    },
    {
      name: 'submitAmlData fullName NUL',
      session: () => enhancedSession,
      query: SUBMIT_AML,
      input: { fullName: NUL },
      field: 'input.fullName',
    },
    {
      name: 'submitProofOfAddress country LS',
      session: () => enhancedSession,
      query: SUBMIT_POA,
      input: { documentImage: SANDBOX_IMAGE, country: 'G\ud800' },
      field: 'input.country',
    },
    {
      name: 'submitProofOfAddress expectedName NUL',
      session: () => enhancedSession,
      query: SUBMIT_POA,
      input: { documentImage: SANDBOX_IMAGE, expectedName: NUL },
      field: 'input.expectedName',
    },
    {
      name: 'submitBusinessRegistry companyName NUL',
      session: () => kybSession,
      query: SUBMIT_BUSINESS,
      input: { companyName: NUL, registrationNumber: '1', country: 'GB' },
      field: 'input.companyName',
    },
    {
      name: 'submitBusinessRegistry country ABC',
      session: () => kybSession,
      query: SUBMIT_BUSINESS,
      input: { companyName: 'Acme', registrationNumber: '1', country: 'ABC' },
    },
    {
      name: 'submitBusinessRegistry registrationNumber LS',
      session: () => kybSession,
      query: SUBMIT_BUSINESS,
      input: { companyName: 'Acme', registrationNumber: LONE_SURROGATE, country: 'GB' },
      field: 'input.registrationNumber',
    },
  ];

  it.each(endUserProbes.map((probe) => [probe.name, probe] as const))(
    'given end-user %s, when sent with the session token, then a client error and the session unchanged',
    async (_name, probe) => {
      const { id, token } = probe.session();
      const credential: Credential = { sessionToken: token };
      const before = await gql(testApp, credential, VERIFICATION_STEPS, { sessionId: id });
      const response = await gql(testApp, credential, probe.query, { sessionId: id, input: probe.input });
      expect(response.status).toBeLessThan(500);
      const [error] = response.body.errors ?? [];
      expect(error?.extensions?.code, JSON.stringify(response.body).slice(0, 500)).toBe('VALIDATION_FAILED');
      if (probe.field)
        expect(error.extensions.fieldErrors?.map((fieldError: { field: string }) => fieldError.field)).toContain(probe.field);
      const after = await gql(testApp, credential, VERIFICATION_STEPS, { sessionId: id });
      expect(after.body).toEqual(before.body);
      expect(after.body.data.verificationSteps.status).toBe('pending');
    },
  );
});
