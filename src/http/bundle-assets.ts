import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Where the hosted flow's bundle goes: generated at install/start and before tests, never committed. */
export const HOSTED_BUILD_DIR = fileURLToPath(new URL('../../dist/hosted/', import.meta.url));

/** Where the console's bundle goes: generated at start and before tests, never committed. */
export const CONSOLE_BUILD_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/** What a build wrote: file names (content-hashed, so they can be cached forever) and the JavaScript's gzipped size. */
export interface BundleManifest {
  js: string;
  css: string;
  jsGzipBytes: number;
}

/** Reads the manifest of a browser app's last build, or null when it was never built. */
export function readManifest(outDir: string): BundleManifest | null {
  try {
    return JSON.parse(readFileSync(`${outDir}manifest.json`, 'utf8')) as BundleManifest;
  } catch {
    return null;
  }
}

/** The manifest of the hosted flow's last build, or null when it was never built. */
export function readHostedManifest(): BundleManifest | null {
  return readManifest(HOSTED_BUILD_DIR);
}

/** The manifest of the console's last build, or null when it was never built. */
export function readConsoleManifest(): BundleManifest | null {
  return readManifest(CONSOLE_BUILD_DIR);
}

/**
 * Serves a browser app's bundled script and stylesheet (the hosted flow's, the console's) under
 * `prefix`: only the content-hashed names its current manifest lists, cached for a year, gzipped
 * once when first asked for (the flow is sized for phones on slow networks).
 */
export function registerBundleAssets(
  app: FastifyInstance,
  prefix: string,
  buildDir: string,
  readManifest: () => BundleManifest | null,
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
