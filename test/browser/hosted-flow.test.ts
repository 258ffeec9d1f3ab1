/**
 * The hosted verification flow in a real browser (Chromium driven by playwright-core, Chromium's
 * fake camera playing a synthetic passport made at test time): a person on a phone completes a
 * session at its `url`, every screen in every language passes axe, a blurred photo is retaken,
 * the upload fallback works without a camera, the page embeds only where allowed and tells the
 * parent what happens, and the browser lands on `redirect_url`. Screenshots of every screen go
 * to test-artifacts/screens.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES, LANGUAGES, type Language } from '../../src/web/shared/i18n.js';
import { END_USER_SENTENCES, type EndUserMessage } from '../../src/domain/reasons.js';
import { renderDocument, unlistedHolder } from '../id-verification/support/synthetic-document.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { billPdf, daysAgo, longDate } from '../poa/fixtures.js';
import { createSession, SANDBOX_IMAGE } from '../sessions/support.js';
import { waitForSubscribers } from '../events/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, launchChromium, screenshot, writeFakeVideo } from './support.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
/** A browser run through several screens on a loaded 2-core machine. */
const FLOW_MS = 120_000;

let testApp: TestApp;
let tenant: TestTenant;
let camera: Browser;
let noCamera: Browser;
let receiver: Server;
let receiverOrigin: string;
let passportPng: Buffer;
let blurredPng: Buffer;
let noMrzPng: Buffer;
let selfiePng: Buffer;
const files = mkdtempSync(join(tmpdir(), 'hosted-flow-'));

/** Serves the integrator's side: a return page and a parent page that embeds a session url. */
function startReceiver(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://x');
    if (url.pathname === '/back') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>Back at the shop</title><h1>Back at the shop</h1>`);
    } else if (url.pathname === '/embed') {
      response.writeHead(200, { 'content-type': 'text/html' });
      const src = url.searchParams.get('src') ?? '';
      response.end(`<!doctype html><title>Shop</title><h1>Shop</h1>
        <script>window.messages = []; addEventListener('message', (event) => window.messages.push({ origin: event.origin, data: event.data }));</script>
        <iframe id="kyc" title="Identity verification" allow="camera" width="400" height="800" src="${src.replace(/"/g, '&quot;')}"></iframe>`);
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  // Plain-HTTP loopback origins in live too: the integrator's pages here are served over http.
  testApp = await startTestApp({ DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true' });
  tenant = await testApp.tenant('Acme Shop');
  receiver = await startReceiver();
  receiverOrigin = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const saved = await testApp.rest('PATCH', '/v1/flow-settings', {
    key: tenant.sandboxKey,
    body: {
      allowed_redirect_origins: [receiverOrigin],
      allowed_embed_origins: [receiverOrigin],
      privacy_url: 'https://acme.example/privacy',
    },
  });
  expect(saved.status).toBe(200);
  // A GB passport of Ada Lovelace whose portrait is a real face; her selfie is the same person.
  const portrait = await sharp(await faceSamplePng(faceSample('faceid')))
    .resize({ width: 300, height: 380, fit: 'cover' })
    .png()
    .toBuffer();
  passportPng = await sharp(await renderDocument(unlistedHolder()))
    .composite([{ input: portrait, left: 30, top: 120 }])
    .png()
    .toBuffer();
  // Another photo of the same man (the portrait's own picture would be a replay of the document,
  // docs/face.md), as large as a phone's front camera takes it.
  selfiePng = await sharp(await faceSamplePng(faceSample('g0_00')))
    .resize({ width: 720 })
    .png()
    .toBuffer();
  blurredPng = await sharp(passportPng).blur(8).png().toBuffer();
  const { height } = await sharp(passportPng).metadata();
  // The same page with its machine-readable zone cut off: sharp, but no MRZ to read.
  noMrzPng = await sharp(passportPng)
    .extract({ left: 0, top: 0, width: (await sharp(passportPng).metadata()).width!, height: Math.round(height! * 0.7) })
    .png()
    .toBuffer();
  const video = await writeFakeVideo(passportPng, join(files, 'passport.y4m'));
  camera = await launchChromium({ fakeVideo: video });
  noCamera = await launchChromium({ camera: false });
}, 300_000);
afterAll(async () => {
  await camera?.close();
  await noCamera?.close();
  receiver?.close();
  await testApp?.close();
});

