import { expect } from 'vitest';
import { hashShareToken } from '../../src/sharing/sharing.service.js';
import type { RestResponse, TestApp } from '../support/app.js';
import { completeStandardKyc, createSession, tokenOf, type StandardSteps } from '../sessions/support.js';

/** Sandbox inputs that end a standard_kyc session in each shareable status. */
export const OUTCOMES = {
  approved: {},
  declined: { imageFront: 'sandbox:tampered' },
  in_review: { selfie: 'sandbox:review' },
} satisfies Record<string, StandardSteps>;

let vendorCounter = 0;

/** A new sandbox standard_kyc session of `key`, driven by its end user to the given outcome. */
export async function decidedSession(testApp: TestApp, key: string, outcome: keyof typeof OUTCOMES): Promise<string> {
  vendorCounter += 1;
  const created = await createSession(testApp, key, { workflow_id: 'standard_kyc', vendor_data: `share-user-${vendorCounter}` });
  expect(created.status).toBe(201);
  const status = await completeStandardKyc(
    testApp,
    { sessionToken: tokenOf(created.body.url) },
    created.body.session_id,
    OUTCOMES[outcome],
  );
  expect(status).toBe(outcome);
  return created.body.session_id as string;
}

/** `POST /v1/sessions/{id}/share`. */
export function share(testApp: TestApp, key: string, sessionId: string, body: Record<string, unknown>): Promise<RestResponse> {
  return testApp.rest('POST', `/v1/sessions/${sessionId}/share`, { key, body });
}

/** `POST /v1/sessions/import-shared`. */
export function importShared(testApp: TestApp, key: string, body: Record<string, unknown>): Promise<RestResponse> {
  return testApp.rest('POST', '/v1/sessions/import-shared', { key, body });
}

/** Shares a session with a partner and returns the token, asserting the 200. */
export async function shareWith(testApp: TestApp, key: string, sessionId: string, partnerId: string, expiresIn?: number): Promise<string> {
  const response = await share(testApp, key, sessionId, {
    partner_application_id: partnerId,
    ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
  });
  expect(response.status).toBe(200);
  return response.body.share_token as string;
}

/** Moves a share token's expiry into the past, as time would. */
export async function expireShareToken(testApp: TestApp, token: string): Promise<void> {
  await testApp.app.orm.em
    .fork()
    .getConnection()
    .execute(`update share_token set expires_at = now() - interval '1 second' where token_hash = ?`, [hashShareToken(token)]);
}
