import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Files that start no app and open no database: pure rules, engines on bytes, parsers. They run
 * without the global setup (`npx vitest run --project unit` takes seconds). A new file lands in
 * "api" unless it is listed here, so nothing is ever left out of `npm test`.
 */
const UNIT_FILES = [
  'test/domain/**/*.test.ts',
  'test/engines/aml/edit-index.test.ts',
  'test/engines/aml/importers.test.ts',
  'test/engines/aml/monitoring.test.ts',
  'test/engines/aml/normalize.test.ts',
  'test/engines/aml/score.test.ts',
  'test/engines/face.test.ts',
  'test/engines/nfc.test.ts',
  'test/engines/pad-model.test.ts',
  'test/engines/sandbox.test.ts',
  'test/engines/stored-details.test.ts',
  'test/foundation/config.test.ts',
  'test/hosted/quality.test.ts',
  'test/foundation/import-layers.test.ts',
  'test/foundation/raw-sql.test.ts',
  'test/id-verification/mrz-rules.test.ts',
  'test/id-verification/barcodes.test.ts',
  'test/poa/extraction.test.ts',
  'test/poa/photo.test.ts',
  'test/sessions/decision-model.test.ts',
  'test/webhooks/guard.test.ts',
];
/** Chromium with axe (test/browser/support.ts). */
const BROWSER_FILES = ['test/browser/**/*.test.ts'];
/** Accuracy on the public data of ../shared/realdata. */
const REALDATA_FILES = ['test/**/realdata.test.ts'];
/** What every project that starts the service needs: bundles built and a migrated template database. */
const WITH_SERVICE = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/database-per-file.ts'],
};

// `npm test` runs every project; `npx vitest run --project api` (unit, api, browser, realdata) one.
// API files start their own server on port 0 on a copy of one migrated database
// (test/support/database-template.ts): an in-memory PGlite loaded from a dump, or with
// DATABASE_URL a `CREATE DATABASE … TEMPLATE` copy on that server.
export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads its CommonJS build for packages in
    // node_modules, while Vite would pick the .mjs one for our sources — two realms, and
    // "Cannot use GraphQLSchema from another module". Point both at what Node loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // Synthetic documents render with vendored fonts only, whatever the machine has installed.
    env: { FONTCONFIG_FILE: fileURLToPath(new URL('./test/fixtures/fonts/fonts.conf', import.meta.url)) },
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['reflect-metadata'],
    // expect.poll waits for what a page or a receiver shows; its 1 s default fails a correct test
    // on a loaded 2-core CI machine. The limit only matters when the awaited thing never comes.
    expect: { poll: { timeout: 15_000 } },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT_FILES } },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT_FILES, ...BROWSER_FILES, ...REALDATA_FILES],
          ...WITH_SERVICE,
        },
      },
      { extends: true, test: { name: 'browser', include: BROWSER_FILES, ...WITH_SERVICE } },
      { extends: true, test: { name: 'realdata', include: REALDATA_FILES, ...WITH_SERVICE } },
    ],
  },
});
