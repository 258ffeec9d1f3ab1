/**
 * The operator console in a real browser (Chromium driven by playwright-core): a reviewer signs
 * in, a case arrives in the queue live (no reload), the reviewer opens it, sees the checks, the
 * document and the selfie as submitted (evidence through signed URLs, each view audited), the
 * document's fields beside the personal details and the AML hit, declines with a reason, and the
 * integrator's webhook receiver gets the decision signed; a viewer sees the case but cannot
 * decide, in the page or by calling the API from it. Every screen passes axe and is saved to
 * test-artifacts/screens.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOperator } from '../console/support.js';
import type { TestApp, TestTenant } from '../support/app.js';
import type { Receiver } from '../webhooks/support.js';
import {
  caseInReview as driveToReview,
  closeConsoleHarness,
  DESKTOP,
  drawnEvidence,
  PHONE,
  screen,
  signInPage as openConsole,
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
/** What the end user submits: a drawn passport page and a drawn face, as data URIs. */
let evidence: { documentImage: string; selfieImage: string };

const enabled = chromiumAvailable();

beforeAll(async () => {
  if (!enabled) return;
  harness = await startConsoleHarness('Acme Bank');
  ({ testApp, tenant, browser, receiver } = harness);
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.sandboxKey,
    body: { url: receiver.url, events: ['session.status_changed'] },
  });
  expect(destination.status).toBe(201);
  receiver.secret = destination.body.secret;
  evidence = await drawnEvidence();
}, 120_000);
afterAll(() => closeConsoleHarness(harness));

/** Opens the console in a fresh browser context and signs in through the form. */
function signInPage(email: string, shots?: string, device: typeof DESKTOP | typeof PHONE = DESKTOP) {
  return openConsole(browser, testApp, email, shots, device);
}

/** Drives a sandbox standard_kyc session to in_review (the document names a PEP); returns its id. */
function caseInReview(vendorData: string): Promise<string> {
  return driveToReview(testApp, tenant.sandboxKey, evidence, vendorData);
}

