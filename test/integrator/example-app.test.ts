/**
 * The example integration in examples/node-integration runs end to end against the service in
 * sandbox (issue 17): it creates a session with `redirect_url`, sends the browser to `url`, takes
 * it back, fetches the decision, verifies the service token offline against the JWKS, and verifies
 * the signatures of the webhooks it receives. The app runs as its own process, as an integrator's
 * would; the end user's steps go through the public end-user GraphQL operations.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, tokenOf } from '../sessions/support.js';
import { WEBHOOK_TEST_ENV } from '../webhooks/support.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const EXAMPLE = `${ROOT}examples/node-integration/server.mjs`;

let testApp: TestApp;
let tenant: TestTenant;
let example: ChildProcess;
let exampleUrl: string;
/** Everything the example printed, for the failure message. */
const printed: string[] = [];
/** Emits `line` for every line the example prints on stdout. */
const lines = new EventEmitter();

/** Resolves with the first line the example prints (or has printed) that matches. */
function printedLine(pattern: RegExp): Promise<string> {
  const seen = printed.find((line) => pattern.test(line));
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const listener = (line: string) => {
      if (!pattern.test(line)) return;
      lines.off('line', listener);
      resolve(line);
    };
    lines.on('line', listener);
  });
}

/** Starts the example app on a free port and resolves with its URL once it says it listens. */
async function startExample(): Promise<string> {
  example = spawn(process.execPath, [EXAMPLE], {
    cwd: `${ROOT}examples/node-integration`,
    env: {
      ...process.env,
      IDV_URL: testApp.url,
      IDV_API_KEY: tenant.sandboxKey,
      IDV_APPLICATION_ID: tenant.id,
      IDV_ENVIRONMENT: 'sandbox',
      PORT: '0',
      WEBHOOK_SECRET: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  example.stderr!.on('data', (chunk: Buffer) => printed.push(chunk.toString()));
  createInterface({ input: example.stdout! }).on('line', (line) => {
    printed.push(line);
    lines.emit('line', line);
  });
  const exited = once(example, 'exit').then(() => {
    throw new Error(`the example exited:\n${printed.join('\n')}`);
  });
  const listening = await Promise.race([printedLine(/listening on http:\/\/\S+/), exited]);
  return /listening on (http:\/\/\S+)/.exec(listening)![1];
}

beforeAll(async () => {
  testApp = await startTestApp(WEBHOOK_TEST_ENV);
  tenant = await testApp.tenant('Example Shop');
  exampleUrl = await startExample();
  const allowed = await testApp.rest('PATCH', '/v1/flow-settings', {
    key: tenant.sandboxKey,
    body: { allowed_redirect_origins: [new URL(exampleUrl).origin] },
  });
  expect(allowed.status).toBe(200);
});
afterAll(async () => {
  if (example && example.exitCode === null) {
    example.kill();
    await once(example, 'exit');
  }
  await testApp?.close();
});

/** The events the example has received and verified so far. */
async function receivedEvents(): Promise<any[]> {
  return (await (await fetch(`${exampleUrl}/events`)).json()) as any[];
}

describe('example integration (examples/node-integration)', () => {
  it('given the example app, when a user verifies through it in sandbox, then it lands back on the app with the decision, verifies the service token offline and receives signed webhooks', async () => {
    const started = await fetch(`${exampleUrl}/start`, { method: 'POST', redirect: 'manual' });
    expect(started.status).toBe(303);
    const sessionUrl = new URL(started.headers.get('location')!);
    expect(sessionUrl.origin).toBe(new URL(testApp.url).origin);
    const sessionId = sessionUrl.pathname.split('/').pop()!;

    const session = await testApp.rest('GET', `/v1/sessions/${sessionId}`, { key: tenant.sandboxKey });
    expect(session.body.redirect_url).toBe(`${exampleUrl}/return`);
    expect(await completeStandardKyc(testApp, { sessionToken: tokenOf(sessionUrl.href) }, sessionId)).toBe('approved');

    const returned = await fetch(`${exampleUrl}/return?session_id=${sessionId}&status=approved`);
    const page = await returned.text();
    expect(returned.status).toBe(200);
    expect(page).toContain('data-status="approved"');
    expect(page).toMatch(/service token verified offline \(EdDSA, kid [^,]+, level \w+\)/);

    // Deliveries are asynchronous: the example prints each delivery whose signature it verified.
    await printedLine(new RegExp(`^Webhook verified: session.status_changed ${sessionId} approved$`));
    const events = await receivedEvents();
    const approved = events.find((event) => event.type === 'session.status_changed' && event.data.status === 'approved');
    expect(approved.data.session_id).toBe(sessionId);
    expect(typeof approved.id).toBe('string');
  });

  it('given a forged delivery, when posted to the example, then it refuses it and keeps nothing', async () => {
    const before = (await receivedEvents()).length;
    const forged = await fetch(`${exampleUrl}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'forged-1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: JSON.stringify({ type: 'session.status_changed', data: { status: 'approved' } }),
    });
    expect(forged.status).toBe(400);
    expect((await receivedEvents()).length).toBe(before);
  });
});
