/**
 * The console's settings pages and charts in a real browser (issue 16.3): a reviewer adds a name
 * to a list and removes it, and adds a case's selfie to the face list from the case page (the
 * entry names the reviewer); an admin composes a workflow (a refusal shows beside its field) and
 * edits it; an admin adds a destination pointing at a real receiver, sees the delivery in its
 * log with the try's status code and duration, and replays it (a second signed POST arrives); the
 * overview charts the funnel and the time to decision of known data; a viewer sees every page
 * and can change nothing. Every screen passes axe and is saved to test-artifacts/screens.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOperator } from '../console/support.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import type { TestApp, TestTenant } from '../support/app.js';
import type { Receiver } from '../webhooks/support.js';
import {
  caseInReview,
  closeConsoleHarness,
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
let receiver: Receiver;
/** The drawn passport page and a real face photo as the selfie (so the session keeps a face template). */
let evidence: { documentImage: string; selfieImage: string };

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Acme Bank');
  ({ testApp, tenant, browser, receiver } = harness);
  const { documentImage } = await drawnEvidence();
  evidence = { documentImage, selfieImage: `data:image/png;base64,${(await faceSamplePng(faceSample('g0_00'))).toString('base64')}` };
}, 120_000);
afterAll(() => closeConsoleHarness(harness));

/** Presses the log's Refresh until `row` lists `tries` successful tries (the emitter works in the background). */
async function succeededTries(page: Page, row: Locator, tries: number): Promise<void> {
  await expect
    .poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return row.locator('li[data-status="succeeded"]').count();
    })
    .toBe(tries);
}

/** Goes to a section through the bar and waits for its screen. */
async function open(page: Page, link: string, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  await screen(page, name);
}

