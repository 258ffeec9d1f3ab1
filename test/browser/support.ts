/**
 * Browser test harness: Debian's Chromium driven by playwright-core (no browser download), with
 * Chromium's fake camera playing an image made at test time, axe-core for accessibility, and
 * screenshots written as test artefacts (test-artifacts/screens, not committed).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The Chromium the tests drive: Debian's package (`.ci/run` installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where screenshots go. */
export const SCREENS_DIR = join(ROOT, 'test-artifacts/screens');

/** Whether the browser tests can run here; when not, they are skipped with this reason printed. */
export function chromiumAvailable(): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install chromium, or set CHROMIUM_PATH)`);
  return available;
}

/**
 * Starts headless Chromium with no network beyond localhost. `fakeVideo` plays that Y4M file as
 * the camera; `camera: false` leaves the machine with no camera at all.
 */
export async function launchChromium(options: { fakeVideo?: string; camera?: boolean } = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
  if (options.camera !== false) {
    args.push('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream');
    if (options.fakeVideo) args.push(`--use-file-for-fake-video-capture=${options.fakeVideo}`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

/**
 * Writes a Y4M video (4:2:0, 30 fps) of `frames` copies of an image, which Chromium's fake camera
 * plays in a loop; width and height are made even, as 4:2:0 needs.
 */
export async function writeFakeVideo(image: Buffer, file: string, options: { width?: number; frames?: number } = {}): Promise<string> {
  const resized = sharp(image)
    .flatten({ background: '#ffffff' })
    .resize({ width: options.width ?? 1280 });
  const { data, info } = await resized.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const width = info.width - (info.width % 2);
  const height = info.height - (info.height % 2);
  const y = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  const clamp = (value: number) => Math.max(0, Math.min(255, Math.round(value)));
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const p = (row * info.width + column) * 3;
      const [r, g, b] = [data[p], data[p + 1], data[p + 2]];
      y[row * width + column] = clamp(0.299 * r + 0.587 * g + 0.114 * b);
      if (row % 2 === 0 && column % 2 === 0) {
        const c = (row / 2) * (width / 2) + column / 2;
        u[c] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
        v[c] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
      }
    }
  }
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
  const frames = Array.from({ length: options.frames ?? 5 }, () => frame);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F30:1 Ip A1:1 C420jpeg\n`), ...frames]));
  return file;
}

const require = createRequire(import.meta.url);
/** axe-core's browser build, injected into pages. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe-core (WCAG 2.x A and AA rules) on the page and fails listing any serious or critical violation. */
export async function expectNoSeriousA11yViolations(page: Page, what: string): Promise<void> {
  // Evaluated through DevTools, not as a <script>: the page's CSP (rightly) refuses inline scripts.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const page = globalThis as any;
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'] } });
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.length,
    }));
  });
  const serious = violations.filter((violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious, `${what}: axe violations`).toEqual([]);
}

/** Saves a screenshot of the page as test-artifacts/screens/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`), fullPage: true });
}
