import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { HOSTED_BUILD_DIR, type BundleManifest } from '../src/http/bundle-assets.js';

/** One browser app of ours: a folder of src/web/ with main.ts, styles.css and its own tsconfig.json. */
export interface BrowserApp {
  /** Folder under src/web/ and prefix of the output names (`hosted`, `console`). */
  name: string;
  /** Where the bundle and its manifest go (emptied first). */
  outDir: string;
}

/** Bundles one browser app (TypeScript and CSS) with hashed names and a manifest its page reads. */
export async function bundleBrowserApp(app: BrowserApp): Promise<BundleManifest> {
  const source = (path: string) => fileURLToPath(new URL(`../src/web/${app.name}/${path}`, import.meta.url));
  const result = await build({
    entryPoints: { [app.name]: source('main.ts'), styles: source('styles.css') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'safari15', 'firefox100'],
    minify: true,
    write: false,
    outdir: app.outDir,
    tsconfig: source('tsconfig.json'),
    logLevel: 'warning',
  });
  rmSync(app.outDir, { recursive: true, force: true });
  mkdirSync(app.outDir, { recursive: true });
  const names: Record<string, string> = {};
  let jsGzipBytes = 0;
  for (const file of result.outputFiles) {
    const extension = file.path.endsWith('.css') ? 'css' : 'js';
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 12);
    const name = `${app.name}-${hash}.${extension}`;
    writeFileSync(`${app.outDir}${name}`, file.contents);
    names[extension] = name;
    if (extension === 'js') jsGzipBytes = gzipSync(file.contents).length;
  }
  const manifest: BundleManifest = { js: names.js, css: names.css, jsGzipBytes };
  writeFileSync(`${app.outDir}manifest.json`, JSON.stringify(manifest));
  return manifest;
}

/** Bundles src/web/hosted (TypeScript and CSS) into dist/hosted with hashed names and a manifest the page reads. */
export function buildHosted(): Promise<BundleManifest> {
  return bundleBrowserApp({ name: 'hosted', outDir: HOSTED_BUILD_DIR });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = await buildHosted();
  console.log(`hosted flow built: ${manifest.js} (${(manifest.jsGzipBytes / 1024).toFixed(1)} KB gzipped), ${manifest.css}`);
}
