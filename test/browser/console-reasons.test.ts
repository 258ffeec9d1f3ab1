/**
 * Reviewers speak the reason catalogue (issue 24, points 1, 5 and 6) and the case page names every
 * fraud signal (issue 22, point 7), in Chromium with axe on a desktop and a phone:
 * - a reviewer declines a case picking a catalogue reason with the keyboard, adds a note, and the
 *   decision's `reasons[]` carries the code (read back through the REST API);
 * - a reviewer asks for a retake with a catalogue reason and a note, previews what the person will
 *   read, and the hosted flow's API then gives the person exactly that;
 * - the overview's table counts declines and reviews by reason in the catalogue's words;
 * - a live case whose selfie was sent before lists "reused selfie" and "same face" in plain words,
 *   each linking to the earlier case.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeFaceEngine } from '../../src/engines/face/index.js';
import { makeOperator } from '../console/support.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { gql, SUBMIT_SELFIE, tokenOf } from '../sessions/support.js';
import type { TestApp, TestTenant } from '../support/app.js';
import {
  caseInReview,
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
const FLOW_MS = 180_000;
const HOSTED_FLOW = `query ($sessionId: String!) { hostedFlow(sessionId: $sessionId) {
  status steps { nodeType status resubmissionReason retakeMessage retakeNote } } }`;

let harness: ConsoleHarness | undefined;
let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;
let ritaEmail: string;
let evidence: { documentImage: string; selfieImage: string };
/** Cases in review made for this file, and the token of each (for the hosted flow's API). */
const tokens = new Map<string, string>();

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Acme Bank');
  ({ testApp, tenant, browser } = harness);
  ritaEmail = await makeOperator(testApp, tenant.id, 'reviewer', 'Rita Reviewer');
  evidence = await drawnEvidence();
}, 120_000);
afterAll(async () => {
  await closeConsoleHarness(harness);
  await closeFaceEngine();
});

/** A sandbox standard_kyc case in review (a PEP on the document), its hosted-flow token kept. */
async function newCase(label: string): Promise<string> {
  const id = await caseInReview(testApp, tenant.sandboxKey, evidence, `${label}-${tokens.size}`);
  const session = await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey });
  tokens.set(id, tokenOf(session.body.url));
  return id;
}

/** Moves a focused closed <select> with the arrow key until it shows `value` (keyboard only, as a reviewer would). */
async function pickWithKeyboard(page: Page, selector: string, value: string): Promise<void> {
  await page.locator(selector).focus();
  for (let presses = 0; presses < 200 && (await page.locator(selector).inputValue()) !== value; presses++) {
    await page.keyboard.press('ArrowDown');
  }
  expect(await page.locator(selector).inputValue()).toBe(value);
}

/** The id of the element that has the focus. */
function focused(page: Page): Promise<string> {
  return page.evaluate<string>('document.activeElement?.id ?? ""');
}

