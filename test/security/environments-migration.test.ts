/**
 * Migration20261123000100Environments on a database made before environments split everything:
 * rows bound to a session take its environment, a sandbox key's entries in a built-in list move to
 * the sandbox built-in list, and everything else (custom workflows, lists, destinations, test
 * deliveries, standalone checks) becomes live. Runs on a fresh database of its own: in-memory
 * PGlite, or with DATABASE_URL a scratch database on that server (dropped at the end).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { openScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

let database: Database;
let scratch: ScratchDatabase | undefined;

beforeAll(async () => {
  scratch = await openScratchDatabase('environments_migration', { migrate: false });
  database = scratch.database;
}, 60_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('environments migration', () => {
  it('given rows of a tenant made before the split, when migrating, then each is assigned as docs/api.md (Environments) says', async () => {
    await database.orm.migrator.up({ to: 'Migration20261122001300AmlRescreenRequests' });
    const em = database.orm.em.fork();
    const run = (sql: string, params: unknown[] = []) => em.execute(sql, params, 'run');
    const tenant = randomUUID();
    const [liveKey, sandboxKey] = [randomUUID(), randomUUID()];
    const [liveSession, sandboxSession] = [randomUUID(), randomUUID()];
    const [builtInList, customList] = [randomUUID(), randomUUID()];
    const [liveEntry, sandboxEntry, customSandboxEntry] = [randomUUID(), randomUUID(), randomUUID()];
    const destination = randomUUID();
    const [sessionDelivery, testDelivery] = [randomUUID(), randomUUID()];

    await run(`insert into tenant (id, name, callback_secret) values (?, 'old', 'whsec_x')`, [tenant]);
    await run(
      `insert into api_key (id, tenant_id, environment, prefix, key_hash) values (?, ?, 'live', 'l', ?), (?, ?, 'sandbox', 's', ?)`,
      [liveKey, tenant, randomUUID(), sandboxKey, tenant, randomUUID()],
    );
    await run(
      `insert into workflow (id, tenant_id, name, type, built_in, nodes, compliance_level)
       values (?, ?, 'custom', 'user', false, '[]', 'basic'), ('aml_only', null, 'AML only', 'user', true, '[]', 'basic')
       on conflict (id) do nothing`,
      [randomUUID(), tenant],
    );
    for (const [id, environment] of [
      [liveSession, 'live'],
      [sandboxSession, 'sandbox'],
    ] as const) {
      await run(
        `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, warnings, reasons, created_at, updated_at, expires_at)
         values (?, ?, ?, 'aml_only', ?, 'pending', '[]', '[]', now(), now(), now() + interval '1 day')`,
        [id, tenant, environment, `user-${environment}`],
      );
      await run(
        `insert into outbox_event (id, tenant_id, type, session_id, payload, created_at) values (?, ?, 'session.status_changed', ?, '{}', now())`,
        [randomUUID(), tenant, id],
      );
    }
    await run(
      `insert into list (id, tenant_id, name, type, policy, built_in) values (?, ?, 'Watched names', 'name', 'review', true), (?, ?, 'custom', 'name', 'review', false)`,
      [builtInList, tenant, customList, tenant],
    );
    await run(
      `insert into list_entry (id, list_id, tenant_id, entry_type, fingerprint, added_by, added_at)
       values (?, ?, ?, 'name', 'sha256:a', ?, now()), (?, ?, ?, 'name', 'sha256:b', ?, now()), (?, ?, ?, 'name', 'sha256:c', ?, now())`,
      [
        liveEntry,
        builtInList,
        tenant,
        `api_key:${liveKey}`,
        sandboxEntry,
        builtInList,
        tenant,
        `api_key:${sandboxKey}`,
        customSandboxEntry,
        customList,
        tenant,
        `api_key:${sandboxKey}`,
      ],
    );
    await run(
      `insert into webhook_destination (id, tenant_id, url, version, secret_encrypted) values (?, ?, 'https://example.com', 'v3', 'x')`,
      [destination, tenant],
    );
    await run(
      `insert into webhook_delivery (id, tenant_id, event_type, session_id, destination_id, target, body, status)
       values (?, ?, 'session.status_changed', ?, ?, ?, '{}', 'succeeded'), (?, ?, 'webhook.test', null, ?, ?, '{}', 'succeeded')`,
      [sessionDelivery, tenant, sandboxSession, destination, destination, testDelivery, tenant, destination, `${destination}-test`],
    );
    await run(
      `insert into webhook_attempt (id, delivery_id, tenant_id, attempted_at, status, duration_ms) values (?, ?, ?, now(), 'succeeded', 1)`,
      [randomUUID(), sessionDelivery, tenant],
    );
    await run(`insert into check_run (id, tenant_id, kind, status, result) values (?, ?, 'aml', 'passed', '{}')`, [randomUUID(), tenant]);

    await database.orm.migrator.up();

    const one = async (sql: string, params: unknown[]) => (await em.execute<Record<string, unknown>[]>(sql, params, 'all'))[0];
    expect(await one('select environment from workflow where tenant_id = ?', [tenant])).toEqual({ environment: 'live' });
    expect(await em.execute('select environment from workflow where built_in group by environment', [], 'all')).toEqual([
      { environment: null },
    ]);
    expect(await one('select environment from webhook_destination where id = ?', [destination])).toEqual({ environment: 'live' });
    expect(await one('select environment from webhook_delivery where id = ?', [sessionDelivery])).toEqual({ environment: 'sandbox' });
    expect(await one('select environment from webhook_delivery where id = ?', [testDelivery])).toEqual({ environment: 'live' });
    expect(await one('select environment from webhook_attempt where delivery_id = ?', [sessionDelivery])).toEqual({
      environment: 'sandbox',
    });
    expect(await one('select environment from check_run where tenant_id = ?', [tenant])).toEqual({ environment: 'live' });
    expect(
      await em.execute(
        'select o.environment, s.environment as session from outbox_event o join session s on s.id = o.session_id',
        [],
        'all',
      ),
    ).toEqual(
      expect.arrayContaining([
        { environment: 'live', session: 'live' },
        { environment: 'sandbox', session: 'sandbox' },
      ]),
    );

    // The live key's entry stays in the live built-in list; the sandbox key's moves to a new sandbox built-in list.
    const entries = await em.execute<{ id: string; environment: string; built_in: boolean; list_environment: string; list_id: string }[]>(
      `select e.id, e.environment, l.built_in, l.environment as list_environment, l.id as list_id
         from list_entry e join list l on l.id = e.list_id where e.tenant_id = ?`,
      [tenant],
      'all',
    );
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    expect(byId.get(liveEntry)).toMatchObject({ environment: 'live', list_environment: 'live', list_id: builtInList });
    expect(byId.get(sandboxEntry)).toMatchObject({ environment: 'sandbox', list_environment: 'sandbox', built_in: true });
    expect(byId.get(sandboxEntry)!.list_id).not.toBe(builtInList);
    // A custom list is one object: its entries stay with it, in its environment.
    expect(byId.get(customSandboxEntry)).toMatchObject({ environment: 'live', list_id: customList });
    expect(
      await em.execute(
        'select environment, count(*)::int as n from list where tenant_id = ? group by environment order by 1',
        [tenant],
        'all',
      ),
    ).toEqual([
      { environment: 'live', n: 2 },
      { environment: 'sandbox', n: 1 },
    ]);
  });
});
