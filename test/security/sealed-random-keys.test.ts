/**
 * The random digest keys kept sealed in a table (`sealedRandomKey`, src/auth/personal-data.ts):
 * made once whoever asks first, and never cached by a process before the row is committed. Both
 * were real faults: two first uses racing from two connections answered 500 (the loser's
 * statement snapshot could not see the winner's row, seen once in the scale-out test), and a key
 * made in a transaction that rolled back stayed cached, so that process digested with a key no
 * other process would ever read.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealedRandomKey, type SealedKeyTable } from '../../src/auth/personal-data.js';
import { startTestApp, type TestApp } from '../support/app.js';

const KEYS: SealedKeyTable = { table: 'personal_data_key', idColumn: 'scope', keyColumn: 'key_sealed' };
const onServer = Boolean(process.env.DATABASE_URL);

let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp();
}, 120_000);

afterAll(async () => {
  await testApp?.close();
});

/** The key stored for `scope`, unsealed (base64url of its bytes), or undefined when no row is committed. */
async function storedKey(scope: string): Promise<string | undefined> {
  const [row] = await testApp.app.orm.em
    .fork()
    .execute<{ key_sealed: string }[]>('select key_sealed from personal_data_key where scope = ?', [scope]);
  return row ? testApp.app.services.secrets.decrypt(row.key_sealed) : undefined;
}

const bytesOf = (key: { export(): Buffer }) => key.export().toString('base64url');

describe('a sealed random key made on first use', () => {
  it('given a key made in a transaction that rolls back, when it is asked for again, then the answer is the key the table keeps', async () => {
    const scope = `rollback-${randomUUID()}`;
    const secrets = testApp.app.services.secrets;
    let madeInRolledBack: string | undefined;
    await expect(
      testApp.app.orm.em.fork().transactional(async (em) => {
        madeInRolledBack = bytesOf(await sealedRandomKey(em, secrets, KEYS, scope));
        // Asked again inside the same transaction: its own uncommitted row, still the same key.
        expect(bytesOf(await sealedRandomKey(em, secrets, KEYS, scope))).toBe(madeInRolledBack);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await storedKey(scope)).toBeUndefined();

    const key = bytesOf(await sealedRandomKey(testApp.app.orm.em.fork(), secrets, KEYS, scope));
    expect(await storedKey(scope)).toBe(key);
    expect(key).not.toBe(madeInRolledBack);
    // Committed now: cached, and still the stored one.
    expect(bytesOf(await sealedRandomKey(testApp.app.orm.em.fork(), secrets, KEYS, scope))).toBe(key);
  });

  it.skipIf(!onServer)(
    'given two connections asking at once, when the first commits while the second waits on its row, then both answer the committed key',
    async () => {
      const scope = `race-${randomUUID()}`;
      const secrets = testApp.app.services.secrets;
      const first = testApp.app.orm.em.fork();
      await first.begin();
      const firstKey = bytesOf(await sealedRandomKey(first, secrets, KEYS, scope));
      // Another process (a cache of its own: the cache is per secrets object) takes its statement's
      // snapshot now and waits on the first's uncommitted row.
      const otherProcess = Object.create(secrets) as typeof secrets;
      const second = sealedRandomKey(testApp.app.orm.em.fork(), otherProcess, KEYS, scope).then(bytesOf);
      const observer = testApp.app.orm.em.fork();
      for (;;) {
        const [waiting] = await observer.execute<{ count: string }[]>(
          `select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%personal_data_key%'`,
        );
        if (Number(waiting!.count) > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await first.commit();
      expect(await second).toBe(firstKey);
      expect(await storedKey(scope)).toBe(firstKey);
    },
  );
});
