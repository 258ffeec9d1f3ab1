/**
 * The fan-out reads past the outbox sequence it knows done (issue 29.3) instead of anti-joining
 * the watermark's grace window on every poll. Sequence numbers commit out of order: an event
 * whose transaction commits after later ones were fanned out has a lower sequence, and must still
 * be fanned out, exactly once. Such a late commit is made here as the database shows it: a
 * sequence number taken (its transaction still open) and its row appearing after later events.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentRevoked } from '../../src/domain/events.js';
import { transactionWithEvents } from '../../src/events/outbox.js';
import { fanOutOnce, type FanOutOptions, type FanOutProgress } from '../../src/webhooks/delivery-fanout.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { WEBHOOK_TEST_ENV } from './support.js';

let testApp: TestApp;
let tenant: TestTenant;
let options: FanOutOptions;

beforeAll(async () => {
  // No emitter in the app: the test runs the fan-out itself, poll by poll.
  testApp = await startTestApp({ ...WEBHOOK_TEST_ENV, EMITTER_IN_PROCESS: 'false' });
  tenant = await testApp.tenant();
  const created = await testApp.rest('POST', '/v1/webhook-destinations', {
    key: tenant.sandboxKey,
    body: { url: 'http://127.0.0.1:9/hooks' },
  });
  expect(created.status).toBe(201);
  options = { secrets: testApp.app.services.secrets, retryScheduleSeconds: [0] };
});
afterAll(() => testApp?.close());

/** Records an `agent.revoked` of the tenant's sandbox and commits it; returns the event's id and sequence. */
async function recordEvent(): Promise<{ id: string; seq: string }> {
  const jti = `progress-${randomUUID()}`;
  await transactionWithEvents(testApp.app.orm.em.fork(), testApp.app.services.bus, async (tx, events) => {
    events.record(tx, {
      tenantId: tenant.id,
      environment: 'sandbox',
      ...agentRevoked({ jti, sessionId: randomUUID(), vendorData: 'p' }, 'p', new Date()),
    });
  });
  const [row] = await testApp.app.orm.em
    .fork()
    .execute<{ id: string; seq: string }[]>(`select id, seq from outbox_event where payload->>'jti' = ?`, [jti], 'all');
  return { id: row!.id, seq: String(row!.seq) };
}

/** Takes the next outbox sequence number as a recording transaction does before it commits. */
async function takeSequence(): Promise<string> {
  const [row] = await testApp.app.orm.em
    .fork()
    .execute<{ seq: string }[]>(`select nextval(pg_get_serial_sequence('outbox_event', 'seq')) as seq`, [], 'all');
  return String(row!.seq);
}

/** Commits a copy of `event` as a new event holding sequence `seq`, created `ageSeconds` ago: the late transaction's row. */
async function commitAt(seq: string, event: { id: string }, ageSeconds = 0): Promise<string> {
  const id = randomUUID();
  await testApp.app.orm.em.fork().execute(
    `insert into outbox_event (seq, id, tenant_id, environment, type, session_id, payload, snapshot, trace_context, created_at)
     select ?, ?, tenant_id, environment, type, session_id, payload, snapshot, trace_context, now() - make_interval(secs => ?)
     from outbox_event where id = ?`,
    [seq, id, ageSeconds, event.id],
    'run',
  );
  return id;
}

/** Polls the fan-out until a poll finds nothing. */
async function fanOutAll(progress: FanOutProgress): Promise<void> {
  while ((await fanOutOnce(testApp.app.orm.em.fork(), options, progress)) > 0);
  // One more poll moves the progress over what the last ones did.
  await fanOutOnce(testApp.app.orm.em.fork(), options, progress);
}

/** Deliveries made of each event, by event id. */
async function deliveryCounts(eventIds: string[]): Promise<number[]> {
  const rows = await testApp.app.orm.em
    .fork()
    .execute<{ event_id: string; n: string }[]>(
      `select event_id, count(*) as n from webhook_delivery where event_id in (select value::uuid from jsonb_array_elements_text(?::jsonb)) group by event_id`,
      [JSON.stringify(eventIds)],
      'all',
    );
  return eventIds.map((id) => Number(rows.find((row) => row.event_id === id)?.n ?? 0));
}

describe('webhook fan-out progress', () => {
  it('given a lower sequence still uncommitted, when later events are fanned out, then the progress stays below it, and once it commits it is fanned out exactly once', async () => {
    const progress: FanOutProgress = { fannedOutThrough: null };
    await fanOutAll(progress);
    const late = await takeSequence();
    const later = await recordEvent();

    await fanOutAll(progress);

    expect(await deliveryCounts([later.id])).toEqual([1]);
    expect(BigInt(progress.fannedOutThrough!)).toBeLessThan(BigInt(late));

    const lateId = await commitAt(late, later);
    await fanOutAll(progress);
    await fanOutAll(progress);

    expect(await deliveryCounts([lateId, later.id])).toEqual([1, 1]);
    expect(BigInt(progress.fannedOutThrough!)).toBeGreaterThanOrEqual(BigInt(later.seq));
  });

  it('given several emitters, when each fans out with its own progress, then every event has one delivery', async () => {
    const first: FanOutProgress = { fannedOutThrough: null };
    const second: FanOutProgress = { fannedOutThrough: null };
    const events = [await recordEvent(), await recordEvent()];
    const late = await takeSequence();
    events.push(await recordEvent());

    await fanOutAll(first);
    events.push({ id: await commitAt(late, events[0]!), seq: late });
    await fanOutAll(second);
    await fanOutAll(first);

    expect(await deliveryCounts(events.map((event) => event.id))).toEqual([1, 1, 1, 1]);
  });

  it('given a missing sequence number below an event older than the grace (a rolled-back transaction), when polled, then the progress passes it', async () => {
    const progress: FanOutProgress = { fannedOutThrough: null };
    await fanOutAll(progress);
    const abandoned = await takeSequence();
    const after = await takeSequence();
    const template = await recordEvent();
    await commitAt(after, template, 600);

    await fanOutAll(progress);

    expect(BigInt(abandoned)).toBeLessThan(BigInt(after));
    expect(BigInt(progress.fannedOutThrough!)).toBeGreaterThanOrEqual(BigInt(template.seq));
  });
});
