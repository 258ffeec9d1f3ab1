import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HOSTED_BUILD_DIR, readHostedManifest, registerBundleAssets, type BundleManifest } from './bundle-assets.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SessionSchema } from '../../entities/session.entity.js';
import { ApiError } from '../shared/errors.js';
import { isUuid } from '../shared/input-rules.js';
import type { Services } from '../services.js';
import { loadSession } from '../sessions/read.js';
import { flowSettingsFor } from '../tenants/flow-settings.service.js';

/** URL prefix of the flow's own scripts and styles (content-hashed names, cached for a year). */
export const HOSTED_ASSET_PREFIX = '/verify/assets/';

/**
 * The Content-Security-Policy of the page: its one script by nonce (no inline script anywhere),
 * its own styles, images from itself or data:/blob: (photos taken in the browser, the logo), API
 * calls to itself only, and embedding only by the tenant's allowed origins.
 */
export function hostedPagePolicy(nonce: string, embedOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${embedOrigins.length > 0 ? embedOrigins.join(' ') : "'none'"}`,
  ].join('; ');
}

/** The shell the app renders into: no data of the session, which the app reads with the token. */
function shell(manifest: BundleManifest, nonce: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Identity verification</title>
    <link rel="stylesheet" href="${HOSTED_ASSET_PREFIX}${manifest.css}" />
    <script type="module" nonce="${nonce}" src="${HOSTED_ASSET_PREFIX}${manifest.js}"></script>
  </head>
  <body>
    <main id="app" data-screen="loading" aria-busy="false"><p>Loading…</p></main>
    <div id="announcer" class="visually-hidden" role="status" aria-live="polite"></div>
    <noscript><p>This page needs JavaScript to take the photos of your verification.</p></noscript>
  </body>
</html>
`;
}

/**
 * The hosted verification flow at a session's `url` (`/verify/{id}?token=…`): the app shell with
 * strict security headers, and the flow's bundled assets. The tenant's embedding origins are
 * looked up by the session id alone, so a reload inside an iframe (the app has taken the token out
 * of the address bar by then) keeps its `frame-ancestors`.
 */
export function registerHostedPage(app: FastifyInstance, orm: MikroORM, services: Services): void {
  app.get<{ Params: { session_id: string }; Querystring: { token?: unknown } }>('/verify/:session_id', async (request, reply) => {
    const manifest = readHostedManifest();
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    if (!manifest) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The verification page is not built: run `npm run build:hosted` (npm start does it).');
    }
    let embedOrigins: string[] = [];
    let found = false as boolean;
    if (isUuid(request.params.session_id)) {
      const em = orm.em.fork();
      // Kept out of the identity map: loadSession reads the whole session with the same `em`.
      const session = await em.findOne(
        SessionSchema,
        { id: request.params.session_id },
        { fields: ['tenant', 'environment'], disableIdentityMap: true },
      );
      // A link's token, when the address still carries it, is checked now: a wrong or expired one
      // is a 404 (the app then says the link is not valid); the reload after the app took it out
      // of the address bar has none, and the app uses the one it kept.
      const token = request.query.token;
      if (session && typeof token === 'string') {
        found = true;
        try {
          await loadSession(em, services, { kind: 'end_user', token }, request.params.session_id);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          found = false;
        }
      } else found = session !== null;
      if (session && found) {
        embedOrigins = (await flowSettingsFor(em, { tenantId: session.tenant.id, environment: session.environment })).allowedEmbedOrigins;
      }
    }
    const nonce = randomBytes(16).toString('base64');
    const camera = ['self', ...embedOrigins.map((origin) => `"${origin}"`)].join(' ');
    return reply
      .code(found ? 200 : 404)
      .header('content-security-policy', hostedPagePolicy(nonce, embedOrigins))
      .header('permissions-policy', `camera=(${camera}), microphone=(), geolocation=()`)
      .type('text/html; charset=utf-8')
      .send(shell(manifest, nonce));
  });
  registerBundleAssets(app, HOSTED_ASSET_PREFIX, HOSTED_BUILD_DIR, readHostedManifest);
}
