/**
 * `npm run bench:web`: loads the hosted flow's page (`/verify/{id}`) in headless Chromium on a
 * throttled network (DevTools' "Fast 3G": 562.5 ms latency, 1.44 Mbps down, 675 kbps up) with a
 * 4× slower CPU, and prints the page weight, the time to first contentful paint and the time to
 * interactive (the first screen rendered and no long task since), beside a static HTML page of
 * the same text served by the same machine: what the flow costs over the least any page costs.
 */
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { buildHosted } from '../scripts/build-hosted.js';
import { startApp } from '../src/app.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 7);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** DevTools' Fast 3G preset (bytes per second). */
const FAST_3G = { offline: false, latency: 562.5, downloadThroughput: (1.44 * 1024 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 };
const CPU_SLOWDOWN = 4;

const manifest = await buildHosted();
const app = await startApp(
  benchAppConfig({
    HOST: process.env.HOST,
    MASTER_KEY: 'bench-master-key-not-for-production-000000',
    MIGRATE_ON_START: process.env.MIGRATE_ON_START,
  }),
  { logger: pino({ level: 'silent' }) },
);
const em = app.orm.em.fork();
const tenant = await createTenant(em, 'Bench Shop');
const key = (await issueApiKey(em, tenant.id, 'sandbox', 'bench')).key;

/** A new session's url (each run opens a fresh link, as an end user does). */
async function newSessionUrl(run: number): Promise<string> {
  const response = await fetch(`${app.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_id: 'standard_kyc', vendor_data: `bench-web-${run}-${Date.now()}` }),
  });
  return ((await response.json()) as { url: string }).url;
}

// The baseline: the welcome screen's text as static HTML, no script, no stylesheet.
const STATIC_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Verify your identity</title></head><body><main><h1>Verify your identity</h1><p>Bench Shop asks you to verify your identity. It takes a few minutes.</p><p>You will be asked for:</p><ul><li>An identity document</li><li>A selfie</li><li>Your personal details</li><li>Your phone number</li></ul><label><input type="checkbox"> I agree that my identity document, photos and the details I give are checked to verify my identity.</label><button>Start</button></main></body></html>`;
const baseline = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(STATIC_PAGE);
});
await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
const baselineUrl = `http://127.0.0.1:${(baseline.address() as { port: number }).port}/`;

const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** In the page before anything else: records long tasks and when the first screen of the flow appears. */
const OBSERVE = `
  window.__longTaskEnd = 0;
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTaskEnd = Math.max(window.__longTaskEnd, entry.startTime + entry.duration); }).observe({ type: 'longtask', buffered: true });
  window.__screenAt = 0;
  new MutationObserver(() => {
    const app = document.getElementById('app');
    if (!window.__screenAt && app && app.dataset.screen && app.dataset.screen !== 'loading') window.__screenAt = performance.now();
  }).observe(document, { subtree: true, attributes: true, childList: true });
`;

interface Sample {
  bytes: number;
  fcp: number;
  tti: number;
}

/** Loads one page on a fresh, throttled context and measures it. */
async function measure(url: string, isFlow: boolean): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.addInitScript(OBSERVE);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', FAST_3G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => (bytes += event.encodedDataLength));
  await page.goto(url, { waitUntil: 'load' });
  if (isFlow) await page.locator('#app[data-screen="welcome"]').waitFor();
  // Interactive: the screen is there and the main thread has had no long task for 500 ms since.
  const timing = await page.evaluate(async (flow) => {
    const w = globalThis as any;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const fcp = w.performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0;
    const ready = flow ? w.__screenAt : w.performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;
    return { fcp, tti: Math.max(ready, w.__longTaskEnd) };
  }, isFlow);
  await context.close();
  return { bytes, ...timing };
}

/** The value at quantile q of sorted numbers. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const results: Record<string, Sample[]> = { 'hosted flow': [], 'static HTML baseline': [] };
for (let run = 0; run < RUNS; run++) {
  results['hosted flow'].push(await measure(await newSessionUrl(run), true));
  results['static HTML baseline'].push(await measure(baselineUrl, false));
}

const js = gzipSync(
  await (await fetch(`${app.url}/verify/assets/${manifest.js}`)).arrayBuffer().then((buffer) => Buffer.from(buffer)),
).length;
console.log(
  `hosted flow JavaScript: ${(js / 1024).toFixed(1)} KB gzipped (budget 150 KB); ${RUNS} runs each, Fast 3G, CPU ×${CPU_SLOWDOWN}`,
);
console.log(
  'page                   | weight (KB transferred) | first contentful paint p50 / p95 (ms) | time to interactive p50 / p95 (ms)',
);
for (const [name, samples] of Object.entries(results)) {
  const kb =
    quantile(
      samples.map((sample) => sample.bytes),
      0.5,
    ) / 1024;
  const fcp = samples.map((sample) => sample.fcp);
  const tti = samples.map((sample) => sample.tti);
  console.log(
    `${name.padEnd(22)} | ${kb.toFixed(1).padStart(23)} | ${`${quantile(fcp, 0.5).toFixed(0)} / ${quantile(fcp, 0.95).toFixed(0)}`.padStart(37)} | ${`${quantile(tti, 0.5).toFixed(0)} / ${quantile(tti, 0.95).toFixed(0)}`.padStart(34)}`,
  );
}
await browser.close();
baseline.close();
await app.close();
