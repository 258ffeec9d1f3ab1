/**
 * Verdicts that resist fraud (issue 22, points 1 and 4), through the real API on a live key with
 * the real engines: a crop of the document's own portrait sent as the selfie fails the face step
 * (`selfie_matches_document_portrait`); a selfie sent again in the tenant and environment is
 * `selfie_reused`; the same face or document under another vendor_data is `duplicate_face` /
 * `duplicate_document`, reviewed or declined per workflow, naming the linked sessions; another
 * tenant's or environment's sessions are never found; erasure takes a session out of the search.
 * Documents and faces: real specimens and photos of ../shared/realdata (README there) and the
 * photos shipped in the human package (test/support/face-samples.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFace, MAX_ANALYSIS_SIDE_PX } from '../../src/engines/face/analyze.js';
import { closeFaceEngine } from '../../src/engines/face/index.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { portraitReplayCrops } from '../support/portrait-replay.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession, gql, SUBMIT_DOCUMENT, SUBMIT_SELFIE, tokenOf } from '../sessions/support.js';

const REALDATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata');
/** A real passport specimen (ICAO 9303's UTO sample; country and type as its manifest gives them). */
const SPECIMEN = { file: 'id/mrz-fastmrz/td3.jpg', country: 'SE', idType: 'PASSPORT' };

let testApp: TestApp;
const toDataUri = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
/** Selfies: two photos of one man, one of a woman, and the first re-encoded smaller (same picture, other bytes). */
const selfies = { man: '', manAgain: '', woman: '', manReencoded: '' };
let specimen = '';

beforeAll(async () => {
  testApp = await startTestApp();
  const man = await faceSamplePng(faceSample('g0_00'));
  selfies.man = toDataUri(man);
  selfies.manAgain = toDataUri(await faceSamplePng(faceSample('g0_01')));
  selfies.woman = toDataUri(await faceSamplePng(faceSample('detect1')));
  // Re-encoded as WebP: other bytes, the same picture (resizing this small crop lets a neighbour's face in at the edge).
  selfies.manReencoded = toDataUri(await sharp(man).webp({ quality: 80 }).toBuffer(), 'image/webp');
  specimen = toDataUri(readFileSync(path.join(REALDATA_DIR, SPECIMEN.file)), 'image/jpeg');
}, 300_000);
afterAll(async () => {
  await testApp?.close();
  await closeFaceEngine();
});

/** A live custom workflow of the tenant; returns its id. */
async function workflow(tenant: TestTenant, nodes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const providers: Record<string, string> = { document_verification: 'openkyc:mrz_ocr', biometric_kyc: 'openkyc:face_match' };
  const created = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.liveKey,
    // The specimens are expired: the document step is optional so the selfie step still runs.
    body: {
      name: `fraud ${nodes.join('+')}`,
      nodes: nodes.map((type) => ({ type, required: type === 'biometric_kyc', provider: providers[type] })),
      ...extra,
    },
  });
  expect(created.status).toBe(201);
  return created.body.workflow_id;
}

/** Runs a live session: the document (if given) then the selfie; returns its id and decision. */
async function run(tenant: TestTenant, workflowId: string, vendorData: string, steps: { document?: string; selfie: string }) {
  const created = await createSession(testApp, tenant.liveKey, { workflow_id: workflowId, vendor_data: vendorData });
  expect(created.status).toBe(201);
  const sessionId: string = created.body.session_id;
  const key = { key: tenant.liveKey };
  if (steps.document) {
    const document = await gql(testApp, key, SUBMIT_DOCUMENT, {
      sessionId,
      input: { country: SPECIMEN.country, idType: SPECIMEN.idType, imageFront: steps.document },
    });
    expect(document.body.errors).toBeUndefined();
  }
  const selfie = await gql(testApp, key, SUBMIT_SELFIE, { sessionId, input: { selfie: steps.selfie } });
  expect(selfie.body.errors).toBeUndefined();
  const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.liveKey });
  expect(decision.status).toBe(200);
  return { id: sessionId, decision: decision.body };
}

/** A reviewer approves an in_review session. */
async function review(tenant: TestTenant, sessionId: string): Promise<void> {
  const reviewed = await testApp.rest('POST', `/v1/sessions/${sessionId}/review`, {
    key: tenant.liveKey,
    body: { decision: 'approved', reason: 'checked by hand' },
  });
  expect(reviewed.status).toBe(200);
}

