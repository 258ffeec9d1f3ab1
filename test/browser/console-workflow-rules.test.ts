/**
 * A workflow's rules, revisions and replay in the console (issue 27): on the workflow's graph an
 * admin adds a branch after the AML step with the keyboard and builds its condition (fact,
 * operator, value) and outcome; a condition written as JSON Logic that the server refuses is
 * named at its branch; the draft is saved, compared with the published revision, replayed over
 * past sessions (which verdict would change), published (the publication names the admin) and
 * rolled back. Desktop and phone, axe-clean, screenshots in test-artifacts/screens.
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
    'given an admin, when building a stricter AML branch on the graph by keyboard, diffing, replaying, publishing and rolling back, then each step shows and publications name the admin',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Katherine Johnson'));
      await openRules(page);
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('New sessions run revision 1.');
      // The graph: the start, both steps in order, the verdict; no branch yet.
      expect(await page.locator('#workflow-graph > li').count()).toBe(4);
      expect(await page.locator('#node-document_verification .node-name').textContent()).toBe('1. ID document');
      expect(await page.locator('#node-aml_screening .node-flag').textContent()).toBe('required');
      await check(page, 'console-workflow-graph-empty');

      // A step opens its form.
      await page.locator('#node-aml_screening').click();
      await expect.poll(() => page.locator('#graph-panel-title').textContent()).toBe('Step 2: AML screening');
      expect(await page.locator('#node-required').inputValue()).toBe('required');

      // Keyboard only: add a branch after the AML step; its form opens with a fact known there.
      await page.locator('#add-branch-aml_screening').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator(':focus').getAttribute('id')).toBe('graph-panel-title');
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').getAttribute('id')).toBe('branch-id');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('aml_50');
      expect(await page.locator('#clause-0-fact').inputValue()).toBe('aml.score');
      // The picker offers what is known after AML, and nothing of a step the workflow lacks.
      const facts = await page.locator('#clause-0-fact option').allTextContents();
      expect(facts).toEqual(expect.arrayContaining(['Document issuing country', 'AML risk band', 'Environment', 'Metadata field…']));
      expect(facts.some((fact) => fact.includes('Selfie'))).toBe(false);
      expect(await page.locator('#clause-0-operator').inputValue()).toBe('>=');
      await page.locator('#clause-0-value').focus();
      await page.keyboard.type('50');
      await page.locator('#branch-then').selectOption('decline');
      await page.locator('#branch-reason').selectOption('aml_score_at_or_above_threshold');
      const edge = page.locator('[data-point="1"] #edge-0');
      await expect.poll(() => edge.textContent()).toContain('If AML score (0–100) is at least 50');
      expect(await edge.locator('.edge-then').textContent()).toBe('→ decline (aml_score_at_or_above_threshold)');
      // The advanced view shows the JSON Logic the builder wrote.
      await page.locator('details.advanced summary').click();
      expect(JSON.parse(await page.locator('#branch-json').inputValue())).toEqual({ '>=': [{ var: 'aml.score' }, 50] });
      await check(page, 'console-workflow-graph-branch');

      // A second branch at the start, written as JSON Logic on a fact that does not exist: refused at its place.
      await page.locator('#add-branch-start').click();
      await page.locator('details.advanced summary').click();
      await page.locator('#branch-json').fill('{"==": [{"var": "passport.colour"}, "red"]}');
      await page.locator('#branch-json-apply').click();
      await page.locator('#save-draft').click();
      await expect.poll(() => page.locator('#graph-problems').textContent()).toContain('rules[1].when.==[0].var');
      expect(await page.locator('#graph-panel-title').textContent()).toBe('Branch 2: branch_2');
      expect(await page.locator('#branch-problems').textContent()).toContain('unknown fact passport.colour');
      expect(await page.locator('.flow-branch.has-problem #edge-1').count()).toBe(1);
      await check(page, 'console-workflow-graph-refused');
      await page.locator('#branch-remove').click();

      await page.locator('#save-draft').click();
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('Draft: revision 2.');
      expect(await page.locator('[data-point="1"] #edge-0 .edge-id').textContent()).toBe('branch 1: aml_50');

      await page.locator('#diff-from').selectOption('1');
      await page.locator('#diff-to').selectOption('2');
      await page.locator('#show-diff').click();
      await expect.poll(() => page.locator('#revision-diff ins').allTextContents()).toContain('+       "id": "aml_50",');
      expect(await page.locator('#revision-changes li').allTextContents()).toEqual([
        'Branch added: aml_50, if AML score (0–100) is at least 50 → decline (aml_score_at_or_above_threshold).',
      ]);
      await page.locator('#revision-diff').scrollIntoViewIfNeeded();
      await check(page, 'console-workflow-rules-diff');

      await page.locator('#replay-revision').selectOption('2');
      await page.locator('#run-replay').click();
      await page.locator('#replay-report[data-status="done"]').waitFor();
      expect(await page.locator('#replay-report p').first().textContent()).toBe('2 past sessions replayed: 1 verdict would change.');
      expect(await page.locator('#replay-changes tbody tr').count()).toBe(1);
      expect(await page.locator('#replay-changes a').getAttribute('href')).toBe(`#/case/${pepSession}`);
      // The same replay over a date range: sessions created today.
      await page.locator('#replay-by').selectOption('range');
      expect(await page.locator('#replay-last').isVisible()).toBe(false);
      await page.locator('#run-replay').click();
      await expect
        .poll(() => page.locator('#replay-report p').first().textContent())
        .toBe('2 past sessions replayed: 1 verdict would change.');
      await page.locator('#replay-report').scrollIntoViewIfNeeded();
      await check(page, 'console-workflow-rules-replay');

      await page.locator('#publish-2').click();
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('New sessions run revision 2.');
      expect(await page.locator('#publications tbody tr').first().textContent()).toContain('Katherine Johnson');
      await check(page, 'console-workflow-rules-published');

      // Rolling back is publishing the earlier revision; both publications stay listed.
      expect(await page.locator('#publish-1').textContent()).toBe('Roll back to 1');
      await page.locator('#publish-1').click();
      await expect.poll(() => page.locator('#revision-state').textContent()).toContain('New sessions run revision 1.');
      const rows = await page.locator('#publications tbody tr').allTextContents();
      expect(rows[0]).toMatch(/^12Katherine Johnson/);
      expect(rows[1]).toMatch(/^21Katherine Johnson/);
      expect(await page.locator('.flow-edge').count()).toBe(0);
      await page.locator('#publications').scrollIntoViewIfNeeded();
      await check(page, 'console-workflow-rules-rolled-back');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a phone, when an admin builds a branch of two conditions on the graph, then the graph and its form fit and pass axe',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Mary Jackson'), undefined, PHONE);
      // On a phone the bar folds away: the screen is reached by its address.
      await page.goto(`${testApp.url}/console#/workflows/${workflowId}/rules`);
      await screen(page, 'workflow-rules');
      await page.locator('#add-branch-document_verification').click();
      await page.locator('#clause-0-operator').selectOption('in');
      await page.locator('#clause-0-value').fill('IR, KP');
      await page.locator('#branch-add-clause').click();
      await page.locator('#clause-1-fact').selectOption('metadata');
      await page.locator('#clause-1-metadata').fill('plan');
      await page.locator('#clause-1-value').fill('premium');
      await page.locator('#branch-join').selectOption('or');
      await expect
        .poll(() => page.locator('[data-point="0"] #edge-0 .edge-when').textContent())
        .toBe('If Document issuing country is one of IR, KP or metadata plan is premium');
      await page.locator('details.advanced summary').click();
      expect(JSON.parse(await page.locator('#branch-json').inputValue())).toEqual({
        or: [{ in: [{ var: 'document.country' }, ['IR', 'KP']] }, { '==': [{ var: 'metadata.plan' }, 'premium'] }],
      });
      // A step's form: the flag shows on the graph at once.
      await page.locator('#node-aml_screening').click();
      await page.locator('#node-required').selectOption('optional');
      await expect.poll(() => page.locator('#node-aml_screening .node-flag').textContent()).toBe('optional');
      await page.keyboard.press('Escape');
      expect(await page.locator(':focus').getAttribute('id')).toBe('node-aml_screening');
      expect(await page.locator('#graph-panel-title').textContent()).toBe('Nothing selected');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await check(page, 'console-workflow-graph-phone');
      await page.context().close();
    },
    FLOW_MS,
  );
});
