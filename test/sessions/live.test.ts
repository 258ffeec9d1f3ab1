import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billPdf, daysAgo, longDate } from '../poa/fixtures.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { buildChip, nfcInput } from '../id-verification/support/chip.js';
import {
  mrzLines,
  renderDocument,
  toDataUri,
  type SyntheticIdentity,
  unlistedHolder,
} from '../id-verification/support/synthetic-document.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SUBMIT_AML, SUBMIT_DOCUMENT, SUBMIT_SELFIE } from './support.js';

const SUBMIT_POA = /* GraphQL */ `
  mutation ($sessionId: String!, $input: ProofOfAddressStepInput!) {
    submitProofOfAddress(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;

/** The live workflow under test: every node runs a real engine. */
const LIVE_NODES = [
  { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
  { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
  { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
  { type: 'proof_of_address', required: true, provider: 'openkyc:poa_ocr' },
];

/** The holder of every synthetic passport of this file. */
const HOLDER: SyntheticIdentity = unlistedHolder();

/** A synthetic GBR passport whose portrait area shows the given face sample. */
async function passportWithPortrait(sampleName: string): Promise<string> {
  const page = await renderDocument(HOLDER);
  const portrait = await sharp(await faceSamplePng(faceSample(sampleName)))
    .resize({ width: 300, height: 380, fit: 'cover' })
    .png()
    .toBuffer();
  return toDataUri(
    await sharp(page)
      .composite([{ input: portrait, left: 30, top: 120 }])
      .png()
      .toBuffer(),
    'image/png',
  );
}

describe('a live session on the real engines', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let workflowId: string;
  let vendor = 0;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.liveKey,
      body: { name: 'Live full check', nodes: LIVE_NODES },
    });
    expect(workflow.status).toBe(201);
    workflowId = workflow.body.workflow_id;
  });
  afterAll(() => testApp.close());

  /** Runs every step of a live session with the given selfie; returns the decision. */
  async function runSession(selfieSample: string) {
    vendor += 1;
    const created = await createSession(testApp, tenant.liveKey, {
      workflow_id: workflowId,
      vendor_data: `live-${vendor}`,
      expected_details: { first_name: 'Ada', last_name: 'Lovelace', country: 'GB' },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id;
    const key = { key: tenant.liveKey };
    const steps: [string, () => Promise<Record<string, unknown>>][] = [
      [SUBMIT_DOCUMENT, async () => ({ country: 'GB', idType: 'PASSPORT', imageFront: await passportWithPortrait('faceid') })],
      [SUBMIT_SELFIE, async () => ({ selfie: toDataUri(await faceSamplePng(faceSample(selfieSample)), 'image/png') })],
      [SUBMIT_AML, async () => ({ fullName: 'Ada Lovelace', dateOfBirth: '1985-12-10', country: 'GB' })],
      [
        SUBMIT_POA,
        async () => ({
          documentImage: toDataUri(await billPdf({ name: 'Ada Lovelace', issued: longDate(daysAgo(10)) }), 'application/pdf'),
          expectedName: 'Ada Lovelace',
          country: 'GB',
        }),
      ],
    ];
    for (const [operation, input] of steps) {
      const response = await gql(testApp, key, operation, { sessionId, input: await input() });
      expect(response.body.errors).toBeUndefined();
      const status = (Object.values(response.body.data)[0] as { status: string }).status;
      // A decline is final: the remaining steps would be refused, as they should be.
      if (status === 'declined') break;
    }
    const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.liveKey });
    expect(decision.status).toBe(200);
    return decision.body;
  }

  it("given a genuine passport, the holder's selfie, a clean name and a fresh bill, when every step runs live, then each node is judged by its real provider and the session is decided", async () => {
    const decision = await runSession('detect0');
    for (const node of LIVE_NODES) expect(decision.node_results[node.type].provider).toBe(node.provider);
    expect(decision.node_results.document_verification).toMatchObject({
      status: 'passed',
      details: { result_code: 'clear', issuing_country: 'GB' },
    });
    expect(decision.node_results.aml_screening).toMatchObject({ status: 'passed', details: { score: 0 } });
    expect(decision.node_results.proof_of_address.status).toBe('passed');
    // The portrait and the selfie are small thumbnails of one person: a match or, at worst, review.
    expect(['passed', 'review']).toContain(decision.node_results.biometric_kyc.status);
    expect(['approved', 'in_review']).toContain(decision.status);
    if (decision.status === 'approved') expect(decision.service_token).toBeTruthy();
  }, 180_000);

  it("given someone else's selfie, when the same steps run, then the face similarity is lower than the holder's", async () => {
    const holder = await runSession('detect0');
    const stranger = await runSession('detect2');
    expect(stranger.node_results.biometric_kyc.details.similarity).toBeLessThan(holder.node_results.biometric_kyc.details.similarity);
    expect(stranger.node_results.biometric_kyc.status).not.toBe('passed');
  }, 240_000);

  it('given the chip data of the passport in the document step, when it runs live, then the SOD signature and hashes are verified (no CSCA configured: a warning, never passed)', async () => {
    vendor += 1;
    const created = await createSession(testApp, tenant.liveKey, { workflow_id: workflowId, vendor_data: `live-${vendor}` });
    const chip = await buildChip(mrzLines(HOLDER));
    const response = await gql(testApp, { key: tenant.liveKey }, SUBMIT_DOCUMENT, {
      sessionId: created.body.session_id,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: await passportWithPortrait('faceid'), enableNfc: true, nfc: nfcInput(chip) },
    });
    expect(response.body.errors).toBeUndefined();
    const detail = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: tenant.liveKey });
    expect(detail.body.node_results.document_verification.details.checks.nfc_signature).toBe('warning');
    expect(detail.body.warnings.map((warning: { code: string }) => warning.code)).toContain('csca_not_configured');
  }, 120_000);
});
