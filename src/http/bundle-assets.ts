import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { HostedManifest } from '../../scripts/build-hosted.js';

/**
 * Serves a browser app's bundled script and stylesheet (the hosted flow's, the console's) under
 * `prefix`: only the content-hashed names its current manifest lists, cached for a year, gzipped
 * once when first asked for (the flow is sized for phones on slow networks).
 */
export function registerBundleAssets(
  app: FastifyInstance,
  prefix: string,
  buildDir: string,
  readManifest: () => HostedManifest | null,
): void {
  const assets = new Map<string, { plain: Buffer; gzip: Buffer }>();
  app.get<{ Params: { name: string } }>(`${prefix}:name`, async (request, reply) => {
    const manifest = readManifest();
    const name = request.params.name;
    if (!manifest || (name !== manifest.js && name !== manifest.css)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    let asset = assets.get(name);
    if (!asset) {
      const plain = await readFile(`${buildDir}${name}`);
      asset = { plain, gzip: gzipSync(plain, { level: 9 }) };
      assets.set(name, asset);
    }
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply
      .header('vary', 'accept-encoding')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type(name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8')
      .send(gzip ? asset.gzip : asset.plain);
  });
}
