import { fileURLToPath } from 'node:url';
import { bundleBrowserApp, readManifest, type HostedManifest } from './build-hosted.js';

/** Where the console's bundle goes: generated at start and before tests, never committed. */
export const CONSOLE_BUILD_DIR = fileURLToPath(new URL('../dist/console/', import.meta.url));

/** Bundles src/console into dist/console with hashed names and a manifest the page reads. */
export function buildConsole(): Promise<HostedManifest> {
  return bundleBrowserApp({ name: 'console', outDir: CONSOLE_BUILD_DIR });
}

/** The manifest of the console's last build, or null when it was never built. */
export function readConsoleManifest(): HostedManifest | null {
  return readManifest(CONSOLE_BUILD_DIR);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = await buildConsole();
  console.log(`console built: ${manifest.js} (${(manifest.jsGzipBytes / 1024).toFixed(1)} KB gzipped), ${manifest.css}`);
}
