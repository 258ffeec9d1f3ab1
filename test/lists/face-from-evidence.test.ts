/**
 * A face entry made from a case (issue 16.3): with only the session id, the server lists the
 * selfie's template kept at submission; when there is none under the current template key (the
 * key was rotated since), it makes one from the selfie still kept as encrypted evidence. Either
 * way only the template is stored; with neither, the request is refused naming session_id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeFaceEngine } from '../../src/engines/face/index.js';
import { rotateFaceTemplateKey } from '../../src/lists/face-templates.js';
import { completeStandardKyc, createSession, tokenOf } from '../sessions/support.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

let testApp: TestApp;
/** Two photos of one person, as data URIs. */
const faces = { listed: '', samePerson: '' };

const toDataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

beforeAll(async () => {
  testApp = await startTestApp();
  faces.listed = toDataUri(await faceSamplePng(faceSample('g0_00')));
  faces.samePerson = toDataUri(await faceSamplePng(faceSample('g0_01')));
}, 60_000);
afterAll(async () => {
  await testApp?.close();
  await closeFaceEngine();
});

/** Runs a sandbox standard_kyc session of `tenant` with `selfie`; returns its id and decision status. */
async function session(tenant: TestTenant, selfie: string): Promise<{ id: string; status: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, {
    workflow_id: 'standard_kyc',
    vendor_data: `evidence-${Math.random()}`,
  });
  expect(created.status).toBe(201);
  await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id, { selfie });
  const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.sandboxKey });
  return { id: created.body.session_id, status: decision.body.status };
}

describe('a face entry from a case', () => {
  it('given a session whose template predates a key rotation, when its face is listed by session id, then the kept selfie gives the template and it gates the same person; without evidence it is refused', async () => {
    const tenant = await testApp.tenant();
    const lists = await testApp.rest('GET', '/v1/lists', { key: tenant.sandboxKey });
    const faceList = lists.body.lists.find((list: { type: string; built_in: boolean }) => list.type === 'face' && list.built_in);
    const first = await session(tenant, faces.listed);
    const em = testApp.app.orm.em.fork();
    await em.transactional((tx) => rotateFaceTemplateKey(tx, testApp.app.services, tenant.id));
    const templates = await em.execute(`select 1 from session_list_subject where session_id = ? and kind = 'face'`, [first.id]);
    expect(templates).toEqual([]);

    const added = await testApp.rest('POST', `/v1/lists/${faceList.uuid}/entries/face`, {
      key: tenant.sandboxKey,
      body: { session_id: first.id, reason: 'second account' },
    });
    expect(added.status).toBe(201);
    expect(added.body.raw_image_stored).toBe(false);
    expect((await session(tenant, faces.samePerson)).status).toBe('declined');

    await em.execute(`delete from evidence where session_id = ?`, [first.id]);
    const refused = await testApp.rest('POST', `/v1/lists/${faceList.uuid}/entries/face`, {
      key: tenant.sandboxKey,
      body: { session_id: first.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ field: 'session_id', code: 'no_face_template' }));
  }, 90_000);
});
