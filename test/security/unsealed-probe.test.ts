/**
 * The check every start makes for personal data an older version left in clear
 * (`sealLegacyPersonalData`) reads the partial indexes of migration H30UnsealedProbe, which are
 * empty once everything is sealed, instead of scanning the session tables whole: asserted on the
 * query plans, after flows have written sealed rows to every column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealLegacyPersonalData } from '../../src/auth/personal-data.js';
import { completeStandardKyc, createSession } from '../sessions/support.js';
import { startTestApp, type TestApp } from '../support/app.js';

let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp();
  const tenant = await testApp.tenant();
  for (let index = 0; index < 3; index++) {
    const created = await createSession(testApp, tenant.sandboxKey, {
      workflow_id: 'standard_kyc',
      vendor_data: `unsealed-probe-${index}`,
      contact_details: { email: `person${index}@example.com` },
      expected_details: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10', country: 'GB' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await completeStandardKyc(testApp, { key: tenant.sandboxKey }, created.body.session_id);
    // Sealed codes as the service keeps them (a digest, no number), enough that a scan is not free.
    await testApp.app.orm.em.fork().execute(
      `insert into phone_otp (id, tenant_id, environment, session_id, phone, phone_digest, code_digest, status, expires_at)
         select gen_random_uuid(), ?, 'sandbox', ?, null, md5(n::text), md5(n::text), 'superseded', now() from generate_series(1, 500) as n`,
      [tenant.id, created.body.session_id],
    );
  }
  await testApp.app.orm.em.fork().execute('analyze');
}, 180_000);

afterAll(async () => {
  await testApp?.close();
});

/** Every plan node's type and index name, depth first. */
function nodesOf(plan: Record<string, unknown>): string[] {
  const own = `${String(plan['Node Type'])}${plan['Index Name'] ? ` on ${String(plan['Index Name'])}` : ''}`;
  return [own, ...((plan.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(nodesOf)];
}

describe('the start-up check for personal data left in clear', () => {
  it('given sealed rows in every personal-data column, when the service starts again, then nothing is sealed and each probe reads its partial index', async () => {
    const em = testApp.app.orm.em.fork();
    const counts = await sealLegacyPersonalData(em, testApp.app.services.secrets);
    expect(
      Object.values(counts).every((count) => count === 0),
      JSON.stringify(counts),
    ).toBe(true);

    const probes = {
      session_node_result_details_unsealed_index: `session_node_result where details is not null and jsonb_typeof(details) = 'object' and details -> '_sealed' is null and details <> '{}'::jsonb`,
      session_expected_details_unsealed_index: `session where expected_details is not null and jsonb_typeof(expected_details) = 'object' and expected_details -> '_sealed' is null and expected_details <> '{}'::jsonb`,
      session_contact_details_unsealed_index: `session where contact_details is not null and jsonb_typeof(contact_details) = 'object' and contact_details -> '_sealed' is null and contact_details <> '{}'::jsonb`,
      check_run_result_unsealed_index: `check_run where result is not null and jsonb_typeof(result) = 'object' and result -> '_sealed' is null and result <> '{}'::jsonb`,
      phone_otp_phone_unsealed_index: `phone_otp where phone is not null`,
    };
    // The test tables are a page or two, where a scan is rightly cheaper: with scans priced out the
    // plan shows whether the probe can use its index at all (the predicates imply each other), which
    // is what decides its cost on a large history, where the empty index always wins.
    await em.begin();
    await em.execute('set local enable_seqscan = off');
    for (const [index, from] of Object.entries(probes)) {
      const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] | string }[]>(
        `explain (format json) select exists (select 1 from ${from}) as found`,
      );
      const document = row!['QUERY PLAN'];
      const plan = (typeof document === 'string' ? JSON.parse(document) : document) as [{ Plan: Record<string, unknown> }];
      expect(nodesOf(plan[0].Plan).join(' > '), index).toMatch(new RegExp(`Index Only Scan on ${index}|Index Scan on ${index}`));
    }
    await em.rollback();
  });
});
