/**
 * Starting and stopping the whole service (src/app.ts startApp): two apps in one process each
 * start, serve and close, close() may be called twice, and a start that fails half way releases
 * what it opened and throws its own error.
 *
 * The apps start in hooks, so each test waits for its apps to be listening (the start resolves)
 * under the hook budget, and its own budget covers only what it checks: two boots inside one
 * test's 30 s timed out on a loaded 2-core machine.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

describe('startApp and close', () => {
  describe('given two apps started in one process', () => {
    let first: TestApp;
    let second: TestApp;
    beforeAll(async () => {
      first = await startTestApp();
      second = await startTestApp();
    });

    it('when each serves a request and both close, then both close cleanly and stop listening', async () => {
      for (const testApp of [first, second]) {
        const tenant = await testApp.tenant();
        expect((await testApp.rest('GET', '/v1/workflows', { key: tenant.sandboxKey })).status).toBe(200);
      }

      await expect(first.close()).resolves.toBeUndefined();
      await expect(second.close()).resolves.toBeUndefined();

      await expect(fetch(`${first.url}/healthz`)).rejects.toThrow();
      await expect(fetch(`${second.url}/healthz`)).rejects.toThrow();
    });
  });

  describe('given a closed app', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await startTestApp();
    });

    it('when close is called again, then it resolves without running the teardown twice', async () => {
      const closing = testApp.app.close();

      expect(testApp.app.close()).toBe(closing);
      await expect(closing).resolves.toBeUndefined();
      await expect(testApp.app.close()).resolves.toBeUndefined();
    });
  });

  describe('given a port another app listens on', () => {
    let running: TestApp;
    beforeAll(async () => {
      running = await startTestApp();
      return () => running.close();
    });

    it('when an app starts on it, then the start fails with the listen error and the running app still serves', async () => {
      const port = new URL(running.url).port;

      await expect(startTestApp({ PORT: port })).rejects.toMatchObject({ code: 'EADDRINUSE' });

      expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    });
  });
});
