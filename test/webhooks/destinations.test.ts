import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { WEBHOOK_TEST_ENV } from './support.js';

const CREATE = /* GraphQL */ `
  mutation ($input: CreateWebhookDestinationInput!) {
    createWebhookDestination(input: $input) {
      destination {
        id
        url
        version
        events
        active
      }
      secret
    }
  }
`;
const UPDATE = /* GraphQL */ `
  mutation ($id: ID!, $input: UpdateWebhookDestinationInput!) {
    updateWebhookDestination(id: $id, input: $input) {
      destination {
        id
        events
        active
      }
      secret
    }
  }
`;
const LIST = /* GraphQL */ `
  query {
    webhookDestinations {
      id
      url
    }
  }
`;

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
const URL = 'https://hooks.example.com/idv';

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, DEV_ALLOW_LOOPBACK_WEBHOOKS: 'false', EMITTER_IN_PROCESS: 'false' });
  tenant = await testApp.tenant();
  other = await testApp.tenant();
});
afterAll(async () => testApp?.close());

describe('POST /v1/webhook-destinations', () => {
  it('given a url only, when created, then it answers 201 with v3, all events, active, and a whsec_ secret shown once', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url: URL } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: URL, version: 'v3', active: true });
    expect(created.body.events).toBeUndefined();
    expect(created.body.secret).toMatch(SECRET_PATTERN);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

    const fetched = await testApp.rest('GET', `/v1/webhook-destinations/${created.body.uuid}`, { key: tenant.sandboxKey });
    expect(fetched.status).toBe(200);
    expect(fetched.body.secret).toBeUndefined();
    const listed = await testApp.rest('GET', '/v1/webhook-destinations', { key: tenant.sandboxKey });
    expect(listed.body.webhook_destinations.map((d: any) => d.uuid)).toContain(created.body.uuid);
    expect(listed.body.webhook_destinations.every((d: any) => d.secret === undefined)).toBe(true);
  });

  it('given version and events, when created, then they are kept (duplicates collapsed)', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: URL, version: 'v1', events: ['agent.revoked', 'agent.revoked'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ version: 'v1', events: ['agent.revoked'] });
  });

  it.each([
    ['no url (spec Errors 8)', {}, 'url'],
    ['plain http', { url: 'http://hooks.example.com/x' }, 'url'],
    ['http to loopback without the development setting', { url: 'http://127.0.0.1:9/x' }, 'url'],
    ['a private address', { url: 'https://10.0.0.5/x' }, 'url'],
    ['the cloud metadata address', { url: 'https://169.254.169.254/latest' }, 'url'],
    ['an IPv6 unique-local address', { url: 'https://[fd00::1]/x' }, 'url'],
    ['credentials in the url', { url: 'https://user:pw@hooks.example.com/x' }, 'url'],
    ['not a url', { url: 'hooks' }, 'url'],
    ['an unknown event kind', { url: URL, events: ['session.deleted'] }, 'events[0]'],
    ['an empty events list', { url: URL, events: [] }, 'events'],
    ['an unknown version', { url: URL, version: 'v4' }, 'version'],
    ['an unknown field', { url: URL, secret: 'whsec_x' }, 'secret'],
  ])('given %s, when created, then 400 names the field and nothing is stored', async (_name, body, field) => {
    const before = await testApp.rest('GET', '/v1/webhook-destinations', { key: other.sandboxKey });
    const response = await testApp.rest('POST', '/v1/webhook-destinations', { key: other.sandboxKey, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: any) => error.field)).toContain(field);
    const after = await testApp.rest('GET', '/v1/webhook-destinations', { key: other.sandboxKey });
    expect(after.body.webhook_destinations).toHaveLength(before.body.webhook_destinations.length);
  });

  it('given no key, when created, then 401', async () => {
    const response = await testApp.rest('POST', '/v1/webhook-destinations', { key: null, body: { url: URL } });
    expect(response.status).toBe(401);
  });
});

