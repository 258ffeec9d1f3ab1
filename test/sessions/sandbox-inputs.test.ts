/**
 * Sandbox inputs are checked like live ones (issue 17): with a sandbox key, an image field that
 * is not a decodable image of an accepted type gets the same 400 as with a live key, so an
 * integration that works in sandbox does not fail on its first real upload. Only the verdict
 * comes from the magic values.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, SANDBOX_IMAGE, tokenOf } from './support.js';

let testApp: TestApp;
let tenant: TestTenant;
let png: string;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  png = `data:image/png;base64,${(
    await sharp({ create: { width: 40, height: 40, channels: 3, background: '#336699' } })
      .png()
      .toBuffer()
  ).toString('base64')}`;
});
afterAll(() => testApp.close());

const GIF = `data:image/gif;base64,${Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64')}`;
const BAD_IMAGES: [string, string][] = [
  ['a URL', 'https://example.com/passport.jpg'],
  ['plain text', 'hello'],
  ['a GIF', GIF],
  ['a truncated JPEG', 'data:image/jpeg;base64,/9j/4AAQ'],
  ['PNG bytes declared as JPEG', 'data:image/jpeg;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'],
];

/** Submits one step of a fresh standard_kyc (or PoA) session with the key's environment; returns status, field and code. */
async function submit(key: string, path: string, body: Record<string, unknown>, workflowId = 'standard_kyc') {
  const created = await createSession(testApp, key, { workflow_id: workflowId, vendor_data: `sandbox-inputs-${Math.random()}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const response = await testApp.rest('POST', `/v1/sessions/${created.body.session_id}/steps${path}`, {
    headers: { 'x-session-token': tokenOf(created.body.url) },
    body,
  });
  return { status: response.status, field: response.body.errors?.[0]?.field, code: response.body.errors?.[0]?.code };
}

describe('sandbox image fields are checked like live ones', () => {
  describe.each(BAD_IMAGES)('given %s', (_what, value) => {
    it('when sent as the document, then the sandbox key gets the live key’s 400', async () => {
      const body = { country: 'GB', id_type: 'PASSPORT', image_front: value };
      const sandbox = await submit(tenant.sandboxKey, '/document', body);
      const live = await submit(tenant.liveKey, '/document', body);
      expect(sandbox.status).toBe(400);
      expect(sandbox).toEqual(live);
    });

    it('when sent as the selfie, then 400 naming selfie', async () => {
      const sandbox = await submit(tenant.sandboxKey, '/selfie', { selfie: value });
      expect(sandbox).toMatchObject({ status: 400, field: 'selfie' });
    });

    it('when sent as the proof of address, then 400 naming document_image', async () => {
      const sandbox = await submit(tenant.sandboxKey, '/proof-of-address', { document_image: value }, 'enhanced_kyc');
      expect(sandbox).toMatchObject({ status: 400, field: 'document_image' });
    });
  });

  it('given real images and magic tokens, when submitted in sandbox, then they are accepted and the verdict follows the token', async () => {
    expect((await submit(tenant.sandboxKey, '/document', { country: 'GB', id_type: 'PASSPORT', image_front: png })).status).toBe(200);
    expect((await submit(tenant.sandboxKey, '/document', { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE })).status).toBe(
      200,
    );
    expect(
      (await submit(tenant.sandboxKey, '/document', { country: 'GB', id_type: 'PASSPORT', image_front: 'sandbox:expired' })).status,
    ).toBe(200);
  });
});
