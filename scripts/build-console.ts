import { fileURLToPath } from 'node:url';
import { CONSOLE_BUILD_DIR, type BundleManifest } from '../src/http/bundle-assets.js';
import { bundleBrowserApp } from './build-hosted.js';

/** Bundles src/web/console into dist/console with hashed names and a manifest the page reads. */
export function buildConsole(): Promise<BundleManifest> {
  return bundleBrowserApp({ name: 'console', outDir: CONSOLE_BUILD_DIR });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = await buildConsole();
  console.log(`console built: ${manifest.js} (${(manifest.jsGzipBytes / 1024).toFixed(1)} KB gzipped), ${manifest.css}`);
}
