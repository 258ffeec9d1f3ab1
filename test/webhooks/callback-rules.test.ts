/**
 * A session's `callback` receives the decision and the service token, so it follows the webhook
 * destination rules (audit M8, L13): HTTPS only outside development, no credentials, and an
 * IP-literal host must be public, IPv4-compatible IPv6 (`[::127.0.0.1]`) included. A refused
 * callback is a 400 naming the field, and no session is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp({ DEV_ALLOW_LOOPBACK_WEBHOOKS: 'false' });
  tenant = await testApp.tenant();
});

afterAll(async () => {
  await testApp?.close();
});

const REFUSED: [string, string][] = [
  ['plain http to a public host', 'http://example.com/plain-http-callback'],
  ['credentials in the URL', 'https://user:secret@example.com/hook'],
  ['loopback IPv4', 'https://127.0.0.1/hook'],
  ['localhost', 'https://localhost/hook'],
  ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
  ['private range', 'https://10.0.0.8/hook'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
  ['IPv4-compatible loopback', 'https://[::127.0.0.1]:4712/'],
  ['IPv4-compatible public address', 'https://[::8.8.8.8]/'],
];

describe('session callback rules in production mode', () => {
  it.each(REFUSED)(
    'given a callback with %s, when creating a session, then 400 names callback and nothing is created',
    async (_, callback) => {
      const vendorData = `callback-${callback}`;
      const response = await testApp.rest('POST', '/v1/sessions', {
        key: tenant.sandboxKey,
        body: { workflow_id: 'aml_only', vendor_data: vendorData, callback },
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'callback' })]);
      const listed = await testApp.rest('GET', `/v1/sessions?vendor_data=${encodeURIComponent(vendorData)}`, { key: tenant.sandboxKey });
      expect(listed.body.sessions).toEqual([]);
    },
  );

  it('given an https callback to a public name, when creating a session, then it is accepted', async () => {
    const response = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'aml_only', vendor_data: 'callback-public', callback: 'https://example.com/hooks/kyc' },
    });
    expect(response.status).toBe(201);
  });

  it('given an IPv4-compatible IPv6 destination, when registering it, then it is refused like the loopback it reaches', async () => {
    const response = await testApp.rest('POST', '/v1/webhook-destinations', {
      key: tenant.sandboxKey,
      body: { url: 'https://[::127.0.0.1]:4712/' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'url' })]);
  });
});
