import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CONSOLE_BUILD_DIR, readConsoleManifest, registerBundleAssets, type BundleManifest } from './bundle-assets.js';

/** URL prefix of the console's own scripts and styles (content-hashed names, cached for a year). */
export const CONSOLE_ASSET_PREFIX = '/console/assets/';

/**
 * The console's Content-Security-Policy: its one script by nonce, its own styles, images from
 * itself or data: URIs, API calls (HTTP and graphql-ws) to itself only, never framed (a framed
 * console could be clickjacked into a decision), no forms posted anywhere.
 */
export function consolePagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The shell the console renders into. */
function shell(manifest: BundleManifest, nonce: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>openkyc console</title>
    <link rel="stylesheet" href="${CONSOLE_ASSET_PREFIX}${manifest.css}" />
    <script type="module" nonce="${nonce}" src="${CONSOLE_ASSET_PREFIX}${manifest.js}"></script>
  </head>
  <body>
    <div id="app" data-screen="loading"><p>Loading…</p></div>
    <div id="announcer" class="visually-hidden" role="status" aria-live="polite"></div>
    <noscript><p>The console needs JavaScript.</p></noscript>
  </body>
</html>
`;
}

/** The console at `/console`: the app shell with strict headers, and its bundled assets. Screens are addressed in the fragment. */
export function registerConsolePage(app: FastifyInstance): void {
  app.get('/console', async (_request, reply) => {
    const manifest = readConsoleManifest();
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    if (!manifest)
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build:console` (npm start does it).');
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header('content-security-policy', consolePagePolicy(nonce))
      .header('x-frame-options', 'DENY')
      .header('permissions-policy', 'camera=(), microphone=(), geolocation=()')
      .type('text/html; charset=utf-8')
      .send(shell(manifest, nonce));
  });
  registerBundleAssets(app, CONSOLE_ASSET_PREFIX, CONSOLE_BUILD_DIR, readConsoleManifest);
}
