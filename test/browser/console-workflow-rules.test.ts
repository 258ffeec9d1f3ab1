/**
 * A workflow's rules, revisions and replay in the console (issue 27): an admin adds a rule with
 * the keyboard (a refusal shows beside the rule at fault), saves it as a draft, compares the
 * draft with the published revision, replays the draft over past sessions and reads which verdict
 * would change, then publishes it (the publication names the admin). Desktop and phone, axe-clean,
 * screenshots in test-artifacts/screens.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOperator } from '../console/support.js';
import type { TestApp, TestTenant } from '../support/app.js';
import { decidedDocumentAmlSession } from '../support/workflow-sessions.js';
import { closeConsoleHarness, PHONE, screen, signInPage, startConsoleHarness, type ConsoleHarness } from './console-support.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, screenshot } from './support.js';

const FLOW_MS = 120_000;
const enabled = chromiumAvailable();

let harness: ConsoleHarness | undefined;
let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;
let workflowId: string;
let pepSession: string;

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Rules Bank');
  ({ testApp, tenant, browser } = harness);
  const created = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.sandboxKey,
    body: {
      name: 'Document and AML',
      nodes: [
        { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
        { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
      ],
    },
  });
  workflowId = created.body.workflow_id;
  await decidedDocumentAmlSession(testApp, tenant.sandboxKey, workflowId, 'clean', 'GB');
  pepSession = (await decidedDocumentAmlSession(testApp, tenant.sandboxKey, workflowId, 'pep', 'GB', 'Sandbox Pep')).id;
}, 120_000);
afterAll(() => closeConsoleHarness(harness));

async function check(page: Page, name: string): Promise<void> {
  await expectNoSeriousA11yViolations(page, name);
  await screenshot(page, name);
}

async function openRules(page: Page): Promise<void> {
  await page.goto(`${testApp.url}/console#/workflows/${workflowId}`);
  await screen(page, 'workflow');
  await page.getByRole('link', { name: 'Rules, revisions and replay' }).click();
  await screen(page, 'workflow-rules');
}

describe.skipIf(!enabled)('workflow rules in the console', () => {
  it(
    'given an admin, when adding a stricter AML rule by keyboard, diffing, replaying and publishing, then each step shows and the publication names the admin',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Katherine Johnson'));
      await openRules(page);
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('New sessions run revision 1.');
      await check(page, 'console-workflow-rules-empty');

      // Keyboard only: focus the button, press Enter, fill the rule's fields.
      await page.locator('#add-rule').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator(':focus').getAttribute('id')).toBe('rule-0-id');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('aml_50');
      await page.locator('#rule-0-fact').selectOption('aml.score');
      await page.locator('#rule-0-comparison').selectOption('>=');
      await page.locator('#rule-0-value').fill('50');
      await page.locator('#rule-0-then').selectOption('decline');
      await page.locator('#rule-0-reason').fill('not_a_code');
      await page.locator('#save-draft').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#rule-0-error').textContent()).toContain('rules[0].reason');
      await check(page, 'console-workflow-rules-refused');

      await page.locator('#rule-0-reason').fill('aml_score_at_or_above_threshold');
      await page.locator('#save-draft').click();
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('Draft: revision 2.');
      expect(await page.locator('#rule-0-fact').inputValue()).toBe('aml.score');

      await page.locator('#diff-from').selectOption('1');
      await page.locator('#diff-to').selectOption('2');
      await page.locator('#show-diff').click();
      await expect.poll(() => page.locator('#revision-diff ins').allTextContents()).toContain('+       "id": "aml_50",');
      await check(page, 'console-workflow-rules-diff');

      await page.locator('#replay-revision').selectOption('2');
      await page.locator('#run-replay').click();
      await page.locator('#replay-report[data-status="done"]').waitFor();
      expect(await page.locator('#replay-report p').first().textContent()).toBe('2 past sessions replayed: 1 verdict would change.');
      expect(await page.locator('#replay-changes tbody tr').count()).toBe(1);
      expect(await page.locator('#replay-changes a').getAttribute('href')).toBe(`#/case/${pepSession}`);
      await page.locator('#replay-report').scrollIntoViewIfNeeded();
      await check(page, 'console-workflow-rules-replay');

      await page.locator('#publish-2').click();
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('New sessions run revision 2.');
      expect(await page.locator('#publications tbody tr').first().textContent()).toContain('Katherine Johnson');
      await check(page, 'console-workflow-rules-published');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a phone, when an admin opens the rules, then the form, revisions and replay fit and pass axe',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Mary Jackson'), undefined, PHONE);
      // On a phone the bar folds away: the screen is reached by its address.
      await page.goto(`${testApp.url}/console#/workflows/${workflowId}/rules`);
      await screen(page, 'workflow-rules');
      await page.locator('#rule-0-fact').waitFor();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await check(page, 'console-workflow-rules-phone');
      await page.context().close();
    },
    FLOW_MS,
  );
});
