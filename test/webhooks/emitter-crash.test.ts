import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentRevoked } from '../../src/domain/events.js';
import { transactionWithEvents } from '../../src/events/outbox.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver } from './support.js';

/** Events in the burst. */
const BURST_SIZE = 300;

let testApp: TestApp;
let receiver: Receiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The server runs no emitter: the separate process is the only one.
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' });
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await testApp?.close();
  await receiver?.close();
});

/** Starts `src/bin/emitter.ts` as its own process against the test app's database; resolves once it logs that it started. */
async function spawnEmitter(): Promise<ChildProcess> {
  // Node itself with tsx as a loader, not the `.bin/tsx` wrapper: SIGKILL to the wrapper would
  // leave the emitter running as an orphan, so the "crash" would not stop it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/emitter.ts'], {
    env: {
      ...process.env,
      ...WEBHOOK_TEST_ENV,
      DATABASE_URL: testApp.app.database.url,
      MASTER_KEY: testApp.app.config.MASTER_KEY,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('webhook emitter started')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`emitter exited with ${code}: ${output}`)));
  });
  return child;
}

describe('emitter crash', () => {
  // Its waits for events add up to 200 s at most (the first deliveries, every index, every delivery
  // recorded): a loaded CI machine re-sends the dead emitter's leased deliveries slowly on PGlite.
  it(
    'given a burst in flight, when the emitter process is killed with SIGKILL and restarted, then every event is delivered, verified, with nothing lost',
    { timeout: 240_000 },
    async () => {
      const tenant = await testApp.tenant();
      const created = await testApp.rest('POST', '/v1/webhook-destinations', {
        key: tenant.sandboxKey,
        body: { url: `${receiver.url}/crash` },
      });
      receiver.secret = created.body.secret;
      receiver.delayMs = 20;
      const first = await spawnEmitter();

      await transactionWithEvents(testApp.app.orm.em.fork(), testApp.app.services.bus, async (tx, events) => {
        for (let index = 0; index < BURST_SIZE; index++) {
          events.record(tx, {
            tenantId: tenant.id,
            environment: 'sandbox',
            ...agentRevoked({ jti: `burst-${index}`, sessionId: randomUUID(), vendorData: 'crash' }, 'burst', new Date()),
          });
        }
      });
      await receiver.waitFor((all) => all.length >= 20, 20_000);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const beforeRestart = new Set(receiver.received.map((item) => item.body?.data?.jti)).size;
      expect(beforeRestart).toBeLessThan(BURST_SIZE);

      receiver.delayMs = 0;
      const second = await spawnEmitter();
      const indexes = () => new Set(receiver.received.map((item) => item.body?.data?.jti));
      await receiver.waitFor(() => indexes().size === BURST_SIZE, 90_000);
      expect(receiver.received.every((item) => item.verified)).toBe(true);
      // One webhook-id per event: a resend after the crash reuses the id, so receivers can dedupe.
      const idsByIndex = new Map<string, Set<string>>();
      for (const item of receiver.received) {
        const set = idsByIndex.get(item.body.data.jti) ?? new Set();
        set.add(item.id);
        idsByIndex.set(item.body.data.jti, set);
      }
      expect([...idsByIndex.values()].every((ids) => ids.size === 1)).toBe(true);

      // Deliveries the first emitter sent but died before recording are sent again once their lease
      // ends (at least once): every index may have arrived before the last of them is recorded.
      const counts = async () => {
        const [row] = await testApp.app.orm.em
          .fork()
          .execute<{ total: string; succeeded: string }[]>(
            `select count(*) as total, count(*) filter (where status = 'succeeded') as succeeded from webhook_delivery where tenant_id = ?`,
            [tenant.id],
            'all',
          );
        return { total: Number(row!.total), succeeded: Number(row!.succeeded) };
      };
      await expect.poll(counts, { timeout: 90_000, interval: 100 }).toEqual({ total: BURST_SIZE, succeeded: BURST_SIZE });
      second.kill('SIGTERM');
      await new Promise((resolve) => second.once('exit', resolve));
      expect(await counts()).toEqual({ total: BURST_SIZE, succeeded: BURST_SIZE });
    },
  );
});
