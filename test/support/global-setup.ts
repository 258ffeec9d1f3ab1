import pino from 'pino';
import { buildConsole } from '../../scripts/build-console.js';
import { buildHosted } from '../../scripts/build-hosted.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';

/**
 * With DATABASE_URL set, migrate that database once before any test file runs, so parallel
 * files never race to migrate. Embedded runs need nothing: each file has its own database.
 */
export default async function setup(): Promise<void> {
  // The hosted flow's page and the console serve these builds (npm start builds them in prestart).
  await buildHosted();
  await buildConsole();
  if (!process.env.DATABASE_URL) return;
  const database = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }), { migrate: true });
  await database.close();
}