/** Checks the screen with axe and saves its screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await expectNoSeriousA11yViolations(page, name);
  await screenshot(page, name);
}

describe.skipIf(!enabled)('the console pages', () => {
  it(
    "given a reviewer, when adding a name to a list and removing it, and adding a case's selfie to the face list, then the list shows each change under the reviewer's name",
    async () => {
      const sessionId = await caseInReview(testApp, tenant.sandboxKey, evidence, 'customer-face');
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Dorothy Vaughan'));
      await open(page, 'Lists', 'lists');
      expect(await page.locator('#lists tbody tr').count()).toBe(3);
      await check(page, 'console-lists');

      await page.getByRole('link', { name: 'Watched names' }).click();
      await screen(page, 'list');
      await page.getByLabel('Name', { exact: true }).fill('Ivan Fraudster');
      await page.getByLabel('Reason (optional)').fill('used a stolen passport');
      await page.getByRole('button', { name: 'Add entry' }).click();
      await expect.poll(() => page.locator('#list-summary').textContent()).toContain('1 entry.');
      const row = page.locator('#entries tbody tr[data-entry-id]');
      expect(await row.textContent()).toContain('Dorothy Vaughan');
      expect(await row.textContent()).toContain('used a stolen passport');
      await check(page, 'console-list');

      await row.getByRole('button', { name: 'Remove' }).click();
      await row.getByRole('button', { name: 'Confirm: remove' }).click();
      await expect.poll(() => page.locator('#list-summary').textContent()).toContain('0 entries.');

      // From the case page: the selfie's face template (never the image) goes to the face list.
      await page.goto(`${testApp.url}/console#/case/${sessionId}`);
      await screen(page, 'case');
      await page.getByRole('button', { name: 'Add the selfie to a face list' }).click();
      await page.getByLabel('Face list').selectOption({ label: 'Blocked faces' });
      await page.getByLabel('Reason (optional)').fill('second account, same face');
      await page.getByRole('button', { name: 'Add to the list' }).click();
      await expect.poll(() => page.locator('#face-entry-status').textContent()).toContain('added to Blocked faces');
      await check(page, 'console-case-face-entry');
      const [entry] = await testApp.app.orm.em
        .fork()
        .execute<{ added_by_name: string; session_id: string; entry_type: string }[]>(
          `select added_by_name, session_id, entry_type from list_entry where session_id = ?`,
          [sessionId],
        );
      expect(entry).toEqual({ added_by_name: 'Dorothy Vaughan', session_id: sessionId, entry_type: 'face' });
      await open(page, 'Lists', 'lists');
      expect(await page.locator('#lists tr[data-list-type="face"]').textContent()).toContain('1');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given an admin, when composing a workflow without a name and then with one, then the refusal shows beside the name and the saved workflow lists its steps; editing renames it',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Annie Easley'));
      await open(page, 'Workflows', 'workflows');
      expect(await page.locator('#workflows tr[data-workflow-id="standard_kyc"]').count()).toBe(1);
      await check(page, 'console-workflows');

      await page.getByRole('link', { name: 'Compose a workflow' }).click();
      await screen(page, 'compose');
      await page.getByLabel('ID document').selectOption('required');
      await page.getByLabel('AML screening').selectOption('optional');
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await expect.poll(() => page.locator('#workflow-name-error').textContent()).toContain('name must not be empty');
      await check(page, 'console-workflow-compose-error');

      await page.getByLabel('Name').fill('Documents and AML');
      await page.getByLabel('AML score that declines, 0–100 (default 80)').fill('70');
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await screen(page, 'workflow');
      expect(await page.locator('#workflow-steps tbody').textContent()).toMatch(/ID document.*required.*AML screening.*optional/);
      expect(await page.locator('#workflow-settings').textContent()).toContain('70 or more');
      await check(page, 'console-workflow');

      await page.getByRole('link', { name: 'Edit' }).click();
      await screen(page, 'compose');
      await page.getByLabel('Name').fill('Documents, AML and phone');
      await page.getByLabel('Phone (one-time code)').selectOption('optional');
      await page.getByRole('button', { name: 'Save workflow' }).click();
      await page.locator('h1', { hasText: 'Documents, AML and phone' }).waitFor();
      expect(await page.locator('#workflow-steps tbody tr').count()).toBe(3);
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given an admin, when adding a destination at a real receiver and sending a test message, then the log shows the try and a replay reaches the receiver signed again',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'admin', 'Mary Winston'));
      await open(page, 'Webhooks', 'webhooks');
      await page.getByLabel('Endpoint URL (HTTPS)').fill(receiver.url);
      await page.getByRole('button', { name: 'Add destination' }).click();
      await screen(page, 'webhook');
      receiver.secret = (await page.locator('#new-secret code').textContent())!;
      expect(receiver.secret).toMatch(/^whsec_/);

      await page.getByRole('button', { name: 'Send a test message' }).click();
      const [first] = await receiver.waitFor((all) => all.some((item) => item.body?.type === 'webhook.test'));
      expect(first!.verified).toBe(true);
      const row = page.locator(`tr[data-delivery-id="${first!.id}"]`);
      await succeededTries(page, row, 1);
      expect(await row.textContent()).toMatch(/HTTP 204 · \d+ ms/);
      await check(page, 'console-webhook');

      await row.getByRole('button', { name: /^Replay/ }).click();
      await receiver.waitFor((all) => all.filter((item) => item.id === first!.id).length === 2);
      const again = receiver.received.filter((item) => item.id === first!.id)[1]!;
      expect(again.verified).toBe(true);
      expect(again.rawBody).toBe(first!.rawBody);
      await succeededTries(page, row, 2);
      expect(await row.textContent()).toContain('replayed by Mary Winston');
      await check(page, 'console-webhook-replayed');

      await open(page, 'Webhooks', 'webhooks');
      expect(await page.locator('#destinations tbody tr[data-destination-id]').count()).toBe(1);
      await check(page, 'console-webhooks');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given sessions created, in review and decided in a new tenant, when the overview opens, then the funnel and the time to decision chart them',
    async () => {
      const fresh = await testApp.tenant('Charts Ltd');
      const reviewed = await caseInReview(testApp, fresh.sandboxKey, evidence, 'chart-1');
      await caseInReview(testApp, fresh.sandboxKey, evidence, 'chart-2');
      await testApp.rest('POST', '/v1/sessions', { key: fresh.sandboxKey, body: { workflow_id: 'standard_kyc', vendor_data: 'chart-3' } });
      const decided = await testApp.rest('POST', `/v1/sessions/${reviewed}/review`, {
        key: fresh.sandboxKey,
        body: { decision: 'approved', reason: 'checked' },
      });
      expect(decided.status).toBe(200);
      const page = await signInPage(browser, testApp, await makeOperator(testApp, fresh.id, 'viewer', 'Christine Darden'));
      await open(page, 'Overview', 'overview');
      const funnel = await page
        .locator('#funnel-chart table tbody')
        .evaluate((body) => [...body.querySelectorAll('tr')].map((row) => [...row.children].map((cell) => cell.textContent)));
      expect(funnel).toEqual([
        ['created', '3', '100 %'],
        ['started', '2', '67 %'],
        ['submitted', '2', '67 %'],
        ['decided', '1', '33 %'],
      ]);
      expect(
        await page.locator('#funnel-chart rect').evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('width')) > 0)),
      ).toEqual([true, true, true, true]);
      expect(await page.locator('#time-to-decision').textContent()).toMatch(/^1 decided in the last 30 days: half within \d+ s/);
      const timed = await page
        .locator('#time-chart rect.series-time')
        .evaluateAll((bars) => bars.filter((bar) => Number(bar.getAttribute('height')) > 0).length);
      expect(timed).toBe(1);
      await check(page, 'console-overview-charts');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a viewer on a phone, when opening a list, the workflows and a destination, then each fits the width, nothing offers a change and the API refuses one made from the page',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'viewer', 'Vera Viewer'), undefined, PHONE);
      const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      await open(page, 'Lists', 'lists');
      expect(await overflow()).toBeLessThanOrEqual(0);
      await page.getByRole('link', { name: 'Blocked faces' }).click();
      await screen(page, 'list');
      expect(await page.locator('#viewer-note').textContent()).toContain('viewer');
      expect(
        await page
          .getByRole('button')
          .filter({ hasText: /Remove|Add entry/ })
          .count(),
      ).toBe(0);
      await check(page, 'console-list-viewer');
      const listId = await page.locator('main[data-list-id]').getAttribute('data-list-id');

      await open(page, 'Workflows', 'workflows');
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(await page.getByRole('link', { name: 'Compose a workflow' }).count()).toBe(0);
      await check(page, 'console-workflows-phone');
      await open(page, 'Webhooks', 'webhooks');
      expect(await page.getByRole('button', { name: 'Add destination' }).count()).toBe(0);
      await page.locator('#destinations tbody a').first().click();
      await screen(page, 'webhook');
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(await page.getByRole('button', { name: /^Replay|Save|Delete/ }).count()).toBe(0);
      await check(page, 'console-webhook-viewer');

      const code = await page.evaluate(async (id) => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        const response = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
          body: JSON.stringify({
            query:
              'mutation ($id: String!) { addFaceListEntry(listId: $id, input: { sessionId: "00000000-0000-4000-8000-000000000000" }) { id } }',
            variables: { id },
          }),
        });
        return ((await response.json()) as any).errors?.[0]?.extensions?.code as string | undefined;
      }, listId);
      expect(code).toBe('FORBIDDEN');
      await page.context().close();
    },
    FLOW_MS,
  );
});
