/**
 * The hosted flow where the browser blocks storage (audit N12): an embedded flow in a browser
 * that blocks third-party storage throws `SecurityError` on every read of `sessionStorage`. The
 * page must still run: consent, the document choice and the step all work, kept in the page's memory.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES } from '../../src/web/shared/i18n.js';
import { createSession } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { chromiumAvailable, expectNoSeriousA11yViolations, launchChromium, screenshot } from './support.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

let testApp: TestApp;
let tenant: TestTenant;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  browser = await launchChromium({ camera: false });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await testApp?.close();
});

describe.skipIf(!chromiumAvailable())('hosted flow with storage blocked', () => {
  it(
    'given sessionStorage that throws SecurityError, when the person opens the link, then the welcome screen, consent and the document step still work',
    { timeout: 120_000 },
    async () => {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'storage-blocked' });
      expect(created.status).toBe(201);
      const context = await browser.newContext(PHONE);
      // What Chromium does in a third-party iframe with third-party storage blocked.
      await context.addInitScript({
        content: `Object.defineProperty(window, 'sessionStorage', { configurable: true, get() {
          throw new DOMException("Failed to read the 'sessionStorage' property from 'Window': Access is denied for this document.", 'SecurityError');
        } });`,
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(created.body.url as string);
      await page.locator('#app[data-screen="welcome"]').waitFor();
      await page.getByLabel(CATALOGUES.en.consent).check();
      await page.getByRole('button', { name: 'Start' }).click();
      await page.locator('#app[data-screen="document"]').waitFor();
      await page.locator('#country').selectOption('GB');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('#app[data-camera="none"]').waitFor();
      await screenshot(page, 'hosted-storage-blocked-document');
      await expectNoSeriousA11yViolations(page, 'document step with storage blocked');
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});
