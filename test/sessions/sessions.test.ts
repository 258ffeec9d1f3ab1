import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { SessionSchema } from '../../entities/session.entity.js';
import { DecisionJson, SessionDetailJson, SessionJson } from '../../src/rest/routes/sessions.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession } from './support.js';

const CREATE_SESSION = /* GraphQL */ `
  mutation ($input: CreateSessionInput!) {
    createSession(input: $input) {
      idempotentReuse
      session {
        id
        url
        status
        workflowId
        vendorData
        createdAt
        expiresAt
      }
    }
  }
`;
const SESSIONS = /* GraphQL */ `
  query ($first: Int, $after: String, $filter: SessionFilterInput) {
    sessions(first: $first, after: $after, filter: $filter) {
      edges {
        cursor
        node {
          id
          vendorData
          status
          workflowId
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

describe('sessions', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    other = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  describe('creating', () => {
    it('given a workflow and vendor_data, when creating, then 201 with exactly the spec Session fields', async () => {
      const response = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'user-create-1' });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(
        ['session_id', 'url', 'status', 'workflow_id', 'vendor_data', 'created_at', 'expires_at', 'idempotent_reuse'].sort(),
      );
      expect(SessionJson.strict().parse(response.body)).toEqual(response.body);
      expect(response.body).toMatchObject({
        status: 'pending',
        workflow_id: 'standard_kyc',
        vendor_data: 'user-create-1',
        idempotent_reuse: false,
      });
      expect(response.body.url).toMatch(new RegExp(`/verify/${response.body.session_id}\\?token=[A-Za-z0-9_-]{20,}$`));
      expect(response.body.expires_at - response.body.created_at).toBe(7 * 24 * 3600);
    });

    it('given an active session, when creating again with the same workflow and vendor_data, then 200 with the same session and idempotent_reuse true', async () => {
      const first = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'user-reuse' });
      const second = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'standard_kyc',
        vendor_data: 'user-reuse',
        metadata: { ignored: true },
      });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ ...first.body, idempotent_reuse: true });
    });

    it('given an active session, when another workflow, vendor, tenant or environment creates, then each is a new session', async () => {
      const base = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'user-distinct' });
      const otherWorkflow = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'user-distinct' });
      const otherVendor = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'user-distinct-2' });
      const otherTenant = await createSession(testApp, other.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'user-distinct' });
      const ids = [base, otherWorkflow, otherVendor, otherTenant].map((response) => {
        expect(response.status).toBe(201);
        return response.body.session_id;
      });
      expect(new Set(ids).size).toBe(4);
    });

    it('given GraphQL, when creating and re-creating, then the payload says whether it was reused', async () => {
      const input = {
        workflowId: 'aml_only',
        vendorData: 'gql-user',
        metadata: { plan: 'gold' },
        expectedDetails: { firstName: 'Ada', country: 'GB' },
      };
      const first = await testApp.graphql(CREATE_SESSION, { input }, tenant.sandboxKey);
      const second = await testApp.graphql(CREATE_SESSION, { input }, tenant.sandboxKey);
      expect(first.body.errors).toBeUndefined();
      expect(first.body.data.createSession.idempotentReuse).toBe(false);
      expect(second.body.data.createSession).toEqual({ ...first.body.data.createSession, idempotentReuse: true });
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['no workflow_id', { vendor_data: 'x' }, 'workflow_id'],
      ['no vendor_data', { workflow_id: 'standard_kyc' }, 'vendor_data'],
      ['empty vendor_data', { workflow_id: 'standard_kyc', vendor_data: '  ' }, 'vendor_data'],
      ['numeric vendor_data', { workflow_id: 'standard_kyc', vendor_data: 42 }, 'vendor_data'],
      ['unknown workflow', { workflow_id: 'nope', vendor_data: 'x' }, 'workflow_id'],
      ['ftp callback', { workflow_id: 'standard_kyc', vendor_data: 'x', callback: 'ftp://example.com/hook' }, 'callback'],
      ['relative callback', { workflow_id: 'standard_kyc', vendor_data: 'x', callback: '/hook' }, 'callback'],
      ['metadata array', { workflow_id: 'standard_kyc', vendor_data: 'x', metadata: [1, 2] }, 'metadata'],
      ['metadata too large', { workflow_id: 'standard_kyc', vendor_data: 'x', metadata: { blob: 'x'.repeat(20_000) } }, 'metadata'],
      ['bad email', { workflow_id: 'standard_kyc', vendor_data: 'x', contact_details: { email: 'not-an-email' } }, 'contact_details.email'],
      ['bad phone', { workflow_id: 'standard_kyc', vendor_data: 'x', contact_details: { phone: '12345' } }, 'contact_details.phone'],
      [
        'impossible birth date',
        { workflow_id: 'standard_kyc', vendor_data: 'x', expected_details: { date_of_birth: '1990-02-30' } },
        'expected_details.date_of_birth',
      ],
      [
        'unknown country',
        { workflow_id: 'standard_kyc', vendor_data: 'x', expected_details: { country: 'XX' } },
        'expected_details.country',
      ],
      ['unknown field', { workflow_id: 'standard_kyc', vendor_data: 'x', colour: 'red' }, 'colour'],
    ];
    it.each(invalid)('given %s, when creating, then 400 naming the field and no session is stored', async (_label, body, field) => {
      const before = await testApp.app.orm.em.fork().count(SessionSchema, { tenant: other.id });
      const response = await createSession(testApp, other.sandboxKey, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
      expect(await testApp.app.orm.em.fork().count(SessionSchema, { tenant: other.id })).toBe(before);
    });

    it.each([
      ['unknown workflow', { workflowId: 'nope', vendorData: 'x' }, 'workflowId'],
      [
        'impossible birth date',
        { workflowId: 'standard_kyc', vendorData: 'x', expectedDetails: { dateOfBirth: '1990-02-30' } },
        'expectedDetails.dateOfBirth',
      ],
      ['bad phone', { workflowId: 'standard_kyc', vendorData: 'x', contactDetails: { phone: '12345' } }, 'contactDetails.phone'],
    ])(
      'given %s over GraphQL, when creating, then VALIDATION_FAILED names the field as GraphQL writes it',
      async (_label, input, field) => {
        const { body } = await testApp.graphql(CREATE_SESSION, { input }, other.sandboxKey);
        expect(body.errors?.[0]?.extensions).toMatchObject({
          code: 'VALIDATION_FAILED',
          fieldErrors: [expect.objectContaining({ field })],
        });
      },
    );

    it('given a valid phone in national-looking international form, when creating, then it is stored in E.164', async () => {
      const response = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'enhanced_kyc',
        vendor_data: 'phone-user',
        contact_details: { phone: '+44 7911 123456', email: 'a@example.com' },
      });
      const detail = await testApp.rest('GET', `/v1/sessions/${response.body.session_id}`, { key: tenant.sandboxKey });
      expect(detail.body.contact_details).toEqual({ phone: '+447911123456', email: 'a@example.com' });
    });

    it('given a live key and a workflow whose provider has no live engine here, when creating, then 422 provider_unavailable', async () => {
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.liveKey,
        body: {
          name: 'Registry only',
          type: 'business',
          nodes: [{ type: 'business_registry', required: true, provider: 'openkyc:registry_lookup' }],
        },
      });
      const response = await createSession(testApp, tenant.liveKey, { workflow_id: workflow.body.workflow_id, vendor_data: 'live-user' });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('provider_unavailable');
      // Workflows belong to one environment: the sandbox composes its own copy, which the sandbox provider runs.
      const sandboxWorkflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.sandboxKey,
        body: { name: 'Registry only', type: 'business', nodes: workflow.body.nodes },
      });
      const sandbox = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: sandboxWorkflow.body.workflow_id,
        vendor_data: 'live-user',
      });
      expect(sandbox.status).toBe(201);
      const crossed = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflow.body.workflow_id, vendor_data: 'live-user' });
      expect(crossed.status).toBe(400);
    });
  });

  describe('reading', () => {
    it('given a session, when getting it, then Session fields plus node results, warnings and metadata', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'standard_kyc',
        vendor_data: 'reader',
        metadata: { order: 7, nested: { camelCase: true } },
        callback: 'https://example.com/hooks/kyc',
      });
      const response = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.sandboxKey });
      expect(response.status).toBe(200);
      expect(SessionDetailJson.strict().parse(response.body)).toEqual(response.body);
      expect(response.body).toMatchObject({
        session_id: created.body.session_id,
        url: created.body.url,
        status: 'pending',
        metadata: { order: 7, nested: { camelCase: true } },
        callback: 'https://example.com/hooks/kyc',
        warnings: [],
      });
      expect(Object.keys(response.body.node_results).sort()).toEqual([
        'aml_screening',
        'biometric_kyc',
        'document_verification',
        'phone_verification',
      ]);
      expect(response.body.node_results.phone_verification).toMatchObject({ status: 'pending', required: false });
      expect(response.body.node_results.document_verification).toMatchObject({ status: 'pending', required: true });
    });

    it('given a session without a verdict, when getting its decision, then 200 with status and results so far and no token', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, {
        workflow_id: 'aml_only',
        vendor_data: 'undecided',
        metadata: { a: 1 },
      });
      const response = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.sandboxKey });
      expect(response.status).toBe(200);
      expect(DecisionJson.strict().parse(response.body)).toEqual(response.body);
      expect(response.body).toMatchObject({
        status: 'pending',
        node_results: { aml_screening: { status: 'pending', required: true } },
        metadata: { a: 1 },
      });
      expect(response.body).not.toHaveProperty('service_token');
      expect(response.body).not.toHaveProperty('compliance_level');
    });

    it("given another tenant's session, when reading it or its decision, then 404", async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'private' });
      for (const path of [`/v1/sessions/${created.body.session_id}`, `/v1/sessions/${created.body.session_id}/decision`]) {
        const response = await testApp.rest('GET', path, { key: other.sandboxKey });
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('not_found');
      }
    });

    it("given a sandbox session, when the same tenant's live key reads it, then 404 (environments are apart)", async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'env-apart' });
      const response = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.liveKey });
      expect(response.status).toBe(404);
    });

    it('given the session url, when the end user opens it, then the hosted flow page, which holds no session data itself; a wrong token is a 404 page', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'page-visitor' });
      const page = await fetch(created.body.url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toMatch(/<script type="module" nonce="[^"]+" src="\/verify\/assets\/hosted-[0-9a-f]{12}\.js"><\/script>/);
      expect(html).not.toContain('page-visitor');
      expect(html).not.toContain(created.body.session_id);
      const forged = await fetch(created.body.url.replace(/token=.*/, 'token=forged'));
      expect(forged.status).toBe(404);
      expect(await forged.text()).not.toContain('pending');
    });

    it('given an id that is not a UUID, when reading, then 404 and no 500', async () => {
      const response = await testApp.rest('GET', '/v1/sessions/not-a-uuid', { key: tenant.sandboxKey });
      expect(response.status).toBe(404);
    });

    it('given a creation, when it commits, then one session.status_changed event (null → pending) is in the outbox', async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'outbox-create' });
      const events = await testApp.app.orm.em.fork().find(OutboxEventSchema, { sessionId: created.body.session_id });
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('session.status_changed');
      expect(events[0].payload).toMatchObject({
        session_id: created.body.session_id,
        status: 'pending',
        previous_status: null,
        vendor_data: 'outbox-create',
      });
    });
  });

  describe('listing', () => {
    let listTenant: TestTenant;
    const vendors = Array.from({ length: 7 }, (_, index) => `list-user-${index}`);

    beforeAll(async () => {
      listTenant = await testApp.tenant();
      for (const vendor of vendors)
        await createSession(testApp, listTenant.sandboxKey, {
          workflow_id: vendor.endsWith('6') ? 'aml_only' : 'standard_kyc',
          vendor_data: vendor,
        });
    });

    it('given 7 sessions, when paging 3 at a time over GraphQL, then every session appears once, newest first', async () => {
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 5; page += 1) {
        const response: { body: any } = await testApp.graphql(SESSIONS, { first: 3, after }, listTenant.sandboxKey);
        expect(response.body.errors).toBeUndefined();
        const connection: any = response.body.data.sessions;
        seen.push(...connection.edges.map((edge: { node: { vendorData: string } }) => edge.node.vendorData));
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor;
      }
      expect(seen).toEqual([...vendors].reverse());
    });

    it('given filters, when listing over REST, then only matching sessions come back', async () => {
      const byWorkflow = await testApp.rest('GET', '/v1/sessions?workflow_id=aml_only', { key: listTenant.sandboxKey });
      expect(byWorkflow.body.sessions.map((session: { vendor_data: string }) => session.vendor_data)).toEqual(['list-user-6']);
      const byVendor = await testApp.rest('GET', '/v1/sessions?vendor_data=list-user-2&status=pending', { key: listTenant.sandboxKey });
      expect(byVendor.body.sessions).toHaveLength(1);
      const none = await testApp.rest('GET', '/v1/sessions?status=approved', { key: listTenant.sandboxKey });
      expect(none.body).toEqual({ sessions: [], has_more: false });
      const future = await testApp.rest('GET', `/v1/sessions?created_after=${Math.floor(Date.now() / 1000) + 3600}`, {
        key: listTenant.sandboxKey,
      });
      expect(future.body.sessions).toHaveLength(0);
    });

    it('given REST pagination, when following next_cursor, then the pages join without gaps', async () => {
      const first = await testApp.rest('GET', '/v1/sessions?limit=4', { key: listTenant.sandboxKey });
      expect(first.body.has_more).toBe(true);
      const second = await testApp.rest('GET', `/v1/sessions?limit=4&cursor=${first.body.next_cursor}`, { key: listTenant.sandboxKey });
      expect(second.body.has_more).toBe(false);
      expect(second.body).not.toHaveProperty('next_cursor');
      expect([...first.body.sessions, ...second.body.sessions].map((session: { vendor_data: string }) => session.vendor_data)).toEqual(
        [...vendors].reverse(),
      );
    });

    it('given sessions created in the same millisecond, when paging one at a time, then each appears exactly once', async () => {
      const sameTime = await testApp.tenant();
      for (const vendor of ['tie-a', 'tie-b', 'tie-c'])
        await createSession(testApp, sameTime.sandboxKey, { workflow_id: 'aml_only', vendor_data: vendor });
      await testApp.app.orm.em
        .fork()
        .execute(`update session set created_at = date_trunc('milliseconds', now()) where tenant_id = ?`, [sameTime.id]);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page += 1) {
        const response = await testApp.rest('GET', `/v1/sessions?limit=1${cursor ? `&cursor=${cursor}` : ''}`, {
          key: sameTime.sandboxKey,
        });
        seen.push(...response.body.sessions.map((session: { vendor_data: string }) => session.vendor_data));
        if (!response.body.has_more) break;
        cursor = response.body.next_cursor;
      }
      expect(seen.sort()).toEqual(['tie-a', 'tie-b', 'tie-c']);
    });

    it('given bad listing parameters, when listing, then 400', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'status=finished', 'cursor=garbage', 'colour=red']) {
        const response = await testApp.rest('GET', `/v1/sessions?${query}`, { key: listTenant.sandboxKey });
        expect(response.status, query).toBe(400);
        expect(response.body.code).toBe('validation_failed');
      }
    });

    it("given another tenant's sessions, when listing, then none of them appear", async () => {
      const response = await testApp.rest('GET', '/v1/sessions?limit=100', { key: other.sandboxKey });
      const vendorsSeen = response.body.sessions.map((session: { vendor_data: string }) => session.vendor_data);
      expect(vendorsSeen.some((vendor: string) => vendor.startsWith('list-user-'))).toBe(false);
    });
  });
});
