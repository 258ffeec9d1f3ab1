import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { getConstructionPlans } from 'pg-boss';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { buildConsole } from '../../scripts/build-console.js';
import { buildHosted } from '../../scripts/build-hosted.js';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase } from '../../src/db/database.js';
import { startEmbeddedDatabase } from '../../src/db/embedded.js';
import { createOrm, migrate } from '../../src/db/orm.js';
import { JOBS_SCHEMA } from '../../src/db/jobs-schema.js';
import type {} from './database-template.js';

/** What one run prepares once, whichever projects (api, browser, realdata) ask for it. */
interface Prepared {
  pgliteTemplatePath: string | null;
  serverTemplateUrl: string | null;
  /** Removes what the run left in the temporary directory. */
  cleanUp(): Promise<void>;
}

// Each project that lists this file calls it; the first call does the work and the others share it
// (global setups all run in vitest's main process).
const shared = globalThis as { idvTestRun?: Promise<Prepared> };

/**
 * Migrates the template and installs pg-boss's tables in it, which every app's job runner would
 * otherwise create again on each copy (its start finds them and skips the install).
 */
async function prepareTemplate(orm: MikroORM, options: { onServer: boolean }): Promise<void> {
  // On a server the connections carry statement and lock timeouts (src/db/database.ts); migrations are exempt.
  await migrate(orm, { liftTimeouts: options.onServer });
  // A server database reused from an earlier run has them already (their install is no upsert);
  // an older pg-boss's tables are brought up to date by the job runner's own start.
  const installed = await orm.em
    .getConnection()
    .execute<{ found: number }[]>('select 1 as found from information_schema.schemata where schema_name = ?', [JOBS_SCHEMA]);
  if (installed.length === 0) await orm.em.getConnection().execute(getConstructionPlans(JOBS_SCHEMA));
}

/**
 * Drops the per-file copies of the template (test/support/database-per-file.ts) that a file
 * killed mid-run could not drop itself, so a CI server does not fill up with them.
 */
async function dropLeftCopies(templateUrl: string): Promise<void> {
  const admin = new URL(templateUrl);
  const template = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where starts_with(datname, $1)', [
      `${template}_f_`,
    ]);
    for (const { datname } of rows) await client.query(`drop database if exists ${pg.escapeIdentifier(datname)} with (force)`);
  } finally {
    await client.end();
  }
}

/** Builds the browser bundles and the migrated template database (test/support/database-template.ts). */
async function prepare(): Promise<Prepared> {
  // The hosted flow's page and the console serve these builds (npm start builds them in prestart).
  await buildHosted();
  await buildConsole();
  const logger = pino({ level: 'silent' });
  if (process.env.DATABASE_URL) {
    // Migrated once; from here on it is only the template each test file copies.
    const database = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), logger, { migrate: false });
    try {
      await prepareTemplate(database.orm, { onServer: true });
    } finally {
      await database.close();
    }
    const serverTemplateUrl = process.env.DATABASE_URL;
    return { pgliteTemplatePath: null, serverTemplateUrl, cleanUp: () => dropLeftCopies(serverTemplateUrl) };
  }
  const embedded = await startEmbeddedDatabase('memory');
  try {
    const orm = await createOrm({ url: embedded.url, logger, poolMax: 1 });
    await prepareTemplate(orm, { onServer: false });
    await orm.close(true);
    const directory = await mkdtemp(join(tmpdir(), 'idv-test-template-'));
    const path = join(directory, 'pglite-migrated.tar');
    await writeFile(path, Buffer.from(await (await embedded.dump()).arrayBuffer()));
    return { pgliteTemplatePath: path, serverTemplateUrl: null, cleanUp: () => rm(directory, { recursive: true, force: true }) };
  } finally {
    await embedded.close();
  }
}

/** Global setup of the projects that start the service: prepares once, hands the template to the files. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.idvTestRun ??= prepare();
  const prepared = await shared.idvTestRun;
  project.provide('pgliteTemplatePath', prepared.pgliteTemplatePath);
  project.provide('serverTemplateUrl', prepared.serverTemplateUrl);
  return async () => {
    // Teardowns run after every file of every project, so the first one may remove the template.
    await prepared.cleanUp();
  };
}
