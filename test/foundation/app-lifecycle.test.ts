/**
 * Starting and stopping the whole service (src/app.ts startApp): two apps in one process each
 * start, serve and close, close() may be called twice, and a start that fails half way releases
 * what it opened and throws its own error.
 */
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/app.js';

describe('startApp and close', () => {
  it('given two apps started in one process, when each serves a request and both close, then both close cleanly and stop listening', async () => {
    const first = await startTestApp();
    const second = await startTestApp();
    for (const testApp of [first, second]) {
      const tenant = await testApp.tenant();
      expect((await testApp.rest('GET', '/v1/workflows', { key: tenant.sandboxKey })).status).toBe(200);
    }

    await expect(first.close()).resolves.toBeUndefined();
    await expect(second.close()).resolves.toBeUndefined();

    await expect(fetch(`${first.url}/healthz`)).rejects.toThrow();
    await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
  });

  it('given a closed app, when close is called again, then it resolves without running the teardown twice', async () => {
    const testApp = await startTestApp();
    const closing = testApp.app.close();

    expect(testApp.app.close()).toBe(closing);
    await expect(closing).resolves.toBeUndefined();
    await expect(testApp.app.close()).resolves.toBeUndefined();
  });

  it('given a port another app listens on, when an app starts on it, then the start fails with the listen error and the running app still serves', async () => {
    const running = await startTestApp();
    try {
      const port = new URL(running.url).port;

      await expect(startTestApp({ PORT: port })).rejects.toMatchObject({ code: 'EADDRINUSE' });

      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
