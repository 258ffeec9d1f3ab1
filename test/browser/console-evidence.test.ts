/**
 * The case page's evidence viewer and AML hit disposition in a real browser (issue 25.2 and 25.3):
 * a reviewer opens the selfie full size, zooms, pans, rotates and brightens it with the keyboard,
 * opens an earlier attempt (each opening audited), compares the document portrait the server cut
 * and the selfie side by side with their faces at the same size, closes with Escape; then reads the AML hit's listed entity, marks it true
 * match (approving is then refused) and false positive. Desktop and phone; axe and screenshots.
 */
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertEntities } from '../../src/engines/aml/store.js';
import { makeOperator, OPERATOR_PASSWORD } from '../console/support.js';
import { completeStandardKyc, gql, SUBMIT_AML, SUBMIT_SELFIE, tokenOf } from '../sessions/support.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import type { TestApp, TestTenant } from '../support/app.js';
import {
  closeConsoleHarness,
  DESKTOP,
  drawnEvidence,
  PHONE,
  screen,
  signInPage,
  startConsoleHarness,
  type ConsoleHarness,
} from './console-support.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, screenshot } from './support.js';

/** A browser run through several screens on a loaded 2-core machine. */
const FLOW_MS = 120_000;

let harness: ConsoleHarness | undefined;
let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;
let evidence: { documentImage: string; selfieImage: string };
/** A second selfie, visibly different (the retake). */
let retakeSelfie: string;

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Acme Bank');
  ({ testApp, tenant, browser } = harness);
  // Real faces (crops of the photos shipped in the human package): the server finds the face on
  // the document, keeps the portrait cut around it, and the viewer lines the two faces up.
  const drawnCard = Buffer.from((await drawnEvidence()).documentImage.split(',')[1]!, 'base64');
  const front = await sharp(drawnCard)
    .composite([{ input: await faceSamplePng(faceSample('faceid')), left: 30, top: 110 }])
    .png()
    .toBuffer();
  const selfie = await sharp(await faceSamplePng(faceSample('detect0')))
    .resize({ width: 480 })
    .png()
    .toBuffer();
  evidence = {
    documentImage: `data:image/png;base64,${front.toString('base64')}`,
    selfieImage: `data:image/png;base64,${selfie.toString('base64')}`,
  };
  const png = await sharp(Buffer.from(evidence.selfieImage.split(',')[1]!, 'base64'))
    .modulate({ brightness: 0.6 })
    .png()
    .toBuffer();
  retakeSelfie = `data:image/png;base64,${png.toString('base64')}`;
}, 120_000);
afterAll(() => closeConsoleHarness(harness));

/**
 * A sandbox standard_kyc case in review for a name holding the sandbox's borderline sanctions name, whose selfie
 * was retaken once at a reviewer's request: two selfie attempts, one document front, one AML hit.
 */
async function caseWithRetake(vendorData: string, lastName: string): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'standard_kyc', vendor_data: vendorData },
  });
  const credential = { sessionToken: tokenOf(created.body.url) };
  const status = await completeStandardKyc(testApp, credential, created.body.session_id, {
    imageFront: evidence.documentImage,
    selfie: evidence.selfieImage,
    document: { firstName: 'Sandbox', lastName },
  });
  expect(status).toBe('in_review');
  const retake = await testApp.rest('POST', `/v1/sessions/${created.body.session_id}/retake`, {
    key: tenant.sandboxKey,
    body: { node_type: 'biometric_kyc', reason: 'The selfie is blurred.' },
  });
  expect(retake.status).toBe(200);
  const again = await gql(testApp, credential, SUBMIT_SELFIE, { sessionId: created.body.session_id, input: { selfie: retakeSelfie } });
  expect(again.body.data.submitSelfie.status).toBe('in_review');
  return created.body.session_id;
}

/** Checks the screen with axe and saves its screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await expectNoSeriousA11yViolations(page, name);
  await screenshot(page, name);
}

/** The evidence views audited for a session. */
async function views(sessionId: string): Promise<string[]> {
  const rows = await testApp.app.orm.em
    .fork()
    .execute<{ evidence_id: string }[]>('select evidence_id from evidence_view where session_id = ? order by viewed_at', [sessionId]);
  return rows.map((row) => row.evidence_id);
}

