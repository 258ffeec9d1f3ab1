/**
 * Setup file of the projects whose tests reach a database: on a PostgreSQL server run, this test
 * file works on its own copy of the migrated template (test/support/database-template.ts), and
 * DATABASE_URL points there for everything the file starts (apps, child processes, raw clients).
 * Embedded runs need nothing here: every in-memory PGlite is a database of its own already.
 */
import { afterAll, inject } from 'vitest';
import { createServerDatabase } from './database-template.js';

const template = inject('serverTemplateUrl');
if (template) {
  const copy = await createServerDatabase(template, `${new URL(template).pathname.slice(1)}_f`, { fromTemplate: true });
  process.env.DATABASE_URL = copy.url;
  // Registered before the file's own hooks, so it runs after them: the file's apps close first.
  afterAll(() => copy.drop());
}
