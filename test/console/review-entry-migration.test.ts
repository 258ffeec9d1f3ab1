/**
 * Migration20261127000100H25ReviewEntry on a database made before it: a session in review takes
 * the time of its last recorded move into review (so its SLA age stays what the trail says), one
 * in review with no trail its last update, a decided session that went through review its entry
 * too, and a session never in review stays without one. Runs on a fresh database of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { openScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

let database: Database;
let scratch: ScratchDatabase | undefined;

beforeAll(async () => {
  scratch = await openScratchDatabase('review_entry_migration', { migrate: false });
  database = scratch.database;
}, 60_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('review entry migration', () => {
  it('given sessions made before the column, when migrating, then each gets its entry into review from the status trail', async () => {
    await database.orm.migrator.up({ to: 'Migration20261126210000H27Flows' });
    const em = database.orm.em.fork();
    const run = (sql: string, params: unknown[] = []) => em.execute(sql, params, 'run');
    const tenant = randomUUID();
    const [withTrail, noTrail, decided, never] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await run(`insert into tenant (id, name, callback_secret) values (?, 'old', 'whsec_x')`, [tenant]);
    await run(
      `insert into workflow (id, tenant_id, name, type, built_in, nodes, compliance_level)
       values ('aml_only', null, 'AML only', 'user', true, '[]', 'basic') on conflict (id) do nothing`,
    );
    for (const [id, status] of [
      [withTrail, 'in_review'],
      [noTrail, 'in_review'],
      [decided, 'approved'],
      [never, 'in_progress'],
    ] as const)
      await run(
        `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, warnings, reasons, created_at, updated_at, expires_at)
         values (?, ?, 'sandbox', 'aml_only', ?, ?, '[]', '[]', now() - interval '10 days', now() - interval '1 hour', now() + interval '1 day')`,
        [id, tenant, `user-${id}`, status],
      );
    const change = (id: string, to: string, ago: string) =>
      run(
        `insert into session_status_change (id, session_id, tenant_id, from_status, to_status, actor, created_at)
         values (?, ?, ?, 'in_progress', ?, 'decision_engine', now() - ?::interval)`,
        [randomUUID(), id, tenant, to, ago],
      );
    await change(withTrail, 'in_review', '5 days');
    await change(withTrail, 'in_review', '2 days');
    await change(decided, 'in_review', '4 days');

    await database.orm.migrator.up();

    const rows = await em.execute<{ id: string; days: number | null }[]>(
      `select id, round(extract(epoch from now() - review_entered_at) / 86400)::int as days,
              round(extract(epoch from now() - review_entered_at) / 3600)::int as hours
         from session where tenant_id = ?`,
      [tenant],
    );
    const of = (id: string) => rows.find((row) => row.id === id) as { days: number | null; hours: number | null } | undefined;
    expect(of(withTrail)?.days).toBe(2);
    expect(of(noTrail)?.hours).toBe(1);
    expect(of(decided)?.days).toBe(4);
    expect(of(never)?.days).toBeNull();
  });
});
