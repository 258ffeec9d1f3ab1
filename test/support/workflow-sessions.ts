import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { gql, SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, tokenOf } from '../sessions/support.js';
import type { TestApp } from './app.js';

/**
 * Runs a sandbox session of a document + AML workflow to its verdict: a passport of `country`
 * naming `name`, then the AML step screening the same name (the sandbox's magic names set the
 * AML score). Returns the session id, its end-user token and the status after the AML step.
 */
export async function decidedDocumentAmlSession(
  testApp: TestApp,
  key: string,
  workflowId: string,
  vendorData: string,
  country: string,
  name = 'Jane Example',
): Promise<{ id: string; status: string; sessionToken: string }> {
  const created = await testApp.rest('POST', '/v1/sessions', { key, body: { workflow_id: workflowId, vendor_data: vendorData } });
  expect(created.status).toBe(201);
  const credential = { sessionToken: tokenOf(created.body.url) };
  const [firstName, lastName] = name.split(' ');
  const document = await gql(testApp, credential, SUBMIT_DOCUMENT, {
    sessionId: created.body.session_id,
    input: { country, idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName, lastName },
  });
  expect(document.body.errors).toBeUndefined();
  const aml = await gql(testApp, credential, SUBMIT_AML, { sessionId: created.body.session_id, input: { fullName: name } });
  expect(aml.body.errors).toBeUndefined();
  return {
    id: created.body.session_id as string,
    status: aml.body.data.submitAmlData.status as string,
    sessionToken: credential.sessionToken,
  };
}

/** A digest of every row a replay must not touch (sessions, their results and history, events, workflows and revisions). */
export async function sessionTablesDigest(testApp: TestApp): Promise<string> {
  const em = testApp.app.orm.em.fork();
  const hash = createHash('sha256');
  for (const table of ['session', 'session_node_result', 'session_status_change', 'outbox_event', 'workflow', 'workflow_revision']) {
    const rows = await em.execute<{ row: string }[]>(`select to_jsonb(t)::text as row from ${table} t order by 1`);
    hash.update(`${table}:${rows.map((row) => row.row).join('\n')}`);
  }
  return hash.digest('hex');
}