describe('PATCH and DELETE /v1/webhook-destinations/{uuid}', () => {
  it('given a destination, when active is turned off and events reset to all, then GET shows it; rotate_secret returns a new secret', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: URL, events: ['session.status_changed'] },
    });
    const id = created.body.uuid;
    const off = await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, {
      key: tenant.sandboxKey,
      body: { active: false, events: null },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ uuid: id, active: false });
    expect(off.body.events).toBeUndefined();
    expect(off.body.secret).toBeUndefined();

    const rotated = await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, {
      key: tenant.sandboxKey,
      body: { rotate_secret: true },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET_PATTERN);
    expect(rotated.body.secret).not.toBe(created.body.secret);
  });

  it('given bad changes, when patched, then 400 and the destination is unchanged', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url: URL } });
    const id = created.body.uuid;
    for (const body of [{}, { url: 'http://hooks.example.com' }, { events: ['nope'] }, { version: 'v9' }, { active: 'yes' }]) {
      const response = await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const fetched = await testApp.rest('GET', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey });
    expect(fetched.body).toMatchObject({ url: URL, version: 'v3', active: true });
  });

  it('given a destination, when deleted, then 204 with no body and GET is 404', async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url: URL } });
    const deleted = await testApp.rest('DELETE', `/v1/webhook-destinations/${created.body.uuid}`, { key: tenant.sandboxKey });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    const fetched = await testApp.rest('GET', `/v1/webhook-destinations/${created.body.uuid}`, { key: tenant.sandboxKey });
    expect(fetched.status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("given another tenant's destination, when read, patched, deleted, tested or listed, then 404 and it is untouched", async () => {
    const created = await testApp.rest('POST', '/v1/webhook-destinations', { key: tenant.sandboxKey, body: { url: URL } });
    const id = created.body.uuid;
    const key = other.sandboxKey;
    expect((await testApp.rest('GET', `/v1/webhook-destinations/${id}`, { key })).status).toBe(404);
    expect((await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, { key, body: { active: false } })).status).toBe(404);
    expect((await testApp.rest('PATCH', `/v1/webhook-destinations/${id}`, { key, body: { rotate_secret: true } })).status).toBe(404);
    expect((await testApp.rest('DELETE', `/v1/webhook-destinations/${id}`, { key })).status).toBe(404);
    expect((await testApp.rest('POST', `/v1/webhook-destinations/${id}/test`, { key })).status).toBe(404);
    expect((await testApp.rest('GET', `/v1/webhook-destinations/${id}/deliveries`, { key })).status).toBe(404);
    const listed = await testApp.rest('GET', '/v1/webhook-destinations', { key });
    expect(listed.body.webhook_destinations.map((d: any) => d.uuid)).not.toContain(id);
    const mine = await testApp.rest('GET', `/v1/webhook-destinations/${id}`, { key: tenant.sandboxKey });
    expect(mine.body).toMatchObject({ active: true });
  });

  it('given a malformed uuid, when read, then 404 (never 500)', async () => {
    expect((await testApp.rest('GET', '/v1/webhook-destinations/not-a-uuid', { key: tenant.sandboxKey })).status).toBe(404);
    expect((await testApp.rest('GET', '/v1/webhook-deliveries/not-a-uuid/attempts', { key: tenant.sandboxKey })).status).toBe(404);
    expect((await testApp.rest('POST', '/v1/webhook-deliveries/not-a-uuid/replay', { key: tenant.sandboxKey })).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('given the mutations, when a destination is created, updated and listed, then they mirror REST', async () => {
    const created = await testApp.graphql(
      CREATE,
      { input: { url: URL, version: 'v2', events: ['session.status_changed'] } },
      tenant.liveKey,
    );
    expect(created.body.errors).toBeUndefined();
    const { destination, secret } = created.body.data.createWebhookDestination;
    expect(secret).toMatch(SECRET_PATTERN);
    expect(destination).toMatchObject({ url: URL, version: 'v2', events: ['session.status_changed'], active: true });

    const updated = await testApp.graphql(UPDATE, { id: destination.id, input: { events: null, active: false } }, tenant.liveKey);
    expect(updated.body.data.updateWebhookDestination).toMatchObject({ destination: { events: null, active: false }, secret: null });

    const listed = await testApp.graphql(LIST, {}, tenant.liveKey);
    expect(listed.body.data.webhookDestinations.map((d: any) => d.id)).toContain(destination.id);
  });

  it('given no url, when created over GraphQL, then VALIDATION_FAILED', async () => {
    const response = await testApp.graphql(CREATE, { input: { url: 'ftp://x.example.com' } }, tenant.liveKey);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it("given another tenant's destination, when updated over GraphQL, then NOT_FOUND", async () => {
    const created = await testApp.graphql(CREATE, { input: { url: URL } }, tenant.liveKey);
    const id = created.body.data.createWebhookDestination.destination.id;
    const response = await testApp.graphql(UPDATE, { id, input: { active: false } }, other.liveKey);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('POST /v1/callback-secret/rotate', () => {
  it('given a tenant, when the callback secret is rotated twice, then each answer is a fresh whsec_ secret', async () => {
    const first = await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey });
    const second = await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey });
    expect(first.status).toBe(200);
    expect(first.body.secret).toMatch(SECRET_PATTERN);
    expect(second.body.secret).not.toBe(first.body.secret);
  });
});
