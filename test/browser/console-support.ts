/**
 * What the console's browser tests share: the drawn document and selfie an end user submits, a
 * sign-in through the form, waiting for a screen, and a case driven to review.
 */
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { expect } from 'vitest';
import { OPERATOR_PASSWORD } from '../console/support.js';
import { completeStandardKyc, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from '../webhooks/support.js';
import { expectNoSeriousA11yViolations, launchChromium, screenshot } from './support.js';

/** What a console test file starts once: the app (webhooks delivered in process, loopback allowed), a tenant, a real webhook receiver and Chromium. */
export interface ConsoleHarness {
  testApp: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
  browser: Browser;
}

/** Starts the harness of a console test file, its tenant named `tenantName`. */
export async function startConsoleHarness(tenantName: string): Promise<ConsoleHarness> {
  const testApp = await startTestApp(WEBHOOK_TEST_ENV);
  const tenant = await testApp.tenant(tenantName);
  const receiver = await startReceiver();
  const browser = await launchChromium({ camera: false });
  return { testApp, tenant, receiver, browser };
}

/** Stops what startConsoleHarness started (nothing when it never ran). */
export async function closeConsoleHarness(harness: ConsoleHarness | undefined): Promise<void> {
  await harness?.browser.close();
  await harness?.receiver.close();
  await harness?.testApp.close();
}

/** A desktop browser window. */
export const DESKTOP = { viewport: { width: 1280, height: 900 } };
/** A phone (a reviewer away from a desk): every screen must fit its width. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Renders an SVG drawing to a PNG data URI (the fonts are the tests' vendored ones). */
async function drawn(svg: string): Promise<string> {
  return `data:image/png;base64,${(await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64')}`;
}

/** What the end user submits: a drawn passport page naming the sandbox PEP and a drawn face, as data URIs. */
export async function drawnEvidence(): Promise<{ documentImage: string; selfieImage: string }> {
  const documentImage = await drawn(`<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400">
    <rect width="600" height="400" rx="18" fill="#e8e2d0"/><rect x="30" y="90" width="170" height="220" fill="#b9b2a0"/>
    <circle cx="115" cy="170" r="45" fill="#8d6e63"/><rect x="60" y="225" width="110" height="70" rx="30" fill="#5d4037"/>
    <text x="30" y="60" font-family="DejaVu Sans" font-size="30" fill="#2b2b2b">PASSPORT · UNITED KINGDOM</text>
    <text x="230" y="130" font-family="DejaVu Sans" font-size="24" fill="#2b2b2b">PEP</text>
    <text x="230" y="170" font-family="DejaVu Sans" font-size="24" fill="#2b2b2b">SANDBOX</text>
    <text x="230" y="210" font-family="DejaVu Sans" font-size="20" fill="#2b2b2b">01 JAN 1990 · GBR</text>
    <text x="30" y="350" font-family="DejaVu Sans Mono" font-size="18" fill="#2b2b2b">P&lt;GBRPEP&lt;&lt;SANDBOX&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;</text>
    <text x="30" y="380" font-family="DejaVu Sans Mono" font-size="18" fill="#2b2b2b">SBX0000000GBR9001011M3111235&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;</text>
  </svg>`);
  const selfieImage = await drawn(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="380">
    <rect width="300" height="380" fill="#cfd8dc"/><circle cx="150" cy="150" r="80" fill="#8d6e63"/>
    <rect x="60" y="250" width="180" height="130" rx="60" fill="#37474f"/>
    <circle cx="122" cy="140" r="8" fill="#212121"/><circle cx="178" cy="140" r="8" fill="#212121"/>
    <path d="M120 190 Q150 210 180 190" stroke="#212121" stroke-width="5" fill="none"/>
  </svg>`);
  return { documentImage, selfieImage };
}

/** Waits for a screen of the console. */
export async function screen(page: Page, name: string): Promise<void> {
  await page.locator(`#app[data-screen="${name}"]`).waitFor();
}

/** Opens the console in a fresh browser context and signs in to an environment (the sandbox unless named) through the form; `shots` names the sign-in's screenshot. */
export async function signInPage(
  browser: Browser,
  testApp: TestApp,
  email: string,
  shots?: string,
  device: typeof DESKTOP | typeof PHONE = DESKTOP,
  environment: 'sandbox' | 'live' = 'sandbox',
): Promise<Page> {
  const context = await browser.newContext(device);
  const page = await context.newPage();
  await page.goto(`${testApp.url}/console`);
  await screen(page, 'sign-in');
  if (shots) {
    await expectNoSeriousA11yViolations(page, 'sign-in');
    await screenshot(page, `${shots}-sign-in`);
  }
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(OPERATOR_PASSWORD);
  await page.getByLabel('Environment').selectOption(environment);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await screen(page, 'queue');
  return page;
}

/** Drives a sandbox standard_kyc session of `key` to in_review (the document names a PEP); returns its id. */
export async function caseInReview(
  testApp: TestApp,
  key: string,
  evidence: { documentImage: string; selfieImage: string },
  vendorData: string,
): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'standard_kyc', vendor_data: vendorData, expected_details: { first_name: 'Sandbox', last_name: 'Pep' } },
  });
  expect(created.status).toBe(201);
  const status = await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id, {
    imageFront: evidence.documentImage,
    selfie: evidence.selfieImage,
    document: { firstName: 'Sandbox', lastName: 'Pep' },
  });
  expect(status).toBe('in_review');
  return created.body.session_id;
}
