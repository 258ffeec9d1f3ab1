import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

const DOC = join(process.cwd(), 'docs', 'webhooks.md');
// Inside the project, so the example's `import 'standardwebhooks'` resolves like an integrator's would.
const SCRATCH = join(process.cwd(), 'scratch', `docs-examples-${process.pid}`);

/** The fenced block that follows `<!-- example:NAME -->` in the markdown. */
function extractExample(markdown: string, name: string): string {
  const match = new RegExp(`<!-- example:${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(markdown);
  if (!match) throw new Error(`docs/webhooks.md has no block marked example:${name}`);
  return match[1];
}

describe('docs/webhooks.md examples', () => {
  let testApp: TestApp;
  let receiver: Receiver;
  let verifyWebhook: (secret: string, rawBody: string, headers: Record<string, unknown>) => unknown;

  beforeAll(async () => {
    await mkdir(SCRATCH, { recursive: true });
    const file = join(SCRATCH, 'verify.mjs');
    await writeFile(file, extractExample(await readFile(DOC, 'utf8'), 'verify-node'));
    ({ verifyWebhook } = await import(pathToFileURL(file).href));
    testApp = await startTestApp(WEBHOOK_TEST_ENV);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await testApp?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('given a real v3 callback delivery of a sandbox session, when the Node example verifies it, then it passes, and a tampered body fails', async () => {
    const tenant = await testApp.tenant();
    const secret = (await testApp.rest('POST', '/v1/callback-secret/rotate', { key: tenant.sandboxKey })).body.secret as string;
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'docs-example', callback: `${receiver.url}/callback` },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id;
    const [delivery] = (await receiver.waitFor((all) => all.some((r) => r.body?.data?.session_id === sessionId))).filter(
      (r) => r.body?.data?.session_id === sessionId,
    );

    const event = verifyWebhook(secret, delivery.rawBody, delivery.headers) as any;
    expect(event).toMatchObject({ type: 'session.status_changed', data: { session_id: sessionId, environment: 'sandbox' } });

    const tampered = delivery.rawBody.replace('docs-example', 'docs-exampl3');
    expect(tampered).not.toBe(delivery.rawBody);
    expect(() => verifyWebhook(secret, tampered, delivery.headers)).toThrow();
    expect(() => verifyWebhook(`whsec_${Buffer.from('another secret').toString('base64')}`, delivery.rawBody, delivery.headers)).toThrow();
  });
});
