/**
 * The hosted flow's server side: flow settings per tenant and environment (validated, round
 * trips over REST and GraphQL), a session's `redirect_url` checked against the allow-list (no
 * open redirect), its `language`, and the end-user `hostedFlow` query the page reads.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, tokenOf } from '../sessions/support.js';

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant('Acme Shop');
});
afterAll(() => testApp.close());

/** A PNG data URI of a square of `side` pixels. */
async function pngLogo(side: number): Promise<string> {
  const png = await sharp({ create: { width: side, height: side, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

const HOSTED_FLOW = /* GraphQL */ `
  query ($sessionId: String!) {
    hostedFlow(sessionId: $sessionId) {
      sessionId
      status
      language
      defaultLanguage
      displayName
      primaryColor
      allowedEmbedOrigins
      redirectUrl
      steps {
        nodeType
        status
        required
      }
      documentTypes {
        idType
        sides
      }
      expectedDetails
      documentRead {
        firstName
        lastName
      }
    }
  }
`;

describe('flow settings', () => {
  it('given a new tenant, when its settings are read, then the defaults show: its name, the default colour, no origins, English', async () => {
    const settings = await testApp.rest('GET', '/v1/flow-settings', { key: tenant.liveKey });
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({
      display_name: 'Acme Shop',
      primary_color: '#1d4ed8',
      allowed_redirect_origins: [],
      allowed_embed_origins: [],
      default_language: 'en',
    });
  });

  it('given settings changed with the live key, when each environment reads them, then live has them and sandbox keeps its own; GraphQL reads the same', async () => {
    const logo = await pngLogo(64);
    const changed = await testApp.rest('PATCH', '/v1/flow-settings', {
      key: tenant.liveKey,
      body: {
        display_name: 'Acme',
        logo,
        primary_color: '#0B5FFF',
        privacy_url: 'https://acme.example/privacy',
        allowed_redirect_origins: ['https://app.acme.example', 'https://app.acme.example/'],
        allowed_embed_origins: ['https://www.acme.example'],
        default_language: 'fr',
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      display_name: 'Acme',
      logo,
      primary_color: '#0b5fff',
      privacy_url: 'https://acme.example/privacy',
      allowed_redirect_origins: ['https://app.acme.example'],
      allowed_embed_origins: ['https://www.acme.example'],
      default_language: 'fr',
      updated_at: expect.any(Number),
    });
    const sandbox = await testApp.rest('GET', '/v1/flow-settings', { key: tenant.sandboxKey });
    expect(sandbox.body.allowed_redirect_origins).toEqual([]);
    expect(sandbox.body.display_name).toBe('Acme Shop');
    const viaGraphql = await gql(testApp, { key: tenant.liveKey }, '{ flowSettings { displayName defaultLanguage allowedEmbedOrigins } }');
    expect(viaGraphql.body.data.flowSettings).toEqual({
      displayName: 'Acme',
      defaultLanguage: 'fr',
      allowedEmbedOrigins: ['https://www.acme.example'],
    });
    const cleared = await testApp.rest('PATCH', '/v1/flow-settings', { key: tenant.liveKey, body: { logo: null, default_language: 'en' } });
    expect(cleared.body.logo).toBeUndefined();
    expect(cleared.body.display_name).toBe('Acme');
  });

  it.each([
    ['a colour that is not #rrggbb', { primary_color: 'blue' }, 'primary_color'],
    ['a colour too light for white text', { primary_color: '#ffff00' }, 'primary_color'],
    ['an SVG logo', { logo: `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}` }, 'logo'],
    ['a logo that is not the image it says', { logo: `data:image/png;base64,${Buffer.from('hello').toString('base64')}` }, 'logo'],
    ['a plain-HTTP origin in live', { allowed_redirect_origins: ['http://app.acme.example'] }, 'allowed_redirect_origins[0]'],
    ['an origin with a path', { allowed_embed_origins: ['https://acme.example/app'] }, 'allowed_embed_origins[0]'],
    ['a privacy URL over http', { privacy_url: 'http://acme.example/privacy' }, 'privacy_url'],
    ['an unsupported language', { default_language: 'it' }, 'default_language'],
    ['an unknown field', { theme: 'dark' }, ''],
  ])('given %s, when saved, then 400 naming the field and nothing changes', async (_what, body, field) => {
    const before = await testApp.rest('GET', '/v1/flow-settings', { key: tenant.liveKey });
    const refused = await testApp.rest('PATCH', '/v1/flow-settings', { key: tenant.liveKey, body });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    if (field) expect(refused.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    expect((await testApp.rest('GET', '/v1/flow-settings', { key: tenant.liveKey })).body).toEqual(before.body);
  });

  it('given a logo over 100 KB, when saved, then 400 naming logo and its limit', async () => {
    const noise = await sharp(Buffer.from(Array.from({ length: 600 * 600 * 3 }, (_, index) => (index * 7919) % 251)), {
      raw: { width: 600, height: 600, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const refused = await testApp.rest('PATCH', '/v1/flow-settings', {
      key: tenant.liveKey,
      body: { logo: `data:image/png;base64,${noise.toString('base64')}` },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'logo', message: 'must be at most 100 KB' });
  });

  it('given the sandbox key, when it allows http://localhost, then it is accepted (local development)', async () => {
    const saved = await testApp.rest('PATCH', '/v1/flow-settings', {
      key: tenant.sandboxKey,
      body: { allowed_redirect_origins: ['http://localhost:5173'] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.allowed_redirect_origins).toEqual(['http://localhost:5173']);
  });
});

describe('redirect_url and language of a session', () => {
  it.each([
    ['an origin not in the allow-list', 'https://evil.example/return'],
    ['a look-alike host that starts with an allowed one', 'https://app.acme.example.evil.com/return'],
    ['credentials in the URL', 'https://user:pass@app.acme.example/return'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a relative URL', '/return'],
    ['the same host over http', 'http://app.acme.example/return'],
  ])('given %s, when a session is created with it, then 400 redirect_not_allowed and no session', async (_what, redirectUrl) => {
    const vendorData = `redirect-refused-${Math.random()}`;
    const refused = await createSession(testApp, tenant.liveKey, {
      workflow_id: 'aml_only',
      vendor_data: vendorData,
      redirect_url: redirectUrl,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('redirect_not_allowed');
    expect(refused.body.errors[0].field).toBe('redirect_url');
    const listed = await testApp.rest('GET', `/v1/sessions?vendor_data=${encodeURIComponent(vendorData)}`, { key: tenant.liveKey });
    expect(listed.body.sessions).toEqual([]);
  });

  it("given an origin allowed only in live, when a sandbox session redirects there, then it is refused: the other environment's list does not count", async () => {
    const refused = await createSession(testApp, tenant.sandboxKey, {
      workflow_id: 'aml_only',
      vendor_data: 'redirect-other-env',
      redirect_url: 'https://app.acme.example/return',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('redirect_not_allowed');
  });

  it('given an allowed origin and a language, when a session is created, then both are stored and returned, over REST and GraphQL', async () => {
    const created = await createSession(testApp, tenant.liveKey, {
      workflow_id: 'aml_only',
      vendor_data: 'redirect-allowed',
      redirect_url: 'https://app.acme.example/kyc/return?step=1',
      language: 'de',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ redirect_url: 'https://app.acme.example/kyc/return?step=1', language: 'de' });
    const read = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.liveKey });
    expect(read.body).toMatchObject({ redirect_url: 'https://app.acme.example/kyc/return?step=1', language: 'de' });
    const viaGraphql = await gql(testApp, { key: tenant.liveKey }, 'query ($id: String!) { session(id: $id) { redirectUrl language } }', {
      id: created.body.session_id,
    });
    expect(viaGraphql.body.data.session).toEqual({ redirectUrl: 'https://app.acme.example/kyc/return?step=1', language: 'de' });
  });

  it('given an unsupported language, when a session is created, then 400 naming language', async () => {
    const refused = await createSession(testApp, tenant.liveKey, { workflow_id: 'aml_only', vendor_data: 'lang-it', language: 'it' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('language');
  });
});

describe('hostedFlow', () => {
  it("given a session's token, when the page reads hostedFlow, then it gets the branding, the steps in workflow order, the document types and, once the document passed, what it read", async () => {
    await testApp.rest('PATCH', '/v1/flow-settings', {
      key: tenant.sandboxKey,
      body: { display_name: 'Acme Sandbox', allowed_embed_origins: ['https://embed.acme.example'] },
    });
    const created = await createSession(testApp, tenant.sandboxKey, {
      workflow_id: 'standard_kyc',
      vendor_data: 'hosted-flow-read',
      expected_details: { first_name: 'Jane', last_name: 'Example' },
    });
    const token = tokenOf(created.body.url);
    const first = await gql(testApp, { sessionToken: token }, HOSTED_FLOW, { sessionId: created.body.session_id });
    expect(first.body.errors).toBeUndefined();
    const flow = first.body.data.hostedFlow;
    expect(flow).toMatchObject({
      status: 'pending',
      language: null,
      defaultLanguage: 'en',
      displayName: 'Acme Sandbox',
      allowedEmbedOrigins: ['https://embed.acme.example'],
      redirectUrl: null,
      expectedDetails: { first_name: 'Jane', last_name: 'Example' },
      documentRead: null,
    });
    expect(flow.steps.map((step: { nodeType: string }) => step.nodeType)).toEqual([
      'document_verification',
      'biometric_kyc',
      'aml_screening',
      'phone_verification',
    ]);
    expect(flow.documentTypes).toContainEqual({ idType: 'PASSPORT', sides: 1 });
    expect(flow.documentTypes).toContainEqual({ idType: 'DRIVERS_LICENSE', sides: 2 });

    const submitted = await testApp.rest('POST', `/v1/sessions/${created.body.session_id}/steps/document`, {
      headers: { 'x-session-token': token },
      body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE, first_name: 'Jane', last_name: 'Example' },
    });
    expect(submitted.status).toBe(200);
    const after = await gql(testApp, { sessionToken: token }, HOSTED_FLOW, { sessionId: created.body.session_id });
    expect(after.body.data.hostedFlow.documentRead).toEqual({ firstName: 'Jane', lastName: 'Example' });
  });

  it("given one session's token, when it reads another session's hostedFlow, then NOT_FOUND", async () => {
    const mine = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'hosted-flow-mine' });
    const theirs = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'hosted-flow-theirs' });
    const read = await gql(testApp, { sessionToken: tokenOf(mine.body.url) }, HOSTED_FLOW, { sessionId: theirs.body.session_id });
    expect(read.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
