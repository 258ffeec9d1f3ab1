/**
 * The layers of docs/design.md ("Layers"), checked over the source tree: a module may import its
 * own layer and the ones below, never one above; runtime code never imports `scripts/`; each
 * browser app (src/web/) imports only itself, the strings the apps share and src/domain/'s pure
 * rules and data, and the server imports nothing of src/web/.
 *
 * The import graph comes from dependency-cruiser (TypeScript's own resolution, type-only imports
 * included: a type import still says what a module knows). Today's violations are listed in
 * ALLOWED, each with why it is there, so this test passes now and every new one fails. When a
 * move removes one, the test fails until its entry is deleted too, so the list only shrinks.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/** Bottom to top; a module may import its own layer and those below. */
const LAYERS: { name: string; paths: RegExp }[] = [
  {
    name: 'base: domain rules, tables, shared leaf helpers and telemetry',
    paths: /^(src\/domain\/|src\/shared\/|src\/observability\/|src\/metrics\/|entities\/)/,
  },
  { name: 'infrastructure: database and credentials', paths: /^src\/(db|auth)\// },
  { name: 'engines', paths: /^src\/engines\// },
  {
    name: 'features',
    paths:
      /^(src\/(checks|sessions|events|webhooks|lists|sharing|tenants|operators|evidence|workflows|dashboard|limits|jobs|duplicates|reasons)\/|src\/services\.ts$)/,
  },
  { name: 'API: GraphQL, REST and HTTP', paths: /^(resolvers\/|src\/(graphql|rest|http)\/)/ },
  { name: 'entry points', paths: /^(src\/bin\/|src\/app\.ts$)/ },
];

/** The browser apps, one folder each under src/web/: bundled for the browser, they share no module with the server. */
const BROWSER_APP = /^src\/web\/(?!shared\/)[^/]+\//;

/** What every browser app may import besides itself: the strings they share, and the server's pure rules and data (the reasons catalogue). */
const BROWSER_SHARED = /^src\/(web\/shared|domain)\//;

/** Browser code: the apps and the strings they share, which the server never imports. */
const BROWSER = /^src\/web\//;

/** Run-time code: what `npm start` loads. `scripts/` builds and generates; it may import this, never the reverse. */
const RUNTIME = /^(src|resolvers|entities)\//;

/**
 * Today's violations, `from -> to`. Each should go when the module moves where the issue's
 * target layout puts it (docs/design.md, "Layers"); none may be added.
 */
const ALLOWED = new Set<string>([]);

/**
 * File names more than one server module may carry because each does the same job for another
 * subject: an engine's entry (`src/engines/<engine>/engine.ts`) and a folder's index.
 */
const SHARED_FILE_NAMES = new Set(['engine.ts', 'index.ts']);

/** The server's TypeScript modules under `src/` (the browser apps and generated code left out), by file name. */
function serverModulesByName(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const entry of readdirSync('src', { recursive: true, withFileTypes: true })) {
    const path = `${entry.parentPath}/${entry.name}`;
    if (!entry.isFile() || !entry.name.endsWith('.ts') || /^src\/web\/|\/generated\//.test(path)) continue;
    byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
  }
  return byName;
}

/** The layer index of a path, or undefined outside the layered tree. */
function layerOf(path: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.paths.test(path));
  return index === -1 ? undefined : index;
}

/** Why an import breaks a rule, or null when it is fine. */
function violation(from: string, to: string): string | null {
  if (RUNTIME.test(from) && to.startsWith('scripts/')) return 'runtime code imports scripts/';
  if (BROWSER.test(from)) {
    const fromApp = BROWSER_APP.exec(from)?.[0];
    if (!(fromApp && to.startsWith(fromApp)) && !BROWSER_SHARED.test(to)) return 'crosses a browser app boundary';
    return null;
  }
  if (BROWSER.test(to)) return 'crosses a browser app boundary';
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer) {
    return `${LAYERS[fromLayer]!.name} imports ${LAYERS[toLayer]!.name}`;
  }
  return null;
}

/** Every import between our own modules, as `from -> to`, with the rule it breaks. */
async function violations(): Promise<Map<string, string>> {
  const result = await cruise(['src', 'resolvers', 'entities'], {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Migrations and generated code import nothing of the layers above; they only slow the walk.
    exclude: { path: '^src/db/migrations/|/generated/' },
  });
  const output = result.output as ICruiseResult;
  const found = new Map<string, string>();
  for (const module of output.modules) {
    for (const dependency of module.dependencies) {
      if (dependency.coreModule || dependency.couldNotResolve || dependency.resolved.includes('node_modules')) continue;
      const why = violation(module.source, dependency.resolved);
      if (why) found.set(`${module.source} -> ${dependency.resolved}`, why);
    }
  }
  return found;
}

describe('import layers', () => {
  it(
    'given the source tree, when its imports are read, then no lower layer imports a higher one beyond the listed ones, and every listed one still exists',
    { timeout: 120_000 },
    async () => {
      const found = await violations();

      const unlisted = [...found].filter(([edge]) => !ALLOWED.has(edge)).map(([edge, why]) => `${edge} (${why})`);
      const gone = [...ALLOWED].filter((edge) => !found.has(edge));
      expect(unlisted, 'new imports against the layers of docs/design.md').toEqual([]);
      expect(gone, 'fixed: delete these from ALLOWED').toEqual([]);
    },
  );

  it('given the server modules, when their file names are listed, then no two share a name unless they do the same job for different subjects', () => {
    const shared = [...serverModulesByName()].filter(([name, paths]) => paths.length > 1 && !SHARED_FILE_NAMES.has(name));

    expect(serverModulesByName().get('run-check.ts')).toEqual(['src/checks/run-check.ts']);
    expect(shared, 'modules with one name for different jobs').toEqual([]);
  });

  it('given the rules, when applied to sample imports, then each kind of breach is caught and an import downwards passes', () => {
    expect(violation('src/domain/verdict.ts', 'src/sessions/decide.ts')).toMatch(/^base.*imports features$/);
    expect(violation('src/engines/registry.ts', 'resolvers/session.resolver.ts')).toMatch(/^engines imports API/);
    expect(violation('src/http/fastify-server.ts', 'scripts/build-hosted.ts')).toBe('runtime code imports scripts/');
    expect(violation('src/web/hosted/app.ts', 'src/sessions/decide.ts')).toBe('crosses a browser app boundary');
    expect(violation('src/web/console/retake.ts', 'src/web/hosted/flow.ts')).toBe('crosses a browser app boundary');
    expect(violation('src/sessions/decide.ts', 'src/web/console/main.ts')).toBe('crosses a browser app boundary');
    expect(violation('src/sessions/decide.ts', 'src/web/shared/i18n.ts')).toBe('crosses a browser app boundary');
    expect(violation('src/web/console/retake.ts', 'src/web/shared/i18n.ts')).toBeNull();
    expect(violation('src/web/hosted/main.ts', 'src/domain/reasons.ts')).toBeNull();
    expect(violation('src/web/hosted/main.ts', 'src/web/hosted/flow.ts')).toBeNull();
    expect(violation('src/sessions/decide.ts', 'src/domain/verdict.ts')).toBeNull();
    expect(violation('src/bin/server.ts', 'src/app.ts')).toBeNull();
    expect(violation('scripts/build-hosted.ts', 'src/shared/config.ts')).toBeNull();
  });
});
