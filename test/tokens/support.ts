import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { TestApp, TestTenant } from '../support/app.js';
import { createSession, gql, SUBMIT_AML } from '../sessions/support.js';

/** A name no fixture or other test screens, so shared AML tables on a server database cannot hit it. */
function uniqueName(): string {
  const letters = [...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
  return `Orsolya ${letters[0]!.toUpperCase()}${letters.slice(1)}`;
}

/** An approved aml_only session of `tenant` in `environment` (live runs the real AML engine); its id and service token. */
export async function approvedToken(
  testApp: TestApp,
  tenant: TestTenant,
  environment: ApiKeyEnvironment,
): Promise<{ sessionId: string; token: string }> {
  const key = environment === 'live' ? tenant.liveKey : tenant.sandboxKey;
  const fullName = uniqueName();
  const created = await createSession(testApp, key, { workflow_id: 'aml_only', vendor_data: `token-${fullName}` });
  expect(created.status).toBe(201);
  const step = await gql(testApp, { key }, SUBMIT_AML, { sessionId: created.body.session_id, input: { fullName, country: 'GB' } });
  expect(step.body.data?.submitAmlData.status).toBe('approved');
  const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key });
  expect(decision.body.service_token).toBeTruthy();
  return { sessionId: created.body.session_id as string, token: decision.body.service_token as string };
}
