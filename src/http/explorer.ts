import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';

/** Where scripts/build-explorer.ts writes the bundle (npm prestart runs it). */
const BUILD_DIR = new URL('../../dist/explorer/', import.meta.url);

/** URL prefix of the explorer's own assets; same origin, so the CSP can stay 'self'. */
export const EXPLORER_ASSET_PREFIX = '/graphql-explorer/';

// Only this server's assets. data: for fonts and icons, which GraphiQL's CSS embeds; 'self' on
// connect-src covers both fetch and the same-origin WebSocket (CSP Level 3).
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

// No inline script or style: everything comes from the two bundled files.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>GraphQL explorer</title>
    <link rel="stylesheet" href="${EXPLORER_ASSET_PREFIX}explorer.css" />
    <script type="module" src="${EXPLORER_ASSET_PREFIX}explorer.js"></script>
  </head>
  <body>
    <div id="explorer"></div>
  </body>
</html>
`;

const ASSETS = { 'explorer.js': 'text/javascript; charset=utf-8', 'explorer.css': 'text/css; charset=utf-8' } as const;

/** Serves GraphiQL at GET /graphql to browsers (Accept: text/html), replacing Apollo's landing page, which needs the internet. */
export function registerExplorer(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || request.routeOptions.url !== '/graphql') return;
    // A GET with a query is a GraphQL request, whatever the client accepts.
    if (typeof request.query === 'object' && request.query !== null && 'query' in request.query) return;
    if (!request.headers.accept?.includes('text/html')) return;
    return reply
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(PAGE);
  });
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`${EXPLORER_ASSET_PREFIX}${name}`, async (_request, reply) => {
      let body = cache.get(name);
      if (!body) {
        try {
          body = await readFile(new URL(name, BUILD_DIR));
        } catch {
          return reply.code(503).type('application/problem+json').send({
            type: 'https://errors.openkyc.dev/service_unavailable',
            title: 'Service unavailable',
            status: 503,
            detail: 'The GraphQL explorer is not built: run `npx tsx scripts/build-explorer.ts` (npm start does it).',
            code: 'service_unavailable',
          });
        }
        cache.set(name, body);
      }
      return reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache').type(type).send(body);
    });
  }
}
