/**
 * graphql-ws credentials and introspection (audit N5, shaped like its `ws_unauth_sockets.mjs`): a
 * made-up or expired `x-session-token` is refused when the socket opens (4403) instead of being
 * acknowledged and kept; a client address holds at most WS_MAX_SOCKETS_PER_ADDRESS sockets not
 * signed in with an API key (the address TRUSTED_PROXIES decides, as for HTTP); and only an API
 * key reads the schema through introspection, over HTTP and WebSocket alike.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE_TOO_MANY_SOCKETS } from '../../src/http/fastify-server.js';
import { makeOperator, signIn, consoleGql } from '../console/support.js';
import { createSession, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const SOCKETS_PER_ADDRESS = 3;
const MADE_UP_SOCKETS = 40;
const INTROSPECTION = '{ __schema { queryType { name } } }';
const TYPE_INTROSPECTION = '{ __type(name: "Session") { name fields { name } } }';

let testApp: TestApp;
let tenant: TestTenant;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  testApp = await startTestApp({ WS_MAX_SOCKETS_PER_ADDRESS: String(SOCKETS_PER_ADDRESS), TRUSTED_PROXIES: 'loopback' });
  tenant = await testApp.tenant();
});
afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await testApp?.close();
});

/** A raw graphql-transport-ws socket, as the audit's script opens them. */
interface RawSocket {
  socket: WebSocket;
  /** 'acked' once the server acknowledges connection_init, or the close code it closed with first. */
  outcome: Promise<'acked' | number>;
  /** Resolves with the first message about operation `id` (next or error). */
  answer(id: string): Promise<{ type: string; payload: any }>;
}

/** Opens a socket from `address` (X-Forwarded-For through the trusted loopback proxy) and sends connection_init with `params`. */
function open(params: Record<string, unknown>, address = '203.0.113.7'): RawSocket {
  const socket = new WebSocket(`${testApp.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
    headers: { 'x-forwarded-for': address },
  });
  sockets.push(socket);
  const messages: { id?: string; type: string; payload: any }[] = [];
  const waiters: (() => void)[] = [];
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const outcome = new Promise<'acked' | number>((resolve) => {
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve('acked');
    });
    socket.on('close', (code) => resolve(code));
  });
  return {
    socket,
    outcome,
    answer(id) {
      return new Promise((resolve) => {
        const look = () => {
          const found = messages.find((message) => message.id === id);
          if (found) resolve(found);
          else waiters.push(look);
        };
        look();
      });
    },
  };
}

/** Sends `query` as operation `id` on an acknowledged socket and waits for its first answer. */
function run(raw: RawSocket, id: string, query: string) {
  raw.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
  return raw.answer(id);
}

async function openSessionLink(): Promise<{ sessionId: string; token: string }> {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'aml_only', vendor_data: `ws-${Math.random()}` });
  return { sessionId: created.body.session_id, token: tokenOf(created.body.url) };
}

describe('session tokens on graphql-ws', () => {
  it(`given ${MADE_UP_SOCKETS} sockets with made-up session tokens, when they send connection_init, then none is acknowledged and every one is closed with 4403`, async () => {
    const { sessionId } = await openSessionLink();
    const madeUp = Array.from({ length: MADE_UP_SOCKETS }, (_, index) =>
      // Half name a real session (its token is still made up), half none, as the audit's script sends.
      open(
        {
          'x-session-token': `made-up-${index}-${Math.random().toString(36).slice(2)}`,
          ...(index % 2 ? { 'x-session-id': sessionId } : {}),
        },
        `198.51.100.${index + 1}`,
      ),
    );

    const outcomes = await Promise.all(madeUp.map((raw) => raw.outcome));

    expect(outcomes.filter((outcome) => outcome === 'acked')).toHaveLength(0);
    expect(new Set(outcomes)).toEqual(new Set([4403]));
  });

  it('given the link of an expired session, when its socket opens, then it is closed with 4403; the link of an open session is acknowledged', async () => {
    const expired = await openSessionLink();
    const valid = await openSessionLink();
    await testApp.app.orm.em
      .fork()
      .execute(`update session set expires_at = now() - interval '1 second' where id = ?`, [expired.sessionId]);

    const expiredSocket = open({ 'x-session-token': expired.token, 'x-session-id': expired.sessionId }, '198.51.100.201');
    const validSocket = open({ 'x-session-token': valid.token, 'x-session-id': valid.sessionId }, '198.51.100.202');
    const withoutId = open({ 'x-session-token': valid.token }, '198.51.100.203');

    expect(await expiredSocket.outcome).toBe(4403);
    expect(await validSocket.outcome).toBe('acked');
    expect(await withoutId.outcome).toBe(4403);
  });
});

describe('sockets per client address', () => {
  it(`given an address holding ${SOCKETS_PER_ADDRESS} page sockets, when it opens one more, then that one is closed with 4430; another address and API-key sockets are not held back`, async () => {
    const address = '203.0.113.50';
    const keyed = [open({ 'x-api-key': tenant.sandboxKey }, address), open({ 'x-api-key': tenant.sandboxKey }, address)];
    expect(await Promise.all(keyed.map((raw) => raw.outcome))).toEqual(['acked', 'acked']);
    const link = await openSessionLink();
    const pages = Array.from({ length: SOCKETS_PER_ADDRESS }, () =>
      open({ 'x-session-token': link.token, 'x-session-id': link.sessionId }, address),
    );
    // The per-link cap (4) is above the per-address cap here, so this is the address's limit.
    expect(await Promise.all(pages.map((raw) => raw.outcome))).toEqual(pages.map(() => 'acked'));

    const oneMore = open({ 'x-session-token': link.token, 'x-session-id': link.sessionId }, address);
    const otherLink = await openSessionLink();
    const elsewhere = open({ 'x-session-token': otherLink.token, 'x-session-id': otherLink.sessionId }, '203.0.113.51');

    expect(await oneMore.outcome).toBe(WS_CLOSE_TOO_MANY_SOCKETS);
    expect(await elsewhere.outcome).toBe('acked');
  });

  it('given sockets that never send connection_init, then they count for their address too', async () => {
    const address = '203.0.113.60';
    const silent = Array.from({ length: SOCKETS_PER_ADDRESS }, () => {
      const socket = new WebSocket(`${testApp.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
        headers: { 'x-forwarded-for': address },
      });
      sockets.push(socket);
      return new Promise((resolve) => socket.on('open', resolve));
    });
    await Promise.all(silent);
    const link = await openSessionLink();

    const next = open({ 'x-session-token': link.token, 'x-session-id': link.sessionId }, address);

    expect(await next.outcome).toBe(WS_CLOSE_TOO_MANY_SOCKETS);
  });
});