const warningCodes = (node: { warnings: { code: string }[] }) => node.warnings.map((warning) => warning.code);

describe('the document portrait replayed as the selfie', () => {
  it('given a crop of the passport portrait (resized, blurred, re-encoded), when sent as the selfie after that passport, then the face step fails with selfie_matches_document_portrait and the session declines', async () => {
    const tenant = await testApp.tenant();
    // The specimen is expired, which asks for a retake while attempts remain (and a retake keeps
    // no portrait): one attempt makes the expired document final, so its portrait is kept.
    const workflowId = await workflow(tenant, ['document_verification', 'biometric_kyc'], { max_attempts: 1 });
    const bytes = readFileSync(path.join(REALDATA_DIR, SPECIMEN.file));
    const portrait = await analyzeFace(bytes, { pick: 'largest' });
    const crops = await portraitReplayCrops(bytes, portrait.box, MAX_ANALYSIS_SIDE_PX);
    const crop = crops.find((candidate) => candidate.name.includes('blur'))!;
    expect(crop.bytes.equals(bytes)).toBe(false);

    const { decision } = await run(tenant, workflowId, 'replay', { document: specimen, selfie: toDataUri(crop.bytes, 'image/jpeg') });
    expect(decision.node_results.biometric_kyc).toMatchObject({
      status: 'failed',
      details: { result_code: 'selfie_matches_document_portrait', checks: { face_match: 'failed' } },
    });
    expect(decision.node_results.biometric_kyc.details.similarity).toBeGreaterThanOrEqual(0.98);
    expect(decision.status).toBe('declined');

    // Someone else's photo after the same passport is a mismatch, not a replay.
    const other = await run(tenant, workflowId, 'stranger', { document: specimen, selfie: selfies.woman });
    expect(other.decision.node_results.biometric_kyc.details.result_code).not.toBe('selfie_matches_document_portrait');
    expect(other.decision.node_results.biometric_kyc.details.similarity).toBeLessThan(0.98);
    // The same passport under another vendor_data is a duplicate document, naming the first session.
    expect(other.decision.node_results.document_verification.details.duplicate_document.session_ids).toHaveLength(1);
    expect(warningCodes(other.decision.node_results.document_verification)).toContain('duplicate_document');
    // What is kept of the document is a keyed hash, never its number.
    const prints = await testApp.app.orm.em
      .fork()
      .execute<{ fingerprint: string }[]>('select fingerprint from session_document_print where tenant_id = ?', [tenant.id]);
    expect(prints).toHaveLength(2);
    for (const print of prints) {
      expect(print.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(print.fingerprint).not.toContain('L898902C3');
    }
    // Two live document steps (OCR of a real specimen): minutes on a loaded 2-core machine.
  }, 600_000);
});

describe('selfies and faces seen before', () => {
  it('given a selfie sent in one session, when the same picture (same bytes, or re-encoded) comes in other sessions, then each is selfie_reused naming the first; a new photo of the same man under another vendor_data is duplicate_face', async () => {
    const tenant = await testApp.tenant();
    const workflowId = await workflow(tenant, ['biometric_kyc']);
    const first = await run(tenant, workflowId, 'alice', { selfie: selfies.man });
    expect(first.decision.node_results.biometric_kyc.details.selfie_reused).toBeUndefined();
    expect(first.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();

    // Decided first: an open session of the same vendor_data would be reused, not created.
    expect(first.decision.status).toBe('in_review');
    await review(tenant, first.id);
    const same = await run(tenant, workflowId, 'alice', { selfie: selfies.man });
    expect(same.decision.node_results.biometric_kyc.details.selfie_reused).toEqual({
      session_ids: [first.id],
      policy: 'review',
      identical_bytes: true,
    });
    // Same vendor_data: the same subject coming back, not a duplicate identity.
    expect(same.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();

    const reencoded = await run(tenant, workflowId, 'bob', { selfie: selfies.manReencoded });
    expect(reencoded.decision.node_results.biometric_kyc.details.selfie_reused).toMatchObject({ identical_bytes: false });
    expect(reencoded.decision.node_results.biometric_kyc.details.selfie_reused.session_ids.sort()).toEqual([first.id, same.id].sort());
    expect(reencoded.decision.status).toBe('in_review');

    const again = await run(tenant, workflowId, 'carol', { selfie: selfies.manAgain });
    const node = again.decision.node_results.biometric_kyc;
    expect(node.details.selfie_reused).toBeUndefined();
    expect(node.details.duplicate_face.policy).toBe('review');
    expect(node.details.duplicate_face.session_ids).toEqual(expect.arrayContaining([first.id, same.id, reencoded.id]));
    expect(node.details.duplicate_face.best_similarity).toBeGreaterThanOrEqual(0.92);
    expect(warningCodes(node)).toContain('duplicate_face');
    expect(again.decision.status).toBe('in_review');

    const stranger = await run(tenant, workflowId, 'dave', { selfie: selfies.woman });
    expect(stranger.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();
    expect(stranger.decision.node_results.biometric_kyc.details.selfie_reused).toBeUndefined();
  }, 180_000);

  it('given duplicates decline, when the same face comes under another vendor_data, then the face step fails with duplicate_face and the session declines; with duplicates off nothing is noted', async () => {
    const tenant = await testApp.tenant();
    const declining = await workflow(tenant, ['biometric_kyc'], { duplicates: 'decline' });
    const first = await run(tenant, declining, 'erin', { selfie: selfies.man });
    const second = await run(tenant, declining, 'frank', { selfie: selfies.manAgain });
    expect(second.decision.node_results.biometric_kyc).toMatchObject({
      status: 'failed',
      details: { result_code: 'duplicate_face', duplicate_face: { session_ids: [first.id], policy: 'decline' } },
    });
    expect(second.decision.status).toBe('declined');

    const off = await workflow(tenant, ['biometric_kyc'], { duplicates: 'off' });
    const shown = await testApp.rest('GET', `/v1/workflows/${off}`, { key: tenant.liveKey });
    expect(shown.body.duplicates).toBe('off');
    const third = await run(tenant, off, 'grace', { selfie: selfies.manAgain });
    expect(third.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();
  }, 120_000);

  it('given a bad duplicates value, when a workflow is created, then it is a 400 naming the field and nothing is created', async () => {
    const tenant = await testApp.tenant();
    const before = await testApp.rest('GET', '/v1/workflows', { key: tenant.liveKey });
    const refused = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.liveKey,
      body: { name: 'bad', nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }], duplicates: 'sometimes' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ field: 'duplicates' }));
    const after = await testApp.rest('GET', '/v1/workflows', { key: tenant.liveKey });
    expect(after.body.workflows ?? after.body).toEqual(before.body.workflows ?? before.body);
  });
});

describe('boundaries and erasure', () => {
  it("given the same face in another tenant and in this tenant's sandbox, when a live session sends it, then neither is found; once this tenant's earlier session is erased, it is not found either", async () => {
    const other = await testApp.tenant();
    const otherWorkflow = await workflow(other, ['biometric_kyc']);
    await run(other, otherWorkflow, 'elsewhere', { selfie: selfies.man });

    const tenant = await testApp.tenant();
    // A sandbox session of this very tenant leaves a template of the same face (same tenant key).
    const sandbox = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'sandbox-twin' });
    await completeStandardKyc(testApp, { sessionToken: tokenOf(sandbox.body.url) }, sandbox.body.session_id, { selfie: selfies.man });
    const em = testApp.app.orm.em.fork();
    const kept = await em.execute(`select 1 from session_list_subject where session_id = ? and kind = 'face'`, [sandbox.body.session_id]);
    expect(kept).toHaveLength(1);

    const workflowId = await workflow(tenant, ['biometric_kyc']);
    const live = await run(tenant, workflowId, 'here', { selfie: selfies.manAgain });
    expect(live.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();
    expect(live.decision.node_results.biometric_kyc.details.selfie_reused).toBeUndefined();

    // Decide and erase the live session: its template and prints leave the search.
    await review(tenant, live.id);
    const erased = await testApp.rest('POST', `/v1/sessions/${live.id}/erase`, { key: tenant.liveKey });
    expect(erased.status).toBe(200);
    const after = await run(tenant, workflowId, 'someone-else', { selfie: selfies.manAgain });
    expect(after.decision.node_results.biometric_kyc.details.duplicate_face).toBeUndefined();
    expect(after.decision.node_results.biometric_kyc.details.selfie_reused).toBeUndefined();
  }, 180_000);
});
