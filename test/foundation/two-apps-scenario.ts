/**
 * Two apps in one process (test/foundation/two-apps.test.ts): both started, both used, the one
 * started last closed first while the other keeps working, then both closed. Run by
 * two-apps-process.ts, whose natural exit shows that nothing was left running.
 */
import assert from 'node:assert/strict';
import { ApiError } from '../../src/shared/errors.js';
import { analyzeFaceOffThread } from '../../src/engines/pool/executor.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { completeStandardKyc, createSession, tokenOf } from '../sessions/support.js';

/** Runs one sandbox session to its decision and a live standalone AML screen on `testApp`. */
async function useApp(testApp: TestApp): Promise<void> {
  const tenant = await testApp.tenant();
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'two-apps' });
  assert.equal(created.status, 201);
  const status = await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id);
  assert.equal(status, 'approved');
  // The live AML engine reads this app's database through this app's ORM.
  const screened = await testApp.rest('POST', '/v1/aml', { key: tenant.liveKey, body: { full_name: 'Nobody Listed', lists: ['UN_SC'] } });
  assert.equal(screened.status, 200);
  assert.deepEqual(screened.body.checked_lists, ['UN_SC']);
}

/** Starts two apps, uses both, closes the second and uses the first again, then closes both. */
export async function runTwoApps(): Promise<void> {
  // Embedded, each app has its own in-memory database and runs its webhook emitter in process; on a
  // server both share DATABASE_URL, whose deliveries are left to the other test files' emitters.
  const env: Record<string, string> = process.env.DATABASE_URL ? {} : { EMITTER_IN_PROCESS: 'true' };
  const first = await startTestApp(env);
  const second = await startTestApp(env);
  try {
    assert.notEqual(first.url, second.url);
    // One registry per app: the live engines close over their own app's database.
    assert.notEqual(first.app.services.engines, second.app.services.engines);
    assert.notEqual(first.app.services.engines.live('openkyc:aml_screen'), second.app.services.engines.live('openkyc:aml_screen'));
    assert.notEqual(first.app.services.decisionHooks, second.app.services.decisionHooks);
    // One engine executor per app: closing one app's pool leaves the other's working.
    assert.notEqual(first.app.services.engines.executor, second.app.services.engines.executor);
    await useApp(first);
    await useApp(second);
    // The app started last closes first: the first keeps its own engines, gates and caches.
    await second.close();
    await useApp(first);
    // CPU work still reaches the first app's executor: a faceless image is a 400 from the engine, not a closed pool.
    const blank = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    await assert.rejects(analyzeFaceOffThread(first.app.services.engines.executor, blank, { field: 'image', pick: 'only' }), ApiError);
  } finally {
    await second.close();
    await first.close();
  }
}
