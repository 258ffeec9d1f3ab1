/**
 * CORS answers only configured origins (audit N15, shaped like l5_l6_l11.mjs): a preflight from
 * another origin gets no `access-control-allow-origin`, the configured one does, and the console's
 * routes answer none at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { startTestApp, type TestApp } from '../support/app.js';

const ALLOWED = 'https://app.example.com';
let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp({ CORS_ORIGINS: ALLOWED });
});
afterAll(() => testApp?.close());

/** A browser's preflight for a POST with a key from `origin`. */
const preflight = (path: string, origin: string) =>
  fetch(`${testApp.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
  });

describe('CORS', () => {
  it('given a preflight from an origin not configured, when sent to /graphql, /v1 or the console, then no origin is allowed', async () => {
    for (const path of ['/graphql', '/v1/sessions', '/console/api/sign-in'])
      expect((await preflight(path, 'https://evil.example')).headers.get('access-control-allow-origin'), path).toBeNull();
  });

  it('given a preflight from the configured origin, when sent to /graphql and /v1, then it is allowed; the console still answers none', async () => {
    for (const path of ['/graphql', '/v1/sessions'])
      expect((await preflight(path, ALLOWED)).headers.get('access-control-allow-origin'), path).toBe(ALLOWED);
    expect((await preflight('/console/api/sign-in', ALLOWED)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('given CORS_ORIGINS holding something that is not an origin, when the configuration loads, then it is refused naming it', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(/CORS_ORIGINS.*app\.example\.com\/path/s);
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
  });
});