describe('introspection', () => {
  it('given a made-up or a real session token over HTTP, when it asks for __schema or __type, then INTROSPECTION_NOT_ALLOWED and no schema; an API key gets the standard introspection query answered', async () => {
    const { token } = await openSessionLink();
    const post = (query: string, headers: Record<string, string>) =>
      fetch(`${testApp.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

    const madeUp = await post(INTROSPECTION, { 'x-session-token': 'made-up' });
    const real = await post(TYPE_INTROSPECTION, { 'x-session-token': token });
    const typename = await post('{ __typename }', { 'x-session-token': token });
    const byKey = await post(getIntrospectionQuery(), { 'x-api-key': tenant.sandboxKey });

    for (const refused of [madeUp, real]) {
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('INTROSPECTION_NOT_ALLOWED');
      expect(refused.body.data).toBeUndefined();
      expect(JSON.stringify(refused.body)).not.toContain('queryType');
    }
    expect(typename.body.data).toEqual({ __typename: 'Query' });
    expect(byKey.body.errors).toBeUndefined();
    expect(byKey.body.data.__schema.queryType.name).toBe('Query');
  });

  it('given a console sign-in, when it asks for __schema, then INTROSPECTION_NOT_ALLOWED', async () => {
    const operator = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'));

    const answer = await consoleGql(testApp, operator, INTROSPECTION);

    expect(answer.body.errors?.[0]?.extensions?.code).toBe('INTROSPECTION_NOT_ALLOWED');
  });

  it('given a socket of a real session link, when it runs an introspection query, then INTROSPECTION_NOT_ALLOWED; a key socket is answered', async () => {
    const link = await openSessionLink();
    const page = open({ 'x-session-token': link.token, 'x-session-id': link.sessionId }, '203.0.113.70');
    const machine = open({ 'x-api-key': tenant.sandboxKey }, '203.0.113.70');
    expect(await page.outcome).toBe('acked');
    expect(await machine.outcome).toBe('acked');

    const refused = await run(page, 'q', INTROSPECTION);
    const answered = await run(machine, 'q', INTROSPECTION);

    expect(refused.type).toBe('error');
    expect(refused.payload[0].extensions.code).toBe('INTROSPECTION_NOT_ALLOWED');
    expect(answered).toMatchObject({ type: 'next', payload: { data: { __schema: { queryType: { name: 'Query' } } } } });
  });
});