/** A sandbox session of the tenant; returns its url. */
async function sessionUrl(body: Record<string, unknown>): Promise<string> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.url as string;
}

/** The end-user token of a session url. */
function tokenOfUrl(url: string): string {
  return new URL(url).searchParams.get('token') ?? '';
}

/** The progress line "Step {current} of {total}" in a language, as the page writes it. */
function stepOf(language: Language, current: number, total: number): string {
  return CATALOGUES[language].stepOf.replace('{current}', String(current)).replace('{total}', String(total));
}

/** Waits for a screen of the flow; after a live engine's first run (models loading on a cold thread) give it `timeout`. */
async function screen(page: Page, name: string, timeout?: number): Promise<void> {
  await page.locator(`#app[data-screen="${name}"]`).waitFor({ timeout });
}

/** Agrees and starts. */
async function passWelcome(page: Page): Promise<void> {
  await screen(page, 'welcome');
  await page.getByLabel(CATALOGUES.en.consent).check();
  await page.getByRole('button', { name: 'Start' }).click();
}

/** Chooses a passport from Great Britain. */
async function choosePassport(page: Page): Promise<void> {
  await screen(page, 'document');
  await page.locator('#country').selectOption('GB');
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Uploads an image through the capture screen's file fallback and waits for the review. */
async function upload(page: Page, image: Buffer, review: string): Promise<void> {
  await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: image });
  await screen(page, review);
}

