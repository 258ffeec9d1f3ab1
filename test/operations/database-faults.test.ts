/**
 * Database faults a client can act on (audit N7, N8): a lost connection and a database out of
 * disk answer a retryable 503 with Retry-After instead of a 500, and `/readyz` stops saying ready
 * while writes are refused for want of disk. On the PostgreSQL server the connections are really
 * cut (`pg_terminate_backend`) under a burst of creates.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databaseFaults, fromDatabaseError } from '../../src/shared/errors.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession } from '../sessions/support.js';

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
}, 120_000);
afterAll(() => testApp?.close());
afterEach(() => {
  databaseFaults.diskFullAt = 0;
});

describe('database faults', () => {
  it('given the errors of a lost connection, a full disk and a duplicate key, when mapped, then the first two are a retryable 503 and the last is left to its handler', () => {
    const lost = [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new Error('Connection terminated unexpectedly'),
      { originalError: { code: '08006' } },
    ];
    for (const error of lost) {
      const mapped = fromDatabaseError(error);
      expect(mapped?.code, String(error)).toBe('service_unavailable');
      expect(mapped?.headers['Retry-After']).toBe('1');
    }
    expect(databaseFaults.diskFullAt).toBe(0);
    expect(fromDatabaseError({ code: '53100', message: 'could not extend file' })?.code).toBe('service_unavailable');
    expect(databaseFaults.diskFullAt).toBeGreaterThan(0);
    expect(fromDatabaseError({ code: '23505' })).toBeUndefined();
  });

  it('given a write just refused for want of disk, when /readyz is asked, then 503 naming it, and ready again once the hold has passed', async () => {
    expect((await fetch(`${testApp.url}/readyz`)).status).toBe(200);
    fromDatabaseError({ code: '53100' });
    const refused = await fetch(`${testApp.url}/readyz`);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { detail: string }).detail).toContain('want of disk');
    databaseFaults.diskFullAt = Date.now() - 31_000;
    expect((await fetch(`${testApp.url}/readyz`)).status).toBe(200);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "given the server terminating every one of the app's connections, when creates keep coming, then each answers 201 or a 503 with Retry-After, never a 500, and creates succeed again",
    { timeout: 120_000 },
    async () => {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        const create = (n: number) =>
          createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: `fault-${n}-${Math.random()}` });
        // Warm the pool, so there are connections to lose.
        await Promise.all(Array.from({ length: 10 }, (_, n) => create(n)));
        const statuses: number[] = [];
        for (let round = 0; round < 3; round++) {
          await admin.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
          );
          const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => create(100 * round + n)));
          for (const answer of answers) {
            statuses.push(answer.status);
            if (answer.status === 503) expect(answer.headers.get('retry-after')).toBe('1');
          }
        }
        expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
        expect((await create(999)).status).toBe(201);
      } finally {
        await admin.end();
      }
    },
  );
});
