/**
 * The console's session search and person view in a real browser (issue 25, points 1 and 4): a
 * reviewer types a misspelt name into the header's search box and finds the case, an e-mail finds
 * its session, a query nothing matches says so in those words, and the case page links to every
 * session of the same vendor_data with its outcome. Desktop and phone; each screen passes axe and
 * is saved to test-artifacts/screens.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOperator } from '../console/support.js';
import type { TestApp, TestTenant } from '../support/app.js';
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
const VENDOR = 'customer-search-7';

let harness: ConsoleHarness | undefined;
let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;
let caseId: string;
let earlierId: string;

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Search Bank');
  ({ testApp, tenant, browser } = harness);
  // An earlier attempt of the same person under another workflow, and someone else with an e-mail.
  const earlier = await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'aml_only', vendor_data: VENDOR },
  });
  earlierId = earlier.body.session_id;
  await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'standard_kyc', vendor_data: 'customer-mail-8', contact_details: { email: 'katherine@example.com' } },
  });
  caseId = await caseInReview(testApp, tenant.sandboxKey, await drawnEvidence(), VENDOR);
}, 180_000);
afterAll(() => closeConsoleHarness(harness));

/** Types a query into the header's search box and waits for the results. */
async function search(page: Page, query: string): Promise<void> {
  const box = page.getByRole('search', { name: 'Sessions' });
  await box.getByLabel('Search sessions').fill(query);
  await box.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-count').filter({ hasText: query }).waitFor();
}

/** Checks the screen with axe and saves its screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await expectNoSeriousA11yViolations(page, name);
  await screenshot(page, name);
}

describe.skipIf(!enabled)('the console search', () => {
  it(
    "given sessions of a tenant, when a reviewer searches a misspelt name, an e-mail and something nobody has, then the results say what matched, and the case links to the person's every session",
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Katherine Johnson'));
      await search(page, 'sandbx pep');
      await screen(page, 'search');
      const row = page.locator(`#found tr[data-session-id="${caseId}"]`);
      await expect.poll(() => row.textContent()).toContain('name');
      expect(await page.locator('#search-count').textContent()).toBe('1 session matches “sandbx pep”.');
      await check(page, 'console-search');

      await search(page, 'KATHERINE@example.com');
      expect(await page.locator('#found tbody tr').count()).toBe(1);
      expect(await page.locator('#found tbody').textContent()).toContain('e-mail');

      await search(page, 'nobody-at-all');
      expect(await page.locator('#search-count').textContent()).toBe('No sessions match “nobody-at-all” in sandbox.');
      expect(await page.locator('#found').count()).toBe(0);
      await check(page, 'console-search-empty');

      await search(page, 'sandbox pep');
      await page.locator(`#found tr[data-session-id="${caseId}"] a`).click();
      await screen(page, 'case');
      await page.getByRole('link', { name: `Every session of ${VENDOR}` }).click();
      await screen(page, 'person');
      expect(await page.locator('#person-count').textContent()).toBe(`2 sessions with vendor data ${VENDOR} in sandbox.`);
      expect(await page.locator(`#found tr[data-session-id="${caseId}"]`).textContent()).toContain('in review');
      expect(await page.locator(`#found tr[data-session-id="${earlierId}"]`).textContent()).toContain('pending');
      await check(page, 'console-person');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a phone, when a reviewer searches and opens the person view, then both fit the screen',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'viewer', 'Mary Jackson'), undefined, PHONE);
      await search(page, 'customer-search');
      expect(await page.locator('#found tbody tr').count()).toBe(2);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await check(page, 'console-search-phone');
      await page.goto(`${testApp.url}/console#/person/${encodeURIComponent(VENDOR)}`);
      await screen(page, 'person');
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await check(page, 'console-person-phone');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a reviewer, when adding a name to a list, then the entry reads as the name beside its fingerprint, on desktop and on a phone',
    async () => {
      const page = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Dorothy Vaughan'));
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Lists' }).click();
      await screen(page, 'lists');
      await page.getByRole('link', { name: 'Watched names' }).click();
      await screen(page, 'list');
      await page.getByLabel('Name', { exact: true }).fill('Ivan Fraudster');
      await page.getByRole('button', { name: 'Add entry' }).click();
      await expect.poll(() => page.locator('#list-summary').textContent()).toContain('1 entry.');
      const row = page.locator('#entries tbody tr[data-entry-id]');
      expect(await row.locator('.entry-label').textContent()).toBe('Ivan Fraudster');
      expect(await row.textContent()).toContain('sha256:');
      await check(page, 'console-list-labels');
      const listUrl = page.url();
      await page.context().close();

      const phone = await signInPage(browser, testApp, await makeOperator(testApp, tenant.id, 'viewer', 'Mary Jackson'), undefined, PHONE);
      await phone.goto(listUrl);
      await screen(phone, 'list');
      expect(await phone.locator('#entries tbody tr .entry-label').textContent()).toBe('Ivan Fraudster');
      await check(phone, 'console-list-labels-phone');
      await phone.context().close();
    },
    FLOW_MS,
  );
});