describe.skipIf(!enabled)('hosted verification flow in Chromium', () => {
  it(
    'given a phone with a camera, when a person verifies a sandbox session at its url, then every screen works, the token leaves the address bar, and the browser lands on redirect_url with the status',
    async () => {
      const url = await sessionUrl({
        vendor_data: 'browser-camera',
        redirect_url: `${receiverOrigin}/back`,
        expected_details: { first_name: 'Claire', last_name: 'Martin' },
      });
      const context = await camera.newContext({ ...PHONE, locale: 'en-GB' });
      const page = await context.newPage();
      const response = await page.goto(url);
      expect(response!.headers()['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
      expect(response!.headers()['referrer-policy']).toBe('no-referrer');
      await screen(page, 'welcome');
      expect(new URL(page.url()).searchParams.has('token')).toBe(false);
      await screenshot(page, 'phone-01-welcome');
      await page.getByRole('button', { name: 'Start' }).click();
      await expect.poll(() => page.locator('.error').textContent()).toBe(CATALOGUES.en.consentRequired);
      await page.getByLabel(CATALOGUES.en.consent).check();
      await page.getByRole('button', { name: 'Start' }).click();
      await screen(page, 'document');
      // Three steps asked: standard_kyc's phone step is optional and last, so never asked.
      expect(await page.locator('.progress').textContent()).toBe(stepOf('en', 1, 3));
      await screenshot(page, 'phone-02-document');
      await page.locator('#country').selectOption('GB');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('#app[data-camera="ready"]').waitFor();
      await screenshot(page, 'phone-03-capture-document');
      await page.getByRole('button', { name: 'Take photo' }).click();
      await screen(page, 'document-review');
      await screenshot(page, 'phone-04-document-review');
      expect(await page.locator('#app').getAttribute('data-quality')).toBe('ok');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await screen(page, 'selfie');
      expect(await page.locator('.progress').textContent()).toBe(stepOf('en', 2, 3));
      await page.locator('#app[data-camera="ready"]').waitFor();
      await screenshot(page, 'phone-05-selfie');
      await page.getByRole('button', { name: 'Take photo' }).click();
      await screen(page, 'selfie-review');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await screen(page, 'details');
      expect(await page.locator('.progress').textContent()).toBe(stepOf('en', 3, 3));
      await screenshot(page, 'phone-06-details');
      expect(await page.getByLabel('Full name').inputValue()).toBe('Claire Martin');
      await page.getByRole('button', { name: 'Continue' }).click();
      await screen(page, 'done');
      await screenshot(page, 'phone-07-done');
      expect(await page.locator('#app').getAttribute('data-status')).toBe('approved');
      await page.getByRole('link', { name: 'Continue to Acme Shop' }).click();
      await page.waitForURL(`${receiverOrigin}/back?**`);
      const back = new URL(page.url());
      expect(back.searchParams.get('status')).toBe('approved');
      expect(back.searchParams.get('session_id')).toBe(new URL(url).pathname.split('/').pop());
      await context.close();
    },
    FLOW_MS,
  );

  it(
    'given a live key and the real engines, when the MRZ is cut off the first photo, then the page asks for a retake with the reason; the camera retake and a selfie of the holder reach approved and redirect_url',
    async () => {
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.liveKey,
        body: {
          name: 'Live hosted',
          nodes: [
            { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
            { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
            { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
          ],
        },
      });
      expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
      const settings = await testApp.rest('PATCH', '/v1/flow-settings', {
        key: tenant.liveKey,
        body: { allowed_redirect_origins: [receiverOrigin], display_name: 'Acme Live' },
      });
      expect(settings.status, JSON.stringify(settings.body)).toBe(200);
      const created = await createSession(testApp, tenant.liveKey, {
        workflow_id: workflow.body.workflow_id,
        vendor_data: 'browser-live',
        redirect_url: `${receiverOrigin}/back`,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const context = await camera.newContext(PHONE);
      const page = await context.newPage();
      await page.goto(created.body.url);
      await passWelcome(page);
      await choosePassport(page);
      await page.locator('#app[data-camera="ready"]').waitFor();
      await upload(page, noMrzPng, 'document-review');
      await screenshot(page, 'live-document-review-no-mrz');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      // The first live document of the run: the OCR thread loads its models first.
      await screen(page, 'retake', 120_000);
      expect(await page.locator('#app').getAttribute('data-reason')).toBe('mrz_not_found');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(CATALOGUES.en.retake_mrz_not_found);
      await screenshot(page, 'live-retake');
      await page.getByRole('button', { name: 'Retake' }).click();
      // The retake keeps the passport and GB chosen before: straight back to the camera.
      await page.locator('#app[data-camera="ready"]').waitFor();
      expect(await page.locator('#country').count()).toBe(0);
      await page.getByRole('button', { name: 'Take photo' }).click();
      await screen(page, 'document-review');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await screen(page, 'selfie');
      await upload(page, selfiePng, 'selfie-review');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await screen(page, 'details');
      expect(await page.getByLabel('Full name').inputValue()).toBe('ADA LOVELACE');
      await page.getByRole('button', { name: 'Continue' }).click();
      await screen(page, 'done');
      await screenshot(page, 'live-done');
      expect(await page.locator('#app').getAttribute('data-status')).toBe('approved');
      await page.getByRole('link', { name: 'Continue to Acme Live' }).click();
      await page.waitForURL(`${receiverOrigin}/back?**`);
      expect(new URL(page.url()).searchParams.get('status')).toBe('approved');
      const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.liveKey });
      expect(decision.body.node_results.document_verification.provider).toBe('openkyc:mrz_ocr');
      await context.close();
    },
    FLOW_MS * 2,
  );

  it(
    'given a workflow with a two-sided document, a phone and a proof of address, when the person goes through them, then front and back are asked for, the number is formatted as typed, the code screen offers a resend after its timer, and the bill is uploaded; every screen passes axe',
    async () => {
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.sandboxKey,
        body: {
          name: 'Card, phone and bill',
          nodes: [
            { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
            { type: 'phone_verification', required: true, provider: 'openkyc:sms_otp' },
            { type: 'proof_of_address', required: true, provider: 'openkyc:poa_ocr' },
          ],
        },
      });
      expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
      const url = await sessionUrl({ workflow_id: workflow.body.workflow_id, vendor_data: 'browser-card-phone-bill' });
      const context = await noCamera.newContext(PHONE);
      const page = await context.newPage();
      await page.goto(url);
      await passWelcome(page);
      await screen(page, 'document');
      await page.getByLabel(CATALOGUES.en.type_NATIONAL_ID).check();
      await page.locator('#country').selectOption('FR');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('#app[data-camera="none"]').waitFor();
      expect(await page.locator('h1').textContent()).toBe(CATALOGUES.en.frontHeading);
      await upload(page, passportPng, 'document-review');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await page.locator('#app[data-camera="none"]').waitFor();
      expect(await page.locator('h1').textContent()).toBe(CATALOGUES.en.backHeading);
      await upload(page, passportPng, 'document-review');
      await page.getByRole('button', { name: 'Use this photo' }).click();

      await screen(page, 'phone');
      await expectNoSeriousA11yViolations(page, 'phone');
      await page.getByLabel(CATALOGUES.en.phoneNumber).pressSequentially('+447911123456');
      expect(await page.getByLabel(CATALOGUES.en.phoneNumber).inputValue()).toBe('+44 7911 123456');
      await screenshot(page, 'phone-phone');
      await page.getByRole('button', { name: 'Send code' }).click();
      await screen(page, 'phone-code');
      expect(await page.getByRole('button', { name: 'Resend code' }).isDisabled()).toBe(true);
      await expect.poll(() => page.locator('.hint').last().textContent()).toMatch(/You can ask for a new code in \d+ s\./);
      await expectNoSeriousA11yViolations(page, 'phone-code');
      await screenshot(page, 'phone-code');
      await page.getByLabel(CATALOGUES.en.code).fill('000000');
      await page.getByRole('button', { name: 'Verify code' }).click();

      await screen(page, 'poa');
      await expectNoSeriousA11yViolations(page, 'poa');
      await screenshot(page, 'phone-poa');
      const bill = await billPdf({ name: 'Sandbox User', issued: longDate(daysAgo(5)) });
      await page.getByLabel(CATALOGUES.en.chooseDocument).setInputFiles({ name: 'bill.pdf', mimeType: 'application/pdf', buffer: bill });
      await page.getByRole('button', { name: 'Continue' }).click();
      await screen(page, 'done');
      expect(await page.locator('#app').getAttribute('data-status')).toBe('approved');
      await context.close();
    },
    FLOW_MS,
  );

  it(
    'given the sanctioned and the PEP sandbox names, when the person completes the flow, then the final screen says declined and in review',
    async () => {
      for (const [lastName, status] of [
        ['Sanctioned', 'declined'],
        ['Pep', 'in_review'],
      ] as const) {
        const url = await sessionUrl({
          vendor_data: `browser-${status}`,
          expected_details: { first_name: 'Sandbox', last_name: lastName },
        });
        const context = await noCamera.newContext(PHONE);
        const page = await context.newPage();
        await page.goto(url);
        await passWelcome(page);
        await choosePassport(page);
        await screen(page, 'document');
        await page.locator('#app[data-camera="none"]').waitFor();
        await upload(page, passportPng, 'document-review');
        await page.getByRole('button', { name: 'Use this photo' }).click();
        await screen(page, 'selfie');
        await page.locator('#app[data-camera="none"]').waitFor();
        await upload(page, passportPng, 'selfie-review');
        await page.getByRole('button', { name: 'Use this photo' }).click();
        await screen(page, 'details');
        await page.getByRole('button', { name: 'Continue' }).click();
        await screen(page, 'done');
        expect(await page.locator('#app').getAttribute('data-status')).toBe(status);
        await screenshot(page, `phone-done-${status}`);
        await context.close();
      }
    },
    FLOW_MS,
  );

  it(
    'given no camera and a blurred photo, when it is uploaded, then the review asks for a retake with the reason; the sharp retake passes',
    async () => {
      const url = await sessionUrl({ vendor_data: 'browser-blurred' });
      const context = await noCamera.newContext(PHONE);
      const page = await context.newPage();
      await page.goto(url);
      await passWelcome(page);
      await choosePassport(page);
      await page.locator('#app[data-camera="none"]').waitFor();
      await screenshot(page, 'phone-capture-no-camera');
      await upload(page, blurredPng, 'document-review');
      expect(await page.locator('#app').getAttribute('data-quality')).toContain('blurry');
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain(CATALOGUES.en.quality_blurry);
      // The problem list sits inside a live region, keeping its list semantics (axe `listitem`).
      await expectNoSeriousA11yViolations(page, 'document review with a problem list');
      await screenshot(page, 'phone-document-review-blurred');
      await page.getByRole('button', { name: 'Retake' }).click();
      await screen(page, 'document');
      await upload(page, passportPng, 'document-review');
      expect(await page.locator('#app').getAttribute('data-quality')).toBe('ok');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await screen(page, 'selfie');
      await context.close();
    },
    FLOW_MS,
  );

  it(
    'given a reviewer who asked for the personal details again, when the end user opens the flow, then it says the review team asked for the step and takes the new details to a decision',
    async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'browser-reviewer-retake' });
      const id = created.body.session_id as string;
      const token = new URL(created.body.url).searchParams.get('token')!;
      const submitted = await fetch(`${testApp.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-token': token },
        body: JSON.stringify({
          query: 'mutation ($id: String!) { submitAmlData(sessionId: $id, input: { fullName: "Sandbox Pep", country: "GB" }) { status } }',
          variables: { id },
        }),
      });
      expect(((await submitted.json()) as any).data.submitAmlData.status).toBe('in_review');
      const asked = await testApp.rest('POST', `/v1/sessions/${id}/retake`, {
        key: tenant.sandboxKey,
        body: { node_type: 'aml_screening', reason: 'Internal: name differs from the account holder' },
      });
      expect(asked.status).toBe(200);

      const context = await noCamera.newContext(PHONE);
      const page = await context.newPage();
      await page.goto(created.body.url);
      await passWelcome(page);
      await screen(page, 'retake');
      expect(await page.locator('h1').textContent()).toBe(CATALOGUES.en.retakeStepHeading);
      expect(await page.getByRole('alert').textContent()).toBe(CATALOGUES.en.retake_reviewer_request);
      // The reviewer's own words are for the audit trail and the integrator, not the end user.
      expect(await page.locator('#app').textContent()).not.toContain('Internal');
      await expectNoSeriousA11yViolations(page, 'retake asked by a reviewer');
      await screenshot(page, 'phone-retake-reviewer-request');
      await page.getByRole('button', { name: CATALOGUES.en.retakeStep }).click();
      await screen(page, 'details');
      await page.getByLabel('Full name').fill('Jane Doe');
      await page.getByRole('button', { name: 'Continue' }).click();
      await screen(page, 'done');
      expect(await page.locator('#app').getAttribute('data-status')).toBe('approved');
      await context.close();
    },
    FLOW_MS,
  );

  /** Submits a step through the end-user API with the session token, as another device would. */
  async function submitAs(token: string, id: string, mutation: string, input: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${testApp.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': token },
      body: JSON.stringify({ query: mutation, variables: { id, input } }),
    });
    const body = (await response.json()) as any;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return Object.values<{ status: string }>(body.data)[0].status;
  }
  const DOCUMENT = 'mutation ($id: String!, $input: DocumentStepInput!) { submitDocument(sessionId: $id, input: $input) { status } }';
  const SELFIE = 'mutation ($id: String!, $input: SelfieStepInput!) { submitSelfie(sessionId: $id, input: $input) { status } }';
  const A_PHOTO = SANDBOX_IMAGE;

  it(
    'given each retryable failure (an expired document, a photo the server cannot read, a selfie that fails liveness, a reviewer retake with a code and a note), when the person opens the flow in a language, then the page says why in it, and the retake leads to approved; axe finds nothing serious',
    async () => {
      const cases: {
        name: string;
        language: Language;
        fail: (token: string, id: string) => Promise<void>;
        expected: (language: Language) => string;
        note?: string;
      }[] = [
        {
          name: 'expired',
          language: 'fr',
          fail: async (token, id) => {
            await submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:expired' });
          },
          expected: (language) => END_USER_SENTENCES[language].document_expired,
        },
        {
          name: 'blurry',
          language: 'de',
          fail: async (token, id) => {
            await submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:blurry' });
          },
          expected: (language) => CATALOGUES[language].quality_blurry,
        },
        {
          name: 'liveness',
          language: 'es',
          fail: async (token, id) => {
            await submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: A_PHOTO });
            await submitAs(token, id, SELFIE, { selfie: 'sandbox:spoof' });
          },
          expected: (language) => END_USER_SENTENCES[language].face_unclear,
        },
        {
          name: 'reviewer',
          language: 'en',
          note: 'Photograph your own passport, not a copy.',
          fail: async (token, id) => {
            await submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: A_PHOTO });
            await submitAs(token, id, SELFIE, { selfie: 'sandbox:review' });
            const aml = 'mutation ($id: String!, $input: AmlStepInput!) { submitAmlData(sessionId: $id, input: $input) { status } }';
            expect(await submitAs(token, id, aml, { fullName: 'Jane Example' })).toBe('in_review');
            const asked = await testApp.rest('POST', `/v1/sessions/${id}/retake`, {
              key: tenant.sandboxKey,
              body: {
                node_type: 'document_verification',
                reason_code: 'document_expired',
                note: 'Photograph your own passport, not a copy.',
              },
            });
            expect(asked.status, JSON.stringify(asked.body)).toBe(200);
          },
          expected: (language) => END_USER_SENTENCES[language].document_expired,
        },
      ];
      for (const item of cases) {
        const catalogue = CATALOGUES[item.language];
        const created = await createSession(testApp, tenant.sandboxKey, {
          workflow_id: 'standard_kyc',
          vendor_data: `browser-retry-${item.name}`,
          language: item.language,
          redirect_url: `${receiverOrigin}/back`,
        });
        const id = created.body.session_id as string;
        await item.fail(tokenOfUrl(created.body.url), id);
        const context = await noCamera.newContext(PHONE);
        const page = await context.newPage();
        await page.goto(created.body.url);
        await screen(page, 'welcome');
        await page.getByLabel(catalogue.consent).check();
        await page.getByRole('button', { name: catalogue.start }).click();
        await screen(page, 'retake');
        await expect.poll(() => page.getByRole('alert').textContent()).toBe(item.expected(item.language));
        // Progress names the step being redone among the three this person is asked (the optional
        // phone step after the last required one is never asked).
        expect(await page.locator('.progress').textContent()).toBe(stepOf(item.language, item.name === 'liveness' ? 2 : 1, 3));
        if (item.note) {
          expect(await page.locator('[data-reviewer-note]').textContent()).toBe(item.note);
          expect(await page.locator('#app').textContent()).toContain(catalogue.reviewerNote);
        }
        await expectNoSeriousA11yViolations(page, `retake ${item.name}`);
        await screenshot(page, `retry-${item.name}-${item.language}`);
        await page.getByRole('button', { name: item.note ? catalogue.retakeStep : catalogue.retake }).click();
        if (item.name !== 'liveness') {
          await screen(page, 'document');
          await page.locator('#country').selectOption('GB');
          await page.getByRole('button', { name: catalogue.continue }).click();
          await page.locator('#app[data-camera="none"]').waitFor();
          await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: passportPng });
          await screen(page, 'document-review');
          await page.getByRole('button', { name: catalogue.usePhoto }).click();
        }
        if (item.name !== 'reviewer') {
          await screen(page, 'selfie');
          await page.locator('#app[data-camera="none"]').waitFor();
          await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: selfiePng });
          await screen(page, 'selfie-review');
          await page.getByRole('button', { name: catalogue.usePhoto }).click();
          await page.locator('#app[data-screen="details"]').waitFor({ timeout: 120_000 });
          await page.getByRole('button', { name: catalogue.continue }).click();
        }
        await screen(page, 'done');
        // A reviewer's retake goes back to the reviewer (the selfie still asks for review); the others are approved.
        const status = item.name === 'reviewer' ? 'in_review' : 'approved';
        expect(await page.locator('#app').getAttribute('data-status')).toBe(status);
        // The way back opens by itself after a few seconds, announced.
        expect(await page.locator('#redirect-notice').textContent()).toBe(
          catalogue.redirectIn.replace('{name}', 'Acme Shop').replace('{seconds}', '5'),
        );
        await page.waitForURL(`${receiverOrigin}/back?**`);
        expect(new URL(page.url()).searchParams.get('status')).toBe(status);
        await context.close();
      }
    },
    FLOW_MS * 3,
  );

  it(
    'given each final decline (a tampered document, a face that does not match, a sanctions hit), when the person opens the flow in each language, then the decline says a short honest reason (never the signal), offers the way back, and staying cancels the redirect; axe finds nothing serious',
    async () => {
      const AML = 'mutation ($id: String!, $input: AmlStepInput!) { submitAmlData(sessionId: $id, input: $input) { status } }';
      const declines: {
        name: string;
        workflow: string;
        decline: (token: string, id: string) => Promise<string>;
        sentence: EndUserMessage;
      }[] = [
        {
          name: 'tampered',
          workflow: 'standard_kyc',
          decline: (token, id) => submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:tampered' }),
          sentence: 'document_not_verified',
        },
        {
          name: 'face-mismatch',
          workflow: 'standard_kyc',
          decline: async (token, id) => {
            await submitAs(token, id, DOCUMENT, { country: 'GB', idType: 'PASSPORT', imageFront: A_PHOTO });
            return submitAs(token, id, SELFIE, { selfie: 'sandbox:face_mismatch' });
          },
          sentence: 'face_mismatch',
        },
        {
          name: 'sanctions',
          workflow: 'aml_only',
          decline: (token, id) => submitAs(token, id, AML, { fullName: 'Sandbox Sanctioned' }),
          sentence: 'checks_incomplete',
        },
      ];
      for (const kind of declines) {
        for (const language of LANGUAGES) {
          const catalogue = CATALOGUES[language];
          const created = await createSession(testApp, tenant.sandboxKey, {
            workflow_id: kind.workflow,
            vendor_data: `browser-declined-${kind.name}-${language}`,
            language,
            redirect_url: `${receiverOrigin}/back`,
          });
          const id = created.body.session_id as string;
          expect(await kind.decline(tokenOfUrl(created.body.url), id)).toBe('declined');
          const context = await noCamera.newContext(PHONE);
          const page = await context.newPage();
          await page.goto(created.body.url);
          await screen(page, 'done');
          expect(await page.locator('h1').textContent()).toBe(catalogue.doneHeading_declined);
          expect(await page.locator('[data-outcome]').textContent()).toBe(
            `${catalogue.declinedWhy} ${END_USER_SENTENCES[language][kind.sentence]}`,
          );
          const text = (await page.locator('#app').textContent())!.toLowerCase();
          for (const signal of ['tamper', 'sanction']) expect(text).not.toContain(signal);
          await page.getByRole('button', { name: catalogue.stayHere }).click();
          expect(await page.locator('#redirect-notice').textContent()).toBe(catalogue.redirectCancelled);
          await expectNoSeriousA11yViolations(page, `declined ${kind.name} ${language}`);
          await screenshot(page, kind.name === 'tampered' ? `declined-${language}` : `declined-${kind.name}-${language}`);
          expect(await page.getByRole('link', { name: catalogue.backTo.replace('{name}', 'Acme Shop') }).getAttribute('href')).toContain(
            'status=declined',
          );
          await context.close();
        }
      }
    },
    FLOW_MS * 4,
  );

  it(
    'given each language, when the flow is walked through, then every screen is in that language and axe finds no serious or critical violation',
    async () => {
      for (const language of LANGUAGES) {
        const catalogue = CATALOGUES[language];
        const url = await sessionUrl({ vendor_data: `browser-lang-${language}`, language });
        const context: BrowserContext = await noCamera.newContext(PHONE);
        const page = await context.newPage();
        await page.goto(url);
        const check = async (name: string, heading: string) => {
          await screen(page, name);
          expect(await page.locator('html').getAttribute('lang')).toBe(language);
          expect(await page.locator('h1').textContent()).toBe(heading);
          await expectNoSeriousA11yViolations(page, `${language} ${name}`);
          await screenshot(page, `lang-${language}-${name}`);
        };
        await check('welcome', catalogue.welcomeHeading);
        await page.getByLabel(catalogue.consent).check();
        await page.getByRole('button', { name: catalogue.start }).click();
        await check('document', catalogue.documentHeading);
        await page.locator('#country').selectOption('GB');
        await page.getByRole('button', { name: catalogue.continue }).click();
        await page.locator('#app[data-camera="none"]').waitFor();
        await check('document', catalogue.pageHeading);
        await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: passportPng });
        await check('document-review', catalogue.reviewHeading);
        await page.getByRole('button', { name: catalogue.usePhoto }).click();
        await page.locator('#app[data-camera="none"]').waitFor();
        await check('selfie', catalogue.selfieHeading);
        await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: passportPng });
        await check('selfie-review', catalogue.reviewHeading);
        await page.getByRole('button', { name: catalogue.usePhoto }).click();
        await check('details', catalogue.detailsHeading);
        await page.getByRole('button', { name: catalogue.continue }).click();
        await check('done', catalogue.doneHeading_approved);
        await context.close();
      }
    },
    FLOW_MS * 2,
  );

  it(
    'given a desktop browser, when the link is opened, then it offers a QR code of the link; when a phone completes the session from that link, the desktop shows the result without a reload',
    async () => {
      const url = await sessionUrl({ vendor_data: 'browser-desktop', expected_details: { first_name: 'Ada', last_name: 'Lovelace' } });
      const desktop = await noCamera.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await desktop.newPage();
      await page.goto(url);
      await screen(page, 'welcome');
      await page.locator('[data-handoff] svg').waitFor();
      // The QR code is above the fold, with the link to copy beside it.
      const qr = (await page.locator('[data-handoff] svg').boundingBox())!;
      expect(qr.y + qr.height).toBeLessThanOrEqual(page.viewportSize()!.height);
      expect(await page.locator('#handoff-link').inputValue()).toContain(new URL(url).pathname);
      await expect.poll(() => page.getByRole('button', { name: CATALOGUES.en.copyLink }).isVisible()).toBe(true);
      // The desktop page's subscription is open on the server before the phone starts.
      await waitForSubscribers(testApp.app.services.live, 1);
      await screenshot(page, 'desktop-welcome-qr');
      let navigations = 0;
      page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations++);

      // The phone opens the same link (the QR code's content), in a browser of its own.
      const phone = await noCamera.newContext(PHONE);
      const phonePage = await phone.newPage();
      await phonePage.goto(url);
      await passWelcome(phonePage);
      await choosePassport(phonePage);
      await phonePage.locator('#app[data-camera="none"]').waitFor();
      await upload(phonePage, passportPng, 'document-review');
      await phonePage.getByRole('button', { name: 'Use this photo' }).click();
      await phonePage.locator('#app[data-screen="selfie"][data-camera="none"]').waitFor();
      await upload(phonePage, passportPng, 'selfie-review');
      await phonePage.getByRole('button', { name: 'Use this photo' }).click();
      await screen(phonePage, 'details');
      await phonePage.getByRole('button', { name: 'Continue' }).click();
      await screen(phonePage, 'done');

      await screen(page, 'done');
      expect(await page.locator('#app').getAttribute('data-status')).toBe('approved');
      expect(navigations).toBe(0);
      await screenshot(page, 'desktop-done-followed');
      await phone.close();
      await desktop.close();
    },
    FLOW_MS,
  );

  it(
    'given an allowed embedding origin, when the flow runs in its iframe, then the parent receives the step and completion events; a session of a tenant that allows no origin cannot be framed',
    async () => {
      const url = await sessionUrl({ vendor_data: 'browser-embedded', expected_details: { first_name: 'Ada', last_name: 'Lovelace' } });
      const context = await noCamera.newContext({ viewport: { width: 1000, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${receiverOrigin}/embed?src=${encodeURIComponent(url)}`);
      const frame = page.frameLocator('#kyc');
      await frame.locator('#app[data-screen="welcome"]').waitFor();
      await frame.getByLabel(CATALOGUES.en.consent).check();
      await frame.getByRole('button', { name: 'Start' }).click();
      await frame.locator('#country').selectOption('GB');
      await frame.getByRole('button', { name: 'Continue' }).click();
      await frame.locator('#app[data-camera="none"]').waitFor();
      await frame.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: passportPng });
      await frame.getByRole('button', { name: 'Use this photo' }).click();
      await frame.locator('#app[data-camera="none"]').waitFor();
      await frame.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: passportPng });
      await frame.getByRole('button', { name: 'Use this photo' }).click();
      await frame.getByRole('button', { name: 'Continue' }).click();
      await frame.locator('#app[data-screen="done"]').waitFor();
      await screenshot(page, 'embedded-done');
      const messages = await page.evaluate(() => (globalThis as any).messages as { origin: string; data: any }[]);
      const origin = new URL(url).origin;
      expect(messages.every((message) => message.origin === origin && message.data.source === 'idv-hosted-flow')).toBe(true);
      expect(messages.map((message) => message.data.step).filter(Boolean)).toEqual(
        expect.arrayContaining(['welcome', 'document', 'document-review', 'selfie', 'details', 'done']),
      );
      expect(messages).toContainEqual(
        expect.objectContaining({ data: expect.objectContaining({ type: 'completed', status: 'approved' }) }),
      );

      const other = await testApp.tenant('No Embedding');
      const refused = await createSession(testApp, other.sandboxKey, { workflow_id: 'aml_only', vendor_data: 'framed' });
      const response = await testApp.rest('GET', new URL(refused.body.url).pathname);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const blocked = await context.newPage();
      // Chromium reports the refusal on the embedding page's console; the frame never gets the app.
      const refusal = blocked.waitForEvent('console', (message) => message.text().includes('frame-ancestors'));
      await blocked.goto(`${receiverOrigin}/embed?src=${encodeURIComponent(refused.body.url)}`);
      expect((await refusal).text()).toMatch(/violates the following Content Security Policy directive: \"frame-ancestors 'none'\"/);
      const framed = blocked.frames().find((candidate) => candidate !== blocked.mainFrame());
      expect(await framed!.locator('#app').count()).toBe(0);
      await context.close();
    },
    FLOW_MS,
  );
});