describe.skipIf(!enabled)('the operator console', () => {
  it(
    'given a reviewer on the queue, when a case goes to review, then it appears without reload; opened and declined with a reason, the webhook receiver gets the decision signed and the overview charts it',
    async () => {
      const page = await signInPage(await makeOperator(testApp, tenant.id, 'reviewer', 'Katherine Johnson'), 'console');
      await page.locator('#app[data-live="on"]').waitFor();
      await expectNoSeriousA11yViolations(page, 'empty queue');
      await screenshot(page, 'console-queue-empty');

      const sessionId = await caseInReview('customer-4711');
      const row = page.locator(`tr[data-session-id="${sessionId}"]`);
      await row.waitFor();
      await expect.poll(() => page.locator('#queue-count').textContent()).toBe('1 case waits for review.');
      await expectNoSeriousA11yViolations(page, 'queue with a case');
      await screenshot(page, 'console-queue');

      await row.getByRole('link', { name: 'customer-4711' }).click();
      await screen(page, 'case');
      await expect.poll(() => page.locator('#aml-hits').textContent()).toContain('SANDBOX PEP');
      const identity = await page.locator('#identity').textContent();
      expect(identity).toContain('SBX000000');
      expect(identity).toContain('Sandbox');
      expect(await page.locator('#similarity').textContent()).toContain('94 %');
      // The document and the selfie as submitted, through their signed URLs; each opening audited by name.
      for (const kind of ['document_front', 'selfie']) {
        const image = page.locator(`figure[data-kind="${kind}"] img`);
        await expect
          .poll(() => image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth))
          .toBeGreaterThan(100);
      }
      expect(await page.locator('figure[data-kind="selfie"] figcaption').textContent()).toBe('Selfie · similarity 94 %');
      const views = await testApp.app.orm.em
        .fork()
        .execute<{ operator_name: string }[]>('select operator_name from evidence_view where session_id = ?', [sessionId]);
      expect(views.map((view) => view.operator_name).sort()).toEqual(['Katherine Johnson', 'Katherine Johnson']);
      expect(await page.locator('tr[data-node="document_verification"]').textContent()).toContain('passed');
      await expectNoSeriousA11yViolations(page, 'case');
      await screenshot(page, 'console-case');

      // A note, kept under the reviewer's name.
      await page.getByLabel('New note').fill('The photo shows moiré: a screen, not paper.');
      await page.getByRole('button', { name: 'Add note' }).click();
      await expect.poll(() => page.locator('#notes').textContent()).toContain('Katherine Johnson');

      // Without a reason nothing is sent; with one the case is declined.
      await page.getByRole('button', { name: 'Decline' }).click();
      await expect.poll(() => page.locator('#decision-error').textContent()).toContain('Give a reason');
      await page
        .getByLabel('Reason or note (kept in the audit trail and sent to the integrator)')
        .fill('The document photo is a photo of a screen.');
      await page.getByRole('button', { name: 'Decline' }).click();
      await page.locator('main[data-status="declined"]').waitFor();
      expect(await page.locator('#timeline').textContent()).toContain(
        'by Katherine Johnson (reviewer) — The document photo is a photo of a screen.',
      );
      await expectNoSeriousA11yViolations(page, 'decided case');
      await screenshot(page, 'console-case-declined');

      const [delivery] = await receiver.waitFor((received) =>
        received.some((item) => item.body.data?.session_id === sessionId && item.body.data?.status === 'declined'),
      );
      const decided = receiver.received.find((item) => item.body.data?.session_id === sessionId && item.body.data?.status === 'declined')!;
      expect(delivery).toBeDefined();
      expect(decided.verified).toBe(true);
      expect(decided.body).toMatchObject({
        type: 'session.status_changed',
        data: { previous_status: 'in_review', actor: 'reviewer', reason: 'The document photo is a photo of a screen.' },
      });

      // Decided, the case has left the queue, live too.
      await page.getByRole('link', { name: '← Review queue' }).click();
      await screen(page, 'queue');
      expect(await page.locator(`tr[data-session-id="${sessionId}"]`).count()).toBe(0);

      // The overview charts today's decline, drawn to scale, with the numbers in a table too.
      await page.getByRole('link', { name: 'Overview' }).click();
      await screen(page, 'overview');
      const drawn = await page
        .locator('#decisions-chart rect.series-declined')
        .evaluateAll((bars) => bars.filter((bar) => Number(bar.getAttribute('height')) > 0).length);
      expect(drawn).toBe(1);
      expect(await page.locator('#decisions-chart table').textContent()).toContain('1');
      await expectNoSeriousA11yViolations(page, 'overview');
      await screenshot(page, 'console-overview');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a viewer, when filtering the queue and opening a case in review, then the filter holds and the page offers no decision and the API refuses one made from the page',
    async () => {
      const sessionId = await caseInReview('customer-viewer');
      const page = await signInPage(await makeOperator(testApp, tenant.id, 'viewer', 'Vera Viewer'));
      // Each filter's answer redraws the form: wait for it before typing the next one (the table is
      // aria-busy until then), or the redraw would put the previous filter back in the fields.
      const filterDrawn = () => expect.poll(() => page.locator('#queue-table').getAttribute('aria-busy')).toBe('false');
      // Filters: another vendor's data hides the case, its own shows only it; the server and live arrivals agree.
      await page.getByLabel('Vendor data').fill('someone-else');
      await page.getByRole('button', { name: 'Filter' }).click();
      await filterDrawn();
      await expect.poll(() => page.locator('#queue-count').textContent()).toBe('No sessions match these filters.');
      // The status filter searches another status: the case is in review, so no approved session matches.
      await page.getByLabel('Vendor data').fill('customer-viewer');
      await page.getByLabel('Status').selectOption('approved');
      await page.getByRole('button', { name: 'Filter' }).click();
      await filterDrawn();
      await expect.poll(() => page.locator('#queue-count').textContent()).toBe('No sessions match these filters.');
      expect(await page.locator('#queue-rows').textContent()).toContain('No sessions match these filters.');
      await page.getByLabel('Status').selectOption('in_review');
      await page.getByLabel('Created from').fill(new Date().toISOString().slice(0, 10));
      await page.getByRole('button', { name: 'Filter' }).click();
      await filterDrawn();
      await expect.poll(() => page.locator('#queue-count').textContent()).toBe('1 case waits for review.');
      await expectNoSeriousA11yViolations(page, 'filtered queue');
      await screenshot(page, 'console-queue-filtered');
      await page.locator(`tr[data-session-id="${sessionId}"]`).getByRole('link').click();
      await screen(page, 'case');

      expect(await page.locator('#viewer-note').textContent()).toContain('cannot decide');
      expect(await page.getByRole('button', { name: 'Decline' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Ask for a retake' }).count()).toBe(0);
      await expectNoSeriousA11yViolations(page, 'case as a viewer');
      await screenshot(page, 'console-case-viewer');

      // The same request the reviewer's page makes, from the viewer's page with its cookie and CSRF token.
      const code = await page.evaluate(async (id) => {
        const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
        const response = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
          body: JSON.stringify({
            query: 'mutation ($id: String!) { reviewSession(id: $id, decision: approved, reason: "viewer tries") { status } }',
            variables: { id },
          }),
        });
        return ((await response.json()) as any).errors?.[0]?.extensions?.code as string | undefined;
      }, sessionId);
      expect(code).toBe('FORBIDDEN');
      const after = await testApp.rest('GET', `/v1/sessions/${sessionId}`, { key: tenant.sandboxKey });
      expect(after.body.status).toBe('in_review');
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a reviewer on a case in review, when they ask for a retake of the document with a reason, then the case shows in progress, the timeline names them and the case leaves the queue',
    async () => {
      const sessionId = await caseInReview('customer-retake');
      const page = await signInPage(await makeOperator(testApp, tenant.id, 'reviewer', 'Dorothy Vaughan'));
      await page.locator(`tr[data-session-id="${sessionId}"]`).getByRole('link').click();
      await screen(page, 'case');

      // Without a reason nothing is sent.
      await page.getByRole('button', { name: 'Ask for a retake' }).click();
      await expect.poll(() => page.locator('#retake-error').textContent()).toContain('Give a reason');
      await page.getByLabel('Step').selectOption('document_verification');
      await page
        .getByLabel('Reason (kept in the audit trail, sent to the integrator)')
        .fill('The passport photo is cut off at the bottom.');
      await expectNoSeriousA11yViolations(page, 'case with a retake request filled in');
      await screenshot(page, 'console-case-retake');
      await page.getByRole('button', { name: 'Ask for a retake' }).click();

      await page.locator('main[data-status="in_progress"]').waitFor();
      expect(await page.locator('#decided').textContent()).toBe('With the end user: in progress');
      expect(await page.locator('#retake-step').count()).toBe(0);
      expect(await page.locator('#timeline').textContent()).toContain(
        'by Dorothy Vaughan (reviewer) — The passport photo is cut off at the bottom.',
      );
      expect(await page.locator('tr[data-node="document_verification"]').textContent()).toMatch(/resubmission.requested/);
      await expectNoSeriousA11yViolations(page, 'case sent back for a retake');
      await screenshot(page, 'console-case-retake-requested');

      await page.getByRole('link', { name: '← Review queue' }).click();
      await screen(page, 'queue');
      expect(await page.locator(`tr[data-session-id="${sessionId}"]`).count()).toBe(0);
      await page.context().close();
    },
    FLOW_MS,
  );

  it(
    'given a wrong password, when signing in, then the form says so and stays',
    async () => {
      const context = await browser.newContext(DESKTOP);
      const page = await context.newPage();
      await page.goto(`${testApp.url}/console`);
      await screen(page, 'sign-in');

      await page.getByLabel('Email address').fill('nobody@example.com');
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();

      await expect.poll(() => page.locator('#sign-in-error').textContent()).toBe('Wrong email address or password.');
      await expectNoSeriousA11yViolations(page, 'sign-in error');
      await screenshot(page, 'console-sign-in-error');
      await context.close();
    },
    FLOW_MS,
  );

  it(
    'given a reviewer on a phone, when the queue and a case are shown, then each screen fits the phone width and passes axe',
    async () => {
      const page = await signInPage(await makeOperator(testApp, tenant.id, 'reviewer', 'Mary Jackson'), undefined, PHONE);
      const sessionId = await caseInReview('customer-phone');
      const row = page.locator(`tr[data-session-id="${sessionId}"]`);
      await row.waitFor();
      const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      await screenshot(page, 'console-phone-queue');
      expect(await overflow()).toBeLessThanOrEqual(0);
      await expectNoSeriousA11yViolations(page, 'phone queue');

      await row.getByRole('link', { name: 'customer-phone' }).click();
      await screen(page, 'case');
      await expect.poll(() => page.locator('#aml-hits').textContent()).toContain('SANDBOX PEP');
      expect(await overflow()).toBeLessThanOrEqual(0);
      await expectNoSeriousA11yViolations(page, 'phone case');
      await screenshot(page, 'console-phone-case');
      await page.context().close();
    },
    FLOW_MS,
  );
});
