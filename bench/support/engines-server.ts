/**
 * Child process of bench/engines.ts: starts the service with the engine execution of its
 * environment (ENGINE_EXECUTION, ENGINE_POOL_SIZE), creates a tenant with a live key and a face
 * list, prints `{url, key, faceListId, execution}` as one JSON line, then serves until SIGTERM.
 * Apart from the load generator, so that measuring latency does not steal the server's loop.
 */
import pino from 'pino';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';
import { createTenant, issueApiKey } from '../../src/tenants/tenant.service.js';

const config = loadConfig({
  ...process.env,
  PORT: '0',
  PGLITE_DATA_DIR: process.env.DATABASE_URL ? './.data/unused' : 'memory',
  SEED_DEMO_TENANT: 'false',
  // The benches measure the service's own work; a single bench key would meet the per-key limit at once.
  RATE_LIMIT_ENABLED: 'false',
  LOG_LEVEL: 'silent',
  JOBS_ENABLED: 'false',
  EMITTER_IN_PROCESS: 'false',
  MASTER_KEY: process.env.MASTER_KEY ?? 'bench-master-key-not-for-production-000000',
});
const app = await startApp(config, { logger: pino({ level: 'silent' }) });
const em = app.orm.em.fork();
const tenant = await createTenant(em, `bench-engines-${process.pid}`);
const { key } = await issueApiKey(em, tenant.id, 'live');
const list = await fetch(`${app.url}/v1/lists`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify({ name: 'bench faces', type: 'face' }),
});
const listBody = (await list.json()) as { uuid: string };
console.log(JSON.stringify({ url: app.url, key, faceListId: listBody.uuid, execution: app.engines.executor.mode }));

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void app.close().then(() => process.exit(0));
});
