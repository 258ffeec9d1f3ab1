import { randomUUID } from 'node:crypto';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { TestApp } from '../support/app.js';
import { gql, SUBMIT_AML, tokenOf } from '../sessions/support.js';

/**
 * Rows for the dashboard connections (test/console/connections*.test.ts). A few objects are made
 * through the API, so they are real; the many rows a page test needs are written in one SQL
 * statement each (`generate_series`), one second apart and older than now, so a test file stays fast.
 */

/** What one tenant has in one environment after {@link seedScope}. */
export interface SeededScope {
  tenantId: string;
  environment: ApiKeyEnvironment;
  /** Sessions through the API: approved, in review, pending (newest last). */
  approvedSessionId: string;
  inReviewSessionId: string;
  pendingSessionId: string;
  /** The session with `rows` status changes and `rows` notes. */
  busySessionId: string;
  listId: string;
  destinationId: string;
}

/** A sandbox or live session of `key` on `aml_only`, driven by the AML step's name (`Sandbox Pep` reviews, a clear name approves). */
export async function amlSession(testApp: TestApp, key: string, fullName: string | null): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `dash-${randomUUID()}` },
  });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  if (fullName !== null) {
    const submitted = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_AML, {
      sessionId: created.body.session_id,
      input: { fullName, country: 'GB' },
    });
    if (submitted.body.errors) throw new Error(`submit failed: ${JSON.stringify(submitted.body)}`);
  }
  return created.body.session_id as string;
}

/**
 * Gives a tenant, in one environment, `rows` of everything the dashboard connections list:
 * sessions (in review, besides the three made through the API), status changes and notes of one
 * session, entries of one list, webhook destinations, deliveries (each with an attempt) and API
 * keys; and `rows` operators of the tenant. `key` is the tenant's key of that environment.
 */
export async function seedScope(
  testApp: TestApp,
  tenantId: string,
  environment: ApiKeyEnvironment,
  key: string,
  rows: number,
): Promise<SeededScope> {
  const em = testApp.app.orm.em.fork();
  const list = await testApp.rest('POST', '/v1/lists', { key, body: { name: `dash-${randomUUID()}`, type: 'name' } });
  const destinationId = randomUUID();
  const busySessionId = await amlSession(testApp, key, null);
  const [tenant, env] = [tenantId, environment];
  // Millisecond precision, as the service writes timestamps (cursors carry milliseconds, src/shared/pagination.ts).
  const ago = `date_trunc('milliseconds', now()) - (i || ' seconds')::interval - interval '1 hour'`;
  await em.execute(
    `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, metadata, warnings, reasons, created_at, updated_at, expires_at)
     select gen_random_uuid(), ?, ?, 'aml_only', 'dash-bulk-' || i, 'in_review', null, '[]', '[]', ${ago}, ${ago}, now() + interval '1 day'
       from generate_series(1, ?) i`,
    [tenant, env, rows],
  );
  await em.execute(
    `insert into session_status_change (id, session_id, tenant_id, from_status, to_status, actor, actor_name, reason, created_at)
     select gen_random_uuid(), ?, ?, 'in_progress', 'in_review', 'reviewer', 'Reviewer ' || i, 'step ' || i, ${ago} from generate_series(1, ?) i`,
    [busySessionId, tenant, rows],
  );
  await em.execute(
    `insert into session_note (id, session_id, tenant_id, author_operator_id, author_key_id, author_name, body, created_at)
     select gen_random_uuid(), ?, ?, null, null, 'Reviewer ' || i, 'note ' || i, ${ago} from generate_series(1, ?) i`,
    [busySessionId, tenant, rows],
  );
  await em.execute(
    `insert into list_entry (id, list_id, tenant_id, environment, entry_type, fingerprint, reason, added_by, added_at)
     select gen_random_uuid(), ?, ?, ?, 'name', 'sha256:' || md5(? || i), 'bulk', 'api_key:test', ${ago} from generate_series(1, ?) i`,
    [list.body.uuid, tenant, env, destinationId, rows],
  );
  // Inactive: on a shared server database another test file's emitter would fan this scope's events out to active ones.
  await em.execute(
    `insert into webhook_destination (id, tenant_id, environment, url, version, events, active, secret_encrypted, created_at, updated_at)
     select case when i = 1 then ?::uuid else gen_random_uuid() end, ?, ?, 'https://hooks.example/' || i, 'v3', null, false, 'unused', ${ago}, ${ago}
       from generate_series(1, ?) i`,
    [destinationId, tenant, env, rows],
  );
  await em.execute(
    `insert into webhook_delivery (id, tenant_id, environment, event_type, session_id, destination_id, target, body, status, attempt_count, last_status_code, created_at, updated_at)
     select gen_random_uuid(), ?, ?, 'session.status_changed', ?, ?, 'https://hooks.example/1', '{}', 'succeeded', 1, 200, ${ago}, ${ago}
       from generate_series(1, ?) i`,
    [tenant, env, busySessionId, destinationId, rows],
  );
  await em.execute(
    `insert into webhook_attempt (id, delivery_id, tenant_id, environment, attempted_at, status, status_code, duration_ms)
     select gen_random_uuid(), id, tenant_id, environment, created_at, 'succeeded', 200, 12 from webhook_delivery where destination_id = ?`,
    [destinationId],
  );
  await em.execute(
    `insert into api_key (id, tenant_id, environment, prefix, key_hash, name, created_at)
     select gen_random_uuid(), ?, ?, 'idv_bulk_' || i, encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), 'bulk ' || i, ${ago}
       from generate_series(1, ?) i`,
    [tenant, env, rows],
  );
  await em.execute(
    `insert into operator (id, tenant_id, email, name, role, password_hash, failed_logins, created_at)
     select gen_random_uuid(), ?, 'bulk-' || gen_random_uuid() || '@example.com', 'Bulk ' || i, 'viewer', 'unusable', 0, ${ago}
       from generate_series(1, ?) i`,
    [tenant, rows],
  );
  return {
    tenantId,
    environment,
    approvedSessionId: await amlSession(testApp, key, 'Ada Lovelace'),
    inReviewSessionId: await amlSession(testApp, key, 'Sandbox Pep'),
    pendingSessionId: await amlSession(testApp, key, null),
    busySessionId,
    listId: list.body.uuid as string,
    destinationId,
  };
}
