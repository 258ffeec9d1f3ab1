import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from 'graphql-ws';
import pino from 'pino';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createTenant, issueApiKey } from '../../src/tenants/tenant.service.js';
import type { TestApp } from '../support/app.js';
import { completeStandardKyc, createSession } from '../sessions/support.js';
import { recordStatusEvents, transitions, type RecordedSubscription } from './support.js';

/** LISTEN/NOTIFY does not cross the embedded PGlite socket: this file needs a PostgreSQL server. */
const DATABASE_URL = process.env.DATABASE_URL;
/** Same key as startTestApp, so every process can decrypt what another stored in the shared database. */
const MASTER_KEY = 'test-master-key-not-for-production-0123456789';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A server process and the slice of the test-app helpers the session helpers need. */
interface Instance {
  process: ChildProcess;
  url: string;
  api: TestApp;
  /** Open subscriptions in that process, as it last reported. */
  reported: { subscribers: number };
  /** Emits `subscribers` on every report. */
  reports: EventEmitter;
}

/** Resolves once `instance` reports exactly `count` open subscriptions (the server registered them). */
async function waitForSubscribers(instance: Instance, count: number): Promise<void> {
  while (instance.reported.subscribers !== count) await once(instance.reports, 'subscribers');
}

/** Starts `test/events/instance.ts` in a process of its own and waits for its URL. */
async function startInstance(): Promise<Instance> {
  const child = spawn(`${ROOT}node_modules/.bin/tsx`, ['test/events/instance.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL, MASTER_KEY },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const reports = new EventEmitter();
  const reported = { subscribers: 0 };
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance exited with ${code} before listening`)));
    lines.on('line', (line) => {
      const report = JSON.parse(line) as { url?: string; subscribers?: number };
      if (report.url) resolve(report.url);
      if (report.subscribers !== undefined) {
        reported.subscribers = report.subscribers;
        reports.emit('subscribers');
      }
    });
  });
  const api = {
    url,
    async rest(method: string, path: string, options: { key?: string | null; body?: unknown } = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.key) headers['x-api-key'] = options.key;
      const response = await fetch(`${url}${path}`, { method, headers, body: JSON.stringify(options.body) });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
  } as unknown as TestApp;
  return { process: child, url, api, reported, reports };
}

/** Stops an instance by closing its stdin and waits for it to exit. */
async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.process.exitCode !== null) return;
  const exited = new Promise((resolve) => instance.process.once('exit', resolve));
  instance.process.stdin!.end();
  await exited;
}

describe('cross-instance live status', () => {
  let a: Instance | undefined;
  let b: Instance | undefined;
  const clients: Client[] = [];
  let keyOfTenant: string;
  let keyOfOtherTenant: string;

  beforeAll(async () => {
    if (!DATABASE_URL) return;
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    const database = await openDatabase(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }), { migrate: false });
    try {
      const em = database.orm.em.fork();
      const [tenant, other] = await Promise.all([
        createTenant(em.fork(), 'cross-instance'),
        createTenant(em.fork(), 'cross-instance-other'),
      ]);
      keyOfTenant = (await issueApiKey(em.fork(), tenant.id, 'sandbox')).key;
      keyOfOtherTenant = (await issueApiKey(em.fork(), other.id, 'sandbox')).key;
    } finally {
      await database.close();
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await Promise.all([stopInstance(a), stopInstance(b)]);
  });

  /** Opens a graphql-ws client on an instance. */
  function connect(instance: Instance, key: string): Client {
    const client = createClient({
      url: `${instance.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    return client;
  }

  /** Creates a standard_kyc session through `instance` and returns its id. */
  async function newSession(instance: Instance, key: string, vendorData: string): Promise<string> {
    const created = await createSession(instance.api, key, { workflow_id: 'standard_kyc', vendor_data: vendorData });
    expect(created.status).toBe(201);
    return created.body.session_id as string;
  }

  /** Session ids of the events received so far. */
  const sessionsOf = (subscription: RecordedSubscription) => subscription.events.map((event) => event.sessionId);

  it.runIf(DATABASE_URL)(
    'given two server processes on one PostgreSQL (runs only with DATABASE_URL: embedded PGlite shares no NOTIFY), when a session is driven to a decision on A, then a subscriber on B receives every change once, in order, with the same ids',
    async () => {
      const onA = recordStatusEvents(connect(a!, keyOfTenant));
      const onB = recordStatusEvents(connect(b!, keyOfTenant));
      const otherOnB = recordStatusEvents(connect(b!, keyOfOtherTenant));
      await Promise.all([waitForSubscribers(a!, 1), waitForSubscribers(b!, 2)]);

      const sessionId = await newSession(a!, keyOfTenant, 'cross-instance');
      expect(await completeStandardKyc(a!.api, { key: keyOfTenant }, sessionId)).toBe('approved');
      // A last change made on B: once both subscribers have it, everything before it was delivered.
      const sentinel = await newSession(b!, keyOfTenant, 'sentinel');
      await Promise.all([onA.take(4), onB.take(4)]);

      // B got A's changes over NOTIFY, in order; A got B's sentinel the same way.
      expect(transitions(onB.events)).toEqual(['null→pending', 'pending→in_progress', 'in_progress→approved', 'null→pending']);
      expect(sessionsOf(onB)).toEqual([sessionId, sessionId, sessionId, sentinel]);
      expect(onB.events[0]).toMatchObject({ vendorData: 'cross-instance', environment: 'sandbox' });
      // A delivered its own changes once (its NOTIFYs come back to it and are dropped), with the same ids as B.
      expect(onA.events.map((event) => event.id)).toEqual(onB.events.map((event) => event.id));
      expect(new Set(onB.events.map((event) => event.id)).size).toBe(4);

      // The other tenant's subscriber on B saw none of it; its own change made on A is the first thing it gets.
      const otherOnA = await newSession(a!, keyOfOtherTenant, 'other-on-a');
      await otherOnB.take(1);
      expect(sessionsOf(otherOnB)).toEqual([otherOnA]);
      // No late duplicate on either side: the next change on B is the fifth event both receive.
      const last = await newSession(b!, keyOfTenant, 'last');
      const [fiveOnA, fiveOnB] = await Promise.all([onA.take(5), onB.take(5)]);
      expect([fiveOnA.at(-1)?.sessionId, fiveOnB.at(-1)?.sessionId]).toEqual([last, last]);
    },
  );
});
