/**
 * A server process for the cross-instance test: starts the app on a free port against
 * DATABASE_URL and prints `{"url": ...}` as one JSON line on stdout, then `{"subscribers": n}`
 * whenever its subscription count changes (the test's barrier). It stops when its stdin
 * closes (the test ended or died) or on SIGTERM, so no instance outlives the test.
 */
import pino from 'pino';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';

const app = await startApp(
  loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO_TENANT: 'false',
    MIGRATE_ON_START: 'false',
    JOBS_ENABLED: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  }),
  { logger: pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2)) },
);
process.stdout.write(`${JSON.stringify({ url: app.url })}\n`);
app.services.live.on('subscribers', (count) => process.stdout.write(`${JSON.stringify({ subscribers: count })}\n`));

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
