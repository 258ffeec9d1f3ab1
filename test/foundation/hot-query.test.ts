import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotQuery } from '../../src/db/native.js';
import { startTestApp, type TestApp } from '../support/app.js';

describe('hot statements (named prepared statements on the pool)', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('given a prepared statement, when its connection is replaced, then the new connection prepares it again without a name clash', async () => {
    const em = testApp.app.orm.em.fork();
    const run = async (value: number) => (await hotQuery<{ v: number }>(em, 'hot_query_test', 'select $1::int as v', [value]))[0]?.v;
    expect(await run(1)).toBe(1);
    expect(await run(2)).toBe(2);
    // Destroy every idle pooled connection: on embedded PGlite the backend session (and the
    // statement prepared in it) outlives the socket connection that prepared it.
    const pool = (await em.getConnection().getNativeClient()) as unknown as {
      connect(): Promise<{ release(error?: Error): void }>;
    };
    const client = await pool.connect();
    client.release(new Error('dropped by the test'));
    expect(await run(3)).toBe(3);
  });

  it('given a statement the server rejects, when it runs, then the error reaches the caller and the pool still works', async () => {
    const em = testApp.app.orm.em.fork();
    await expect(hotQuery(em, 'hot_query_bad', 'select 1 / $1::int as v', [0])).rejects.toThrow(/division by zero/);
    expect((await hotQuery<{ v: number }>(em, 'hot_query_ok', 'select 2 as v', []))[0]?.v).toBe(2);
  });
});
