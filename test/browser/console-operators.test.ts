/**
 * Claims, second factors, operators and API keys in the console, in a real browser: a reviewer
 * claims a case and decides it while a colleague sees it held and cannot decide; an operator
 * enrols an authenticator app and signs in with its code; an admin adds an operator and creates
 * an API key. Every new screen passes axe and is saved to test-artifacts/screens.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inReviewSession, makeOperator, OPERATOR_PASSWORD, totpCodeFor } from '../console/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { DESKTOP, screen, signInPage } from './console-support.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, launchChromium, screenshot } from './support.js';

/** A browser run through several screens on a loaded 2-core machine. */
const FLOW_MS = 120_000;

let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  testApp = await startTestApp();
  tenant = await testApp.tenant('Acme Bank');
  browser = await launchChromium({ camera: false });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await testApp?.close();
});

/** Fills and sends the sign-in form of an open console page (sandbox). */
async function submitSignIn(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(OPERATOR_PASSWORD);
  await page.getByLabel('Environment', { exact: true }).selectOption('sandbox');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A fresh browser context signed in to the console's sandbox as `email`, on the queue. */
function consolePage(email: string): Promise<Page> {
  return signInPage(browser, testApp, email);
}

describe.skipIf(!enabled)('claims in the console', () => {
  it(
    'given two reviewers, when one claims a case, then the other sees who holds it in the queue and on the case and cannot decide; the holder declines it',
    async () => {
      const ada = await consolePage(await makeOperator(testApp, tenant.id, 'reviewer', 'Ada Lovelace'));
      const grace = await consolePage(await makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper'));
      await grace.locator('#app[data-live="on"]').waitFor();
      const id = await inReviewSession(testApp, tenant.sandboxKey);

      await ada.goto(`${testApp.url}/console#/case/${id}`);
      await screen(ada, 'case');
      await ada.locator('#claim').click();
      await expect.poll(() => ada.locator('#claim-status').textContent()).toBe('You are working on this case.');
      await expectNoSeriousA11yViolations(ada, 'claimed case');
      await screenshot(ada, 'claims-case-claimed');

      // Grace's queue learns the holder live.
      const row = grace.locator(`tr[data-session-id="${id}"] td.holder`);
      await expect.poll(() => row.textContent()).toBe('Ada Lovelace');
      await screenshot(grace, 'claims-queue-held');
      await grace.locator(`tr[data-session-id="${id}"] a`).click();
      await screen(grace, 'case');
      await expect.poll(() => grace.locator('#held-by-other').textContent()).toContain('Ada Lovelace is working on this case');
      expect(await grace.locator('#approve').count()).toBe(0);
      expect(await grace.locator('#claim').count()).toBe(0);
      await expectNoSeriousA11yViolations(grace, 'case held by another');
      await screenshot(grace, 'claims-case-held-by-other');

      await ada.locator('#reason').fill('Listed as a politically exposed person; no source of funds given.');
      await ada.locator('#decline').click();
      await expect.poll(() => ada.locator('main').getAttribute('data-status')).toBe('declined');
      await expect.poll(() => grace.locator('main').getAttribute('data-status')).toBe('declined');
    },
    FLOW_MS,
  );
});

describe.skipIf(!enabled)('a second factor in the console', () => {
  it(
    'given an operator, when enrolling an authenticator app and signing in again, then the sign-in asks for the code and admits the right one',
    async () => {
      const email = await makeOperator(testApp, tenant.id, 'viewer', 'Tess Totp');
      const page = await consolePage(email);
      await page.getByRole('link', { name: 'My account' }).click();
      await screen(page, 'account');
      await page.locator('#start-totp').click();
      const secret = (await page.locator('#totp-secret').textContent())!;
      await page.locator('.qr svg').waitFor();
      await expectNoSeriousA11yViolations(page, 'account, enrolling');
      await screenshot(page, 'account-totp-enrol');
      await page.getByLabel('The 6-digit code your app shows now').fill(totpCodeFor(secret));
      await page.getByRole('button', { name: 'Turn on' }).click();
      await expect.poll(() => page.locator('#totp-state').textContent()).toContain('On:');

      // Every drawing of the sign-in form is counted: a second one would wipe what is typed.
      await page.evaluate(() => {
        const scope = globalThis as any;
        scope.signInForms = 0;
        new scope.MutationObserver((changes: { addedNodes: { querySelector?: (selector: string) => unknown }[] }[]) => {
          for (const change of changes) for (const node of change.addedNodes) if (node.querySelector?.('#password')) scope.signInForms += 1;
        }).observe(scope.document.querySelector('#app'), { childList: true });
      });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await screen(page, 'sign-in');
      await submitSignIn(page, email);
      await page.locator('#totp-code').waitFor({ state: 'visible' });
      expect(await page.evaluate(() => (globalThis as any).signInForms)).toBe(1);
      await expectNoSeriousA11yViolations(page, 'sign-in asking for a code');
      await screenshot(page, 'sign-in-code');
      await page.locator('#totp-code').fill(totpCodeFor(secret, 1));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await screen(page, 'queue');
    },
    FLOW_MS,
  );
});

describe.skipIf(!enabled)('admins in the console', () => {
  it(
    'given an admin, when adding an operator, resetting their password and creating an API key, then the operator must choose their own password at sign-in and the key, shown once, works',
    async () => {
      const page = await consolePage(await makeOperator(testApp, tenant.id, 'admin', 'Alan Turing'));
      await page.getByRole('link', { name: 'Operators' }).click();
      await screen(page, 'operators');
      await page.getByLabel('Name', { exact: true }).fill('Katherine Johnson');
      await page.getByLabel('Email address').fill('katherine@example.com');
      await page.getByLabel('Role', { exact: true }).selectOption('reviewer');
      await page.getByLabel('Initial password').fill('initial password 123');
      await page.getByRole('button', { name: 'Add operator' }).click();
      await page.locator('tr[data-operator-email="katherine@example.com"]').waitFor();
      await page.getByLabel('Operator', { exact: true }).selectOption({ label: 'Katherine Johnson (katherine@example.com)' });
      await page.getByLabel('Temporary password').fill('temporary password 9');
      await page.getByRole('button', { name: 'Reset password' }).click();
      await expect.poll(() => page.locator('#announcer').textContent()).toBe("Katherine Johnson's password was reset.");
      await expectNoSeriousA11yViolations(page, 'operators');
      await screenshot(page, 'operators');

      // Katherine signs in with the temporary password: the console asks for her own first.
      const katherine = await (await browser.newContext(DESKTOP)).newPage();
      await katherine.goto(`${testApp.url}/console`);
      await screen(katherine, 'sign-in');
      await katherine.getByLabel('Email address').fill('katherine@example.com');
      await katherine.getByLabel('Password').fill('temporary password 9');
      await katherine.getByRole('button', { name: 'Sign in' }).click();
      await screen(katherine, 'account');
      await katherine.locator('#must-change').waitFor();
      await expectNoSeriousA11yViolations(katherine, 'account, password change required');
      await screenshot(katherine, 'account-must-change');
      await katherine.getByLabel('Current password').fill('temporary password 9');
      await katherine.getByLabel('New password (at least 12 characters)').fill('katherine own password');
      await katherine.getByLabel('New password again').fill('katherine own password');
      await katherine.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => katherine.locator('#account-message').textContent()).toBe('Your password was changed.');

      await page.getByRole('link', { name: 'API keys' }).click();
      await screen(page, 'keys');
      await page.getByLabel('What is it for?').fill('CRM integration');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.locator('#new-key-secret').textContent())!;
      await expectNoSeriousA11yViolations(page, 'API keys');
      await screenshot(page, 'api-keys');
      expect(secret).toMatch(/^idv_sandbox_/);
      expect((await testApp.rest('GET', '/v1/workflows', { key: secret })).status).toBe(200);
    },
    FLOW_MS,
  );

  it(
    'given a reviewer, when opening the operators page by its address, then there is no link to it and the page refuses',
    async () => {
      const page = await consolePage(await makeOperator(testApp, tenant.id, 'reviewer'));

      expect(await page.getByRole('link', { name: 'Operators' }).count()).toBe(0);
      await page.goto(`${testApp.url}/console#/operators`);
      await screen(page, 'forbidden');
    },
    FLOW_MS,
  );
});