/** Waits until every image of the open viewer has loaded. */
async function viewerLoaded(page: Page): Promise<void> {
  // Run in the page; the tests' TypeScript has no DOM library, hence the loose types.
  await page.waitForFunction(() => {
    const images: { complete: boolean; naturalWidth: number }[] = [
      ...(globalThis as any).document.querySelectorAll('#evidence-viewer img'),
    ];
    return images.length > 0 && images.every((image) => image.complete && image.naturalWidth > 0);
  });
}

/** The status line of a viewer pane. */
const statusOf = (page: Page, kind: string) => page.locator(`#viewer-status-${kind}`).textContent();

describe.skipIf(!enabled)('the evidence viewer and AML dispositions', () => {
  for (const [device, settings] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)
    it(
      `given a case with a retaken selfie and an AML hit, on a ${device}, when a reviewer reads the evidence and marks the hit, then the viewer works by keyboard, every attempt opens (audited), and the disposition is recorded`,
      async () => {
        // One person per run: a false positive recorded by one run would take the other's hit out.
        const sessionId = await caseWithRetake(`viewer-${device}`, device === 'phone' ? 'Borderline Moss' : 'Borderline Hale');
        const email = await makeOperator(testApp, tenant.id, 'reviewer', `Katherine Johnson ${device}`);
        const page = await signInPage(browser, testApp, email, undefined, settings);
        await page.goto(`${testApp.url}/console#/case/${sessionId}`);
        await screen(page, 'case');
        const selfie = page.locator('#evidence figure[data-kind="selfie"]');
        await expect.poll(() => selfie.textContent()).toContain('attempt 2 of 2');
        await check(page, `console-evidence-case-${device}`);

        // The selfie, full size; the keyboard zooms, rotates, pans and brightens.
        const before = (await views(sessionId)).length;
        // Opened from the keyboard, as everything in the viewer.
        await page.locator('#open-selfie').focus();
        await page.keyboard.press('Enter');
        await page.locator('#evidence-viewer').waitFor();
        await viewerLoaded(page);
        const fitted = await statusOf(page, 'selfie');
        expect(fitted).toContain('Attempt 2 of 2');
        await page.keyboard.press('+');
        await page.keyboard.press('+');
        await page.keyboard.press('r');
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('b');
        const changed = await statusOf(page, 'selfie');
        expect(changed).toContain('90°');
        expect(changed).toContain('brightness 110 %');
        expect(Number(/(\d+) %/.exec(changed!)![1])).toBeGreaterThan(Number(/(\d+) %/.exec(fitted!)![1]));
        expect(await page.locator('#evidence-viewer img').getAttribute('style')).toContain('translate(40px, 0px)');
        await check(page, `console-evidence-viewer-${device}`);

        // The earlier attempt, from the pane's picker: opened through its own signed URL, audited.
        await page.getByLabel('Selfie: attempt').selectOption({ index: 0 });
        await viewerLoaded(page);
        await expect.poll(() => statusOf(page, 'selfie')).toContain('Attempt 1 of 2');
        await expect.poll(async () => (await views(sessionId)).length).toBeGreaterThanOrEqual(before + 2);
        await page.keyboard.press('Escape');
        await page.locator('#evidence-viewer').waitFor({ state: 'detached' });
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('open-selfie');

        // The document portrait (cut by the server around the document's face) beside the selfie,
        // the two faces drawn at the same height whatever the sizes of the photos.
        expect(await page.locator('#evidence figure[data-kind="document_portrait"]').count()).toBe(1);
        await page.locator('#compare-faces').click();
        await viewerLoaded(page);
        expect(await page.locator('#evidence-viewer .viewer-stage').count()).toBe(2);
        expect(await page.locator('#viewer-heading').textContent()).toContain('faces at the same size');
        const facePx = async (kind: string) =>
          Number(await page.locator(`#evidence-viewer .viewer-stage[data-kind="${kind}"]`).getAttribute('data-face-px'));
        await expect.poll(() => facePx('selfie')).toBeGreaterThan(50);
        expect(Math.abs((await facePx('document_portrait')) - (await facePx('selfie')))).toBeLessThanOrEqual(2);
        const zoomOf = async (kind: string) => /· (\d+) %/.exec((await statusOf(page, kind))!)![1];
        await page.keyboard.press('-');
        expect(await zoomOf('document_portrait')).toBe(await zoomOf('selfie'));
        expect(Math.abs((await facePx('document_portrait')) - (await facePx('selfie')))).toBeLessThanOrEqual(2);
        await check(page, `console-evidence-compare-${device}`);
        await page.getByRole('button', { name: 'Close' }).click();
        await page.locator('#evidence-viewer').waitFor({ state: 'detached' });

        // The AML hit: the listed entity, then a true match (approving is refused) and a false positive.
        const hit = page.locator('#aml-hits li[data-entity="UN_SC:sandbox-unsc-0001"]');
        expect(await hit.textContent()).toContain('Dates of birth');
        expect(await hit.textContent()).toContain('UN_SC');
        await page.getByLabel('This hit is').selectOption('true_match');
        await page.getByLabel('Reason (kept in the audit trail)').fill('Same person as the UN listing.');
        await page.locator('#aml-record-0').click();
        await expect.poll(() => page.locator('#aml-marked-0').textContent()).toContain('True match by Katherine Johnson');
        await page.locator('#reason').fill('Looks fine');
        await page.locator('#approve').click();
        await expect.poll(() => page.locator('#decision-error').textContent()).toContain('marked true match');
        await check(page, `console-aml-disposition-${device}`);
        await page.getByLabel('This hit is').selectOption('false_positive');
        await page.getByLabel('Reason (kept in the audit trail)').fill('Listed person is decades older.');
        await page.locator('#aml-record-0').click();
        await expect.poll(() => page.locator('#aml-marked-0').textContent()).toContain('False positive by Katherine Johnson');
        await page.context().close();
      },
      FLOW_MS,
    );

  for (const [device, settings] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)
    it(
      `given a live case whose hit is a listed entity, on a ${device}, then the hit shows the entity's names, dates of birth, nationality, programme and source, and a false positive is recorded`,
      async () => {
        const name = device === 'phone' ? 'Ivo Marchetti Rosselli' : 'Ivo Marchetti Bellandi';
        await upsertEntities(testApp.app.orm.em.fork(), [
          {
            source_list: 'OFAC_SDN',
            source_id: `console-${device}`,
            kind: 'person',
            primary_name: name,
            aliases: [`Ivo ${device === 'phone' ? 'Rosselli' : 'Bellandi'}`],
            dates_of_birth: ['1958-02-11'],
            countries: ['IT'],
            programs: ['SDGT'],
            topics: ['sanction'],
          },
        ]);
        const created = await testApp.rest('POST', '/v1/sessions', {
          key: tenant.liveKey,
          body: { workflow_id: 'aml_only', vendor_data: `listed-${device}` },
        });
        const screened = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_AML, {
          sessionId: created.body.session_id,
          input: { fullName: name, country: 'IT', dateOfBirth: '1991-07-30' },
        });
        expect(screened.body.data.submitAmlData.status).not.toBe('approved');
        // Signed in to live through the form.
        const page = await (await browser.newContext(settings)).newPage();
        await page.goto(`${testApp.url}/console`);
        await screen(page, 'sign-in');
        await page.getByLabel('Email address').fill(await makeOperator(testApp, tenant.id, 'reviewer', `Mary Jackson ${device}`));
        await page.getByLabel('Password').fill(OPERATOR_PASSWORD);
        await page.getByLabel('Environment').selectOption('live');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await screen(page, 'queue');
        await page.goto(`${testApp.url}/console#/case/${created.body.session_id}`);
        await screen(page, 'case');

        const hit = page.locator(`#aml-hits li[data-entity="OFAC_SDN:console-${device}"]`);
        const text = await hit.textContent();
        for (const fact of ['1958-02-11', 'IT', 'SDGT', `OFAC_SDN · console-${device}`, 'Ivo ']) expect(text).toContain(fact);
        await page.getByLabel('This hit is').selectOption('false_positive');
        await page.getByLabel('Reason (kept in the audit trail)').fill('Listed person born 1958; the applicant in 1991.');
        await page.locator('#aml-record-0').click();
        await expect.poll(() => page.locator('#aml-marked-0').textContent()).toContain('False positive by Mary Jackson');
        await hit.scrollIntoViewIfNeeded();
        await check(page, `console-aml-listed-${device}`);
        await page.context().close();
      },
      FLOW_MS,
    );
});
