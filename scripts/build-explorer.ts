import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Where the bundle goes: generated at install/start, never committed. */
export const EXPLORER_BUILD_DIR = fileURLToPath(new URL('../dist/explorer/', import.meta.url));

/** Bundles explorer/app.js (GraphiQL, React, graphql-ws) into dist/explorer/explorer.{js,css}, so GET /graphql works offline. */
export async function buildExplorer(): Promise<void> {
  await build({
    entryPoints: { explorer: fileURLToPath(new URL('../explorer/app.js', import.meta.url)) },
    outdir: EXPLORER_BUILD_DIR,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    // Fonts and icons stay inside the CSS as data: URIs, so the page loads nothing from elsewhere.
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildExplorer();
