/**
 * Timestamps past 2038 (issue 13): every timestamp is stored as timestamptz and every GraphQL
 * timestamp is the UnixTime scalar (whole seconds up to 2^53 - 1), not a 32-bit Int, so a date in
 * 2040 reads back over GraphQL and REST instead of failing serialisation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, tokenOf } from './support.js';

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
});
afterAll(() => testApp.close());

/** 2040-01-01T00:00:00Z: past 2^31 - 1 seconds (2038-01-19). */
const IN_2040 = 2_208_988_800;

describe('timestamps past 2038', () => {
  it('given a session expiring in 2040, when read over GraphQL (tenant and end user) and REST, then expiresAt is 2040 everywhere', async () => {
    const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'wide-timestamps' });
    const id = created.body.session_id as string;
    await testApp.app.orm.em.fork().execute('update session set expires_at = to_timestamp(?) where id = ?', [IN_2040, id]);
    expect(IN_2040).toBeGreaterThan(2 ** 31 - 1);

    const tenantView = await gql(testApp, { key: tenant.sandboxKey }, 'query ($id: String!) { session(id: $id) { expiresAt createdAt } }', {
      id,
    });
    expect(tenantView.body.errors).toBeUndefined();
    expect(tenantView.body.data.session.expiresAt).toBe(IN_2040);
    const endUser = await gql(
      testApp,
      { sessionToken: tokenOf(created.body.url) },
      'query ($id: String!) { verificationSteps(sessionId: $id) { expiresAt } hostedFlow(sessionId: $id) { expiresAt } }',
      { id },
    );
    expect(endUser.body.errors).toBeUndefined();
    expect(endUser.body.data).toEqual({ verificationSteps: { expiresAt: IN_2040 }, hostedFlow: { expiresAt: IN_2040 } });
    const rest = await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey });
    expect(rest.body.expires_at).toBe(IN_2040);
  });
});
