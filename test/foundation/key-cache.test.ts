import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_EPOCH_POLL_MS } from '../../src/auth/key-cache.js';
import { revokeApiKey } from '../../src/tenants/tenant.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

/** Longest we wait for a change made elsewhere to reach the cache, in milliseconds (many poll periods). */
const PROPAGATION_BOUND_MS = API_KEY_EPOCH_POLL_MS * 25;

describe('API key cache', () => {
  const keyLookups: string[] = [];
  let testApp: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp(
      {},
      { onQuery: (sql) => (/from "api_key" as "\w+" where "\w+"\."key_hash"/.test(sql) ? keyLookups.push(sql) : undefined) },
    );
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  /** Calls an authenticated route and returns its status. */
  const statusWith = async (key: string) => (await testApp.rest('GET', '/v1/workflows', { key })).status;

  /** Repeats `check` until it holds or the bound passes; a change elsewhere arrives with the next epoch poll. */
  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + PROPAGATION_BOUND_MS;
    while (Date.now() < deadline) if (await check()) return true;
    return check();
  }

  it('given a key used once, when it is used again, then no query looks it up', async () => {
    const issued = await testApp.issueKey(tenant.id, 'sandbox');
    expect(await statusWith(issued.key)).toBe(200);
    const before = keyLookups.length;
    expect(await statusWith(issued.key)).toBe(200);
    expect(await statusWith(issued.key)).toBe(200);
    expect(keyLookups.length).toBe(before);
  });

  it('given a cached key, when this process revokes it, then the very next request is 401', async () => {
    const issued = await testApp.issueKey(tenant.id, 'sandbox');
    expect(await statusWith(issued.key)).toBe(200);
    await revokeApiKey(testApp.app.orm.em.fork(), issued.prefix, testApp.app.services.apiKeys);
    expect(await statusWith(issued.key)).toBe(401);
  });

  it('given a cached key, when SQL outside this server revokes it, then requests are refused once the epoch poll sees it', async () => {
    const issued = await testApp.issueKey(tenant.id, 'sandbox');
    expect(await statusWith(issued.key)).toBe(200);
    // A bare UPDATE, as the CLI of another process or an operator would run: no in-process notice.
    await testApp.app.orm.em.fork().execute('update api_key set revoked_at = now() where id = ?', [issued.id]);
    expect(await eventually(async () => (await statusWith(issued.key)) === 401)).toBe(true);
    // And it stays refused: nothing re-caches a revoked key.
    expect(await statusWith(issued.key)).toBe(401);
  });

  it('given a cached key, when its tenant is deleted by SQL, then requests are refused once the epoch poll sees it', async () => {
    const doomed = await testApp.tenant();
    expect(await statusWith(doomed.sandboxKey)).toBe(200);
    await testApp.app.orm.em.fork().execute('delete from api_key where tenant_id = ?', [doomed.id]);
    expect(await eventually(async () => (await statusWith(doomed.sandboxKey)) === 401)).toBe(true);
  });
});
