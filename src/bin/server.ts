/**
 * `npm start`: runs the service. With no DATABASE_URL it starts the embedded PostgreSQL (PGlite)
 * in ./.data/pglite. SIGTERM and SIGINT drain HTTP and sockets, then close the database.
 */
import { startApp } from '../app.js';
import { ConfigError, loadConfig } from '../shared/config.js';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const app = await startApp(config);
const base = config.PUBLIC_URL ?? app.url;
const lines = [
  '',
  `  Identity verification service listening on ${app.url}`,
  `  GraphQL (HTTP + WebSocket): ${base}/graphql`,
  `  REST:                       ${base}/v1`,
  `  OpenAPI:                    ${base}/v1/openapi.json`,
  `  Health / readiness:         ${base}/healthz  ${base}/readyz`,
  `  Database:                   ${app.database.embedded ? `embedded PGlite (${config.PGLITE_DATA_DIR})` : 'PostgreSQL server (DATABASE_URL)'}`,
];
if (app.demo) {
  lines.push(
    '',
    `  Demo tenant created: ${app.demo.tenantId}`,
    `  Sandbox API key (shown once): ${app.demo.sandboxKey.key}`,
    `  Live API key (shown once):    ${app.demo.liveKey.key}`,
    '',
    `  Try: curl -H 'x-api-key: ${app.demo.sandboxKey.key}' ${base}/v1/workflows`,
  );
} else {
  lines.push('', '  Issue a key with: npm run cli -- key:issue <tenant-id> --env sandbox');
}
console.log(lines.join('\n') + '\n');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
