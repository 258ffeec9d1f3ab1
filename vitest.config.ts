import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Each test file starts its own server on port 0 (and, in embedded mode, its own in-memory
// PGlite); with DATABASE_URL set, the global setup migrates that database once.
export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads its CommonJS build for packages in
    // node_modules, while Vite would pick the .mjs one for our sources — two realms, and
    // "Cannot use GraphQLSchema from another module". Point both at what Node loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Synthetic documents render with vendored fonts only, whatever the machine has installed.
    env: { FONTCONFIG_FILE: fileURLToPath(new URL('./test/fixtures/fonts/fonts.conf', import.meta.url)) },
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['reflect-metadata'],
    // expect.poll waits for what a page or a receiver shows; its 1 s default fails a correct test
    // on a loaded 2-core CI machine. The limit only matters when the awaited thing never comes.
    expect: { poll: { timeout: 15_000 } },
  },
});
