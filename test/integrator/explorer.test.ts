import { existsSync } from 'node:fs';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExplorer } from '../../scripts/build-explorer.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

// Not installed everywhere (CI may lack it): the browser part is skipped with a message when absent.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`explorer.test: ${CHROMIUM} not found, the headless browser test is skipped`);

/** GETs /graphql as a browser would. */
function getPage(url: string): Promise<Response> {
  return fetch(`${url}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
}

describe('GraphQL explorer at GET /graphql', () => {
  let testApp: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    // npm start builds it in prestart; a test run builds it here (about a second with esbuild).
    await buildExplorer();
    testApp = await startTestApp();
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp?.close());

  it('given a browser, when it GETs /graphql, then the page comes with a self-only CSP and only same-origin assets', async () => {
    const response = await getPage(testApp.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await response.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const url of urls) expect(url).toMatch(/^\/[^/]/);
    // No inline script or style for the CSP to forbid.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle="/);
  });

  it('given the page, when its assets are fetched, then each answers 200 with its content type and holds no remote URL', async () => {
    const html = await (await getPage(testApp.url)).text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    const types = new Map<string, RegExp>([
      ['.js', /^text\/javascript/],
      ['.css', /^text\/css/],
    ]);
    for (const url of urls) {
      const response = await fetch(`${testApp.url}${url}`);
      expect(response.status, url).toBe(200);
      const expected = types.get(url.slice(url.lastIndexOf('.')));
      expect(response.headers.get('content-type')).toMatch(expected!);
      const body = await response.text();
      // The bundle must not load anything from a CDN: no stylesheet or font import from elsewhere.
      expect(body).not.toMatch(/@import\s+url\(["']?https?:|url\(["']?https?:\/\/(?!www\.w3\.org)/);
    }
  });

  it('given the explorer, when a client POSTs a query or GETs without text/html, then GraphQL answers as before', async () => {
    const posted = await testApp.graphql('{ __typename }', undefined, tenant.sandboxKey);
    expect(posted.status).toBe(200);
    expect(posted.body.data).toEqual({ __typename: 'Query' });
    const asJson = await fetch(`${testApp.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'text/html, application/json', 'x-api-key': tenant.sandboxKey, 'apollo-require-preflight': 'true' },
    });
    expect(asJson.headers.get('content-type')).toMatch(/json/);
    expect(await asJson.json()).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('given the standard introspection query GraphiQL sends, when posted, then it passes the depth limit', async () => {
    const response = await testApp.graphql(getIntrospectionQuery({ inputValueDeprecation: true }), undefined, tenant.sandboxKey);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  it('given introspection nested through fields rather than ofType, when posted, then it is still refused', async () => {
    // 14 levels of fields → type, each one a fan-out: what the limit is there to stop.
    const nested = `{ __schema { types { ${'fields { type { '.repeat(7)}name${' } }'.repeat(7)} } } }`;
    const response = await testApp.graphql(nested, undefined, tenant.sandboxKey);
    // graphql-js's own MaxIntrospectionDepthRule refuses it before our limits run.
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors?.[0].message).toMatch(/depth/i);
  });

  it.skipIf(!hasChromium)(
    'given headless Chromium, when a key is set in the form and a query runs, then GraphiQL shows the answer, and a subscription shows a new session live',
    async () => {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage();
        const violations: string[] = [];
        page.on('console', (message) => {
          if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
        });
        const outside: string[] = [];
        page.on('request', (request) => {
          if (!request.url().startsWith(testApp.url) && !request.url().startsWith('data:') && !request.url().startsWith('ws://'))
            outside.push(request.url());
        });
        await page.goto(`${testApp.url}/graphql`);
        await page.fill('#explorer-api-key', tenant.sandboxKey);
        await page.click('button[type=submit]');
        await page.getByText('Key set for this tab').waitFor();
        expect(await page.evaluate(() => sessionStorage.getItem('openkyc.explorer.apiKey'))).toBe(tenant.sandboxKey);
        await page.click('.graphiql-query-editor .CodeMirror');
        await page.keyboard.press('Control+A');
        // insertText, not type: CodeMirror would auto-close each brace typed.
        await page.keyboard.insertText('{ __typename }');
        await page.click('.graphiql-execute-button');
        await page.locator('.graphiql-response').getByText('"Query"').waitFor();

        // A subscription goes over graphql-ws with the key in connection_init; a new session shows up live.
        await page.click('.graphiql-query-editor .CodeMirror');
        await page.keyboard.press('Control+A');
        await page.keyboard.insertText('subscription { sessionStatusChanged { sessionId status } }');
        // Wait for the subscribe message itself: only then can the new session's event reach the page.
        const subscribed = new Promise<void>((resolve) =>
          page.on('websocket', (socket) =>
            socket.on('framesent', (frame) => {
              if (String(frame.payload).includes('"subscribe"')) resolve();
            }),
          ),
        );
        await page.click('.graphiql-execute-button');
        await subscribed;
        const created = await testApp.rest('POST', '/v1/sessions', {
          key: tenant.sandboxKey,
          body: { workflow_id: 'standard_kyc', vendor_data: 'explorer-subscription' },
        });
        expect(created.status).toBe(201);
        await page.locator('.graphiql-response').getByText(created.body.session_id).waitFor();
        expect(outside).toEqual([]);
        expect(violations).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