describe.skipIf(!enabled)('reviewers decide and ask for retakes with the catalogue', () => {
  it(
    'given a case in review, when a reviewer picks "face mismatch" and writes a note with the keyboard and declines, then the decision lists face_mismatch with the note',
    async () => {
      const id = await newCase('decline-ui');
      const page = await signInPage(browser, testApp, ritaEmail, undefined, DESKTOP);
      await page.goto(`${testApp.url}/console#/case/${id}`);
      await screen(page, 'case');
      await pickWithKeyboard(page, '#reason-code', 'face_mismatch');
      expect(await page.locator('#reason-code option:checked').textContent()).toBe(
        'The selfie does not match the document portrait. (face_mismatch)',
      );
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('reason');
      await page.keyboard.type('Different person from the passport.');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('approve');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('decline');
      await expectNoSeriousA11yViolations(page, 'case with a decline reason picked');
      await screenshot(page, 'console-decline-reason');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('main').getAttribute('data-status')).toBe('declined');

      const decision = await testApp.rest('GET', `/v1/sessions/${id}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.status).toBe('declined');
      expect(decision.body.reasons[0]).toEqual({
        code: 'reviewer_decision',
        message: 'Different person from the passport.',
        cause: 'face_mismatch',
        category: 'face',
        severity: 'high',
        retryable: false,
      });
      // The case header says it in the catalogue's words, with the note.
      expect(await page.locator('ul.reasons li[data-cause="face_mismatch"]').textContent()).toBe(
        'The selfie does not match the document portrait. — Different person from the passport.',
      );
      await expectNoSeriousA11yViolations(page, 'declined case');
      await screenshot(page, 'console-declined-with-reason');
    },
    FLOW_MS,
  );

  it(
    'given a case in review on a phone, when a reviewer asks for a retake of the document with "expired" and a note, then the preview shows what the person reads and the hosted flow gives the person that code and note',
    async () => {
      const id = await newCase('retake-ui');
      const page = await signInPage(browser, testApp, ritaEmail, undefined, PHONE);
      await page.goto(`${testApp.url}/console#/case/${id}`);
      await screen(page, 'case');
      await pickWithKeyboard(page, '#retake-step', 'document_verification');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('retake-reason');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('retake-code');
      await pickWithKeyboard(page, '#retake-code', 'document_expired');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('retake-note');
      const note = 'Photograph your own passport, the one valid until 2031.';
      await page.keyboard.type(note);
      // The preview is the person's words: the code's sentence, then the note under its heading.
      await expect
        .poll(() => page.locator('#retake-preview p').allTextContents())
        .toEqual(['This document has expired. Please use a document that is still valid.', 'A message from our review team:', note]);
      await expectNoSeriousA11yViolations(page, 'retake with a reason and a note, phone');
      await screenshot(page, 'console-retake-reason-phone');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('request-retake');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('main').getAttribute('data-status')).toBe('in_progress');

      const hosted = await gql(testApp, { sessionToken: tokens.get(id)! }, HOSTED_FLOW, { sessionId: id });
      expect(hosted.body.data.hostedFlow.steps.find((step: { nodeType: string }) => step.nodeType === 'document_verification')).toEqual({
        nodeType: 'document_verification',
        status: 'resubmission_requested',
        resubmissionReason: 'reviewer_request',
        retakeMessage: 'document_expired',
        retakeNote: note,
      });
      const decision = await testApp.rest('GET', `/v1/sessions/${id}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.node_results.document_verification.status).toBe('resubmission_requested');
    },
    FLOW_MS,
  );
});

describe.skipIf(!enabled)('the overview counts decisions by reason', () => {
  it(
    'given declines with two catalogue reasons and cases still in review, when an admin opens the overview, then each reason shows its sentence and its counts',
    async () => {
      // Two more face mismatches (three with the first test's) and one expired document, through the API.
      const declines: [string, string][] = [
        ['face_mismatch', 'Not the same person.'],
        ['face_mismatch', 'Different face.'],
        ['document_expired', 'Expired in 2019.'],
      ];
      for (const [code, note] of declines) {
        const id = await newCase('decline-api');
        const declined = await testApp.rest('POST', `/v1/sessions/${id}/review`, {
          key: tenant.sandboxKey,
          body: { decision: 'declined', reason_code: code, note },
        });
        expect(declined.status, JSON.stringify(declined.body)).toBe(200);
      }
      const waiting = [await newCase('waiting'), await newCase('waiting')];
      const review = await testApp.rest('GET', `/v1/sessions/${waiting[0]}/decision`, { key: tenant.sandboxKey });
      const reviewCause: string = review.body.reasons[0].cause;

      for (const device of [DESKTOP, PHONE]) {
        const page = await signInPage(browser, testApp, ritaEmail, undefined, device);
        await page.getByRole('link', { name: 'Overview' }).click();
        await screen(page, 'overview');
        const row = (cause: string) => page.locator(`#reasons-table tbody tr[data-cause="${cause}"]`);
        await row('face_mismatch').waitFor();
        expect(await row('face_mismatch').locator('th').textContent()).toBe(
          'The selfie does not match the document portrait. face_mismatch',
        );
        expect(await row('face_mismatch').locator('td').allTextContents()).toEqual(['face', '3', '0']);
        expect(await row('document_expired').locator('th').textContent()).toBe('The document has expired. document_expired');
        expect(await row('document_expired').locator('td').allTextContents()).toEqual(['document', '1', '0']);
        // Both cases left in review (and nothing else in this tenant's sandbox) count under the screening's cause.
        expect(await row(reviewCause).locator('td').nth(2).textContent()).toBe('2');
        // Most frequent first.
        expect(await page.locator('#reasons-table tbody tr').first().getAttribute('data-cause')).toBe('face_mismatch');
        const phone = device === PHONE;
        await expectNoSeriousA11yViolations(page, `overview with reasons${phone ? ', phone' : ''}`);
        await screenshot(page, phone ? 'console-overview-reasons-phone' : 'console-overview-reasons');
        if (phone) expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
        await page.context().close();
      }
    },
    FLOW_MS,
  );
});

describe.skipIf(!enabled)('the case page names every fraud signal', () => {
  it(
    'given a live selfie sent again under another customer reference, when a reviewer opens the second case, then "Fraud signals" says the selfie was reused and the face seen before, each linking to the first case',
    async () => {
      const workflow = await testApp.rest('POST', '/v1/workflows', {
        key: tenant.liveKey,
        body: { name: 'Selfie only', nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }] },
      });
      expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
      const selfie = `data:image/png;base64,${(await faceSamplePng(faceSample('g0_00'))).toString('base64')}`;
      const ids: string[] = [];
      for (const vendorData of ['alice', 'mallory']) {
        const created = await testApp.rest('POST', '/v1/sessions', {
          key: tenant.liveKey,
          body: { workflow_id: workflow.body.workflow_id, vendor_data: vendorData },
        });
        expect(created.status).toBe(201);
        const submitted = await gql(testApp, { key: tenant.liveKey }, SUBMIT_SELFIE, {
          sessionId: created.body.session_id,
          input: { selfie },
        });
        expect(submitted.body.errors).toBeUndefined();
        ids.push(created.body.session_id);
      }
      const [first, second] = ids;
      const decision = await testApp.rest('GET', `/v1/sessions/${second}/decision`, { key: tenant.liveKey });
      const face = decision.body.node_results.biometric_kyc;
      const codes = face.warnings.map((warning: { code: string }) => warning.code);
      expect(codes).toEqual(expect.arrayContaining(['selfie_reused', 'duplicate_face']));
      expect(face.details.selfie_reused.session_ids).toEqual([first]);

      for (const device of [DESKTOP, PHONE]) {
        const page = await signInPage(browser, testApp, ritaEmail, undefined, device, 'live');
        await page.goto(`${testApp.url}/console#/case/${second}`);
        await screen(page, 'case');
        // The header says each reason once, though two rules name the same missing portrait.
        const header = await page.locator('ul.reasons li').allTextContents();
        expect(header).toEqual([...new Set(header)]);
        expect(header).toContain('The selfie is identical to one already submitted.');
        // The step's warnings too, not the engine's text for developers.
        const warnings = await page.locator('tr[data-node="biometric_kyc"] td').nth(2).textContent();
        expect(warnings).toContain('The selfie is identical to one already submitted.');
        expect(warnings).not.toContain('vendor_data');
        // The timeline's verdict says why in the same words.
        expect(await page.locator('#timeline li').last().textContent()).toContain(
          'in review by decision_engine — There is no document portrait to compare the selfie with. The selfie is identical to one already submitted.',
        );
        const signal = (code: string) => page.locator(`#fraud-signals li[data-signal="${code}"]`);
        expect(await signal('selfie_reused').textContent()).toBe(
          `Selfie: The selfie is identical to one already submitted. See case ${first.slice(0, 8)}.`,
        );
        expect(await signal('duplicate_face').textContent()).toBe(
          `Selfie: The same face was submitted under another user id. See case ${first.slice(0, 8)}.`,
        );
        const phone = device === PHONE;
        await page.locator('#fraud-signals').scrollIntoViewIfNeeded();
        await expectNoSeriousA11yViolations(page, `case with fraud signals${phone ? ', phone' : ''}`);
        await screenshot(page, phone ? 'console-fraud-signals-phone' : 'console-fraud-signals');
        if (phone) expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
        // The link opens the earlier case.
        await signal('selfie_reused').getByRole('link').click();
        await expect.poll(() => page.locator('main').getAttribute('data-session-id')).toBe(first);
        await page.context().close();
      }
    },
    FLOW_MS,
  );
});
