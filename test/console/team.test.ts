/**
 * Team (issue 25): colleagues are invited by a one-time link instead of a password an admin passes
 * on (single use, expiring, revocable, only the token's hash kept), and API keys show when and from
 * where they were last used, noted in memory per request and written in batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { lastKeyUses } from '../../src/tenants/api-key-usage.service.js';
import { codeOf, consoleGql, makeOperator, postSignIn, signIn, type ConsoleCredential } from './support.js';

const INVITE = /* GraphQL */ `
  mutation ($input: InviteOperatorInput!) {
    inviteOperator(input: $input) {
      link
      invitation {
        id
        email
        name
        role
        invitedByName
        expiresAt
      }
    }
  }
`;
const INVITATIONS = /* GraphQL */ `
  query {
    operatorInvitations {
      id
      email
    }
  }
`;
const REVOKE = /* GraphQL */ `
  mutation ($id: String!) {
    revokeOperatorInvitation(id: $id)
  }
`;
const API_KEYS = /* GraphQL */ `
  query {
    apiKeys(first: 100) {
      edges {
        node {
          id
          prefix
          lastUsedAt
          lastUsedAddress
        }
      }
    }
  }
`;
const AUDIT = /* GraphQL */ `
  query ($action: String!) {
    auditLog(filter: { action: $action }) {
      edges {
        node {
          actorName
          targetId
          clientAddress
        }
      }
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let admin: ConsoleCredential;
let reviewer: ConsoleCredential;
let otherAdmin: ConsoleCredential;
const sql: string[] = [];

/** Calls one of the invitee's routes (no cookie). */
async function invitee(path: 'peek' | 'accept', body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${testApp.url}/console/api/invitations/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Invites a fresh address as the tenant's admin; returns the link's token and the invitation id. */
async function invite(role = 'reviewer'): Promise<{ token: string; id: string; email: string; link: string }> {
  const email = `invited-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const answer = await consoleGql(testApp, admin, INVITE, { input: { email, name: 'Ines Invited', role } });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  const { link, invitation } = answer.body.data.inviteOperator;
  return { token: link.split('#/invitation/')[1], id: invitation.id, email, link };
}

beforeAll(async () => {
  testApp = await startTestApp({ API_KEY_USAGE_FLUSH_SECONDS: '1' }, { onQuery: (statement) => sql.push(statement) });
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin', 'Ada Admin'));
  reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'));
  otherAdmin = await signIn(testApp, await makeOperator(testApp, other.id, 'admin'));
}, 60_000);
afterAll(() => testApp?.close());

describe('invitations by one-time link', () => {
  it('given an admin invites a colleague, when the colleague opens the link and chooses a password, then they can sign in with it at once; the link is spent; both steps are audited', async () => {
    const { token, id, email, link } = await invite('reviewer');
    const listed = await consoleGql(testApp, admin, INVITATIONS);
    const peeked = await invitee('peek', { token });
    const accepted = await invitee('accept', { token, password: 'my own long password' });
    const again = await invitee('accept', { token, password: 'my own long password' });
    const peekAgain = await invitee('peek', { token });
    const signedIn = await postSignIn(testApp, { email, password: 'my own long password', environment: 'sandbox' });
    const signInBody = (await signedIn.json()) as { operator: { role: string; temporary_credential: boolean } };

    expect(link).toMatch(new RegExp(`^${testApp.url}/console#/invitation/[A-Za-z0-9_-]{43}$`));
    expect(listed.body.data.operatorInvitations.map((row: { id: string }) => row.id)).toContain(id);
    expect(peeked).toMatchObject({ status: 200, body: { email, name: 'Ines Invited', role: 'reviewer' } });
    expect(accepted).toMatchObject({ status: 201, body: { operator: { email, role: 'reviewer' } } });
    expect(again.status).toBe(404);
    expect(peekAgain.status).toBe(404);
    expect(signedIn.status).toBe(200);
    expect(signInBody.operator).toMatchObject({ role: 'reviewer', temporary_credential: false });
    expect(
      (await consoleGql(testApp, admin, INVITATIONS)).body.data.operatorInvitations.map((row: { id: string }) => row.id),
    ).not.toContain(id);
    const invited = (await consoleGql(testApp, admin, AUDIT, { action: 'operator.invited' })).body.data.auditLog.edges;
    const acceptedAudit = (await consoleGql(testApp, admin, AUDIT, { action: 'invitation.accepted' })).body.data.auditLog.edges;
    expect(invited.map((edge: { node: { targetId: string } }) => edge.node.targetId)).toContain(id);
    expect(acceptedAudit.find((edge: { node: { targetId: string } }) => edge.node.targetId === id).node).toMatchObject({
      actorName: 'Ines Invited',
    });
  });

  it('given an invitation, when reading the table, then only the SHA-256 of its token is there', async () => {
    const { token, id } = await invite();
    const rows = await testApp.app.orm.em
      .fork()
      .execute<{ row: string }[]>('select i::text as row from operator_invitation i where id = ?', [id]);
    expect(rows[0]!.row).not.toContain(token);
  });

  it('given two tabs accepting one link at once, then exactly one account is made', async () => {
    const { token } = await invite();
    const answers = await Promise.all([0, 1, 2].map(() => invitee('accept', { token, password: 'racing long password' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 404, 404]);
  });

  it('given a revoked or an expired invitation, when it is opened, then 404 and no account is made', async () => {
    const revoked = await invite();
    const expired = await invite();
    expect(codeOf(await consoleGql(testApp, admin, REVOKE, { id: revoked.id }))).toBeNull();
    // Time passing: the link's expiry moved into the past.
    await testApp.app.orm.em
      .fork()
      .execute(`update operator_invitation set expires_at = now() - interval '1 second' where id = ?`, [expired.id]);

    for (const { token } of [revoked, expired]) {
      const accepted = await invitee('accept', { token, password: 'too late long password' });
      expect(accepted.status).toBe(404);
      expect(accepted.body.code).toBe('not_found');
    }
  });

  it('given bad input, when inviting or accepting, then a validation problem and nothing changes', async () => {
    const badEmail = await consoleGql(testApp, admin, INVITE, { input: { email: 'nope', name: 'X', role: 'viewer' } });
    const taken = await consoleGql(testApp, admin, INVITE, {
      input: { email: await makeOperator(testApp, tenant.id, 'viewer'), name: 'X', role: 'viewer' },
    });
    const { token } = await invite();
    const shortPassword = await invitee('accept', { token, password: 'short' });
    const noToken = await invitee('accept', { password: 'long enough password' });

    expect(codeOf(badEmail)).toBe('VALIDATION_FAILED');
    expect(codeOf(taken)).toBe('CONFLICT');
    expect(shortPassword.status).toBe(400);
    expect(shortPassword.body.errors[0].field).toBe('password');
    expect(noToken.status).toBe(400);
    expect((await invitee('peek', { token })).status).toBe(200);
  });

  it('given another tenant, a reviewer or an API key, when inviting, listing or revoking, then it is refused and the invitation stays', async () => {
    const { id, token } = await invite();
    const foreignRevoke = await consoleGql(testApp, otherAdmin, REVOKE, { id });
    const foreignList = await consoleGql(testApp, otherAdmin, INVITATIONS);
    const reviewerInvite = await consoleGql(testApp, reviewer, INVITE, { input: { email: 'r@example.com', name: 'R', role: 'admin' } });
    const keyList = await testApp.graphql(INVITATIONS, {}, tenant.sandboxKey);

    expect(codeOf(foreignRevoke)).toBe('NOT_FOUND');
    expect(JSON.stringify(foreignList.body)).not.toContain(id);
    expect(codeOf(reviewerInvite)).toBe('FORBIDDEN');
    expect(keyList.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await invitee('peek', { token })).status).toBe(200);
  });
});

describe('API keys: last use', () => {
  it('given a key used for a request, when the admin lists keys, then its last use shows with the address at once, and reaches the database within a flush', async () => {
    const { id, key } = await testApp.issueKey(tenant.id, 'sandbox');
    const before = Math.floor(Date.now() / 1000);
    expect((await testApp.rest('GET', '/v1/workflows', { key })).status).toBe(200);

    const listed = (await consoleGql(testApp, admin, API_KEYS)).body.data.apiKeys.edges.map((edge: { node: unknown }) => edge.node);
    const used = listed.find((node: { id: string }) => node.id === id);
    expect(used.lastUsedAt).toBeGreaterThanOrEqual(before);
    expect(used.lastUsedAddress).toMatch(/127\.0\.0\.1|::1/);
    expect(listed.find((node: { id: string }) => node.id === tenant.sandboxKeyId)).toBeDefined();

    await expect
      .poll(async () => (await testApp.app.orm.em.fork().execute('select 1 from api_key_usage where api_key_id = ?', [id])).length, {
        timeout: 10_000,
      })
      .toBe(1);
  });

  it('given a key used only over a WebSocket (graphql-ws), when the admin lists keys, then its last use shows with the address and reaches the database within a flush', async () => {
    const { id, key } = await testApp.issueKey(tenant.id, 'sandbox');
    const before = Math.floor(Date.now() / 1000);
    const client = testApp.ws({ 'x-api-key': key });
    const answer = await new Promise<unknown>((resolve, reject) => {
      let data: unknown;
      client.subscribe(
        { query: '{ workflows { id } }' },
        {
          next: (value) => (data = value),
          error: reject,
          complete: () => resolve(data),
        },
      );
    });
    expect(JSON.stringify(answer)).toContain('"workflows"');

    const listed = (await consoleGql(testApp, admin, API_KEYS)).body.data.apiKeys.edges.map((edge: { node: unknown }) => edge.node);
    const used = listed.find((node: { id: string }) => node.id === id);
    expect(used.lastUsedAt).toBeGreaterThanOrEqual(before);
    expect(used.lastUsedAddress).toMatch(/127\.0\.0\.1|::1/);
    await expect
      .poll(async () => (await testApp.app.orm.em.fork().execute('select 1 from api_key_usage where api_key_id = ?', [id])).length, {
        timeout: 10_000,
      })
      .toBe(1);
    await client.dispose();
  });

  it('given a flush that is writing, then its batch is still answered from memory until the write commits, and a listing started then shows the use', async () => {
    const { id } = await testApp.issueKey(tenant.id, 'sandbox');
    const { keyUsage } = testApp.app.services;
    const em = testApp.app.orm.em;
    for (let round = 0; round < 5; round += 1) {
      await keyUsage.flush(em);
      keyUsage.touch(id, `10.0.0.${round}`);
      const flushed = keyUsage.flush(em);
      // One turn later the flush has taken the batch and sent its statement, which cannot have committed yet.
      await Promise.resolve();
      expect(keyUsage.unwritten(id)?.address).toBe(`10.0.0.${round}`);
      const [uses] = await Promise.all([lastKeyUses(em.fork(), keyUsage, [id]), flushed]);
      expect(uses.get(id)?.address).toBe(`10.0.0.${round}`);
      expect(keyUsage.unwritten(id)).toBeUndefined();
      const stored = await em.fork().execute('select last_used_address from api_key_usage where api_key_id = ?', [id]);
      expect(stored[0].last_used_address).toBe(`10.0.0.${round}`);
    }
  });

  it('given many requests with one key, then no request writes its use: the writes are one statement per flush', async () => {
    const { key } = await testApp.issueKey(tenant.id, 'sandbox');
    await testApp.rest('GET', '/v1/workflows', { key });
    sql.length = 0;
    const started = Date.now();
    for (let index = 0; index < 20; index += 1) await testApp.rest('GET', '/v1/workflows', { key });
    const seconds = (Date.now() - started) / 1000;
    const writes = sql.filter((statement) => statement.includes('api_key_usage'));
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  });

  it('given a key of the other environment, when the sandbox admin lists keys, then it is not there', async () => {
    const live = await testApp.issueKey(tenant.id, 'live');
    await testApp.rest('GET', '/v1/workflows', { key: live.key });
    const listed = JSON.stringify((await consoleGql(testApp, admin, API_KEYS)).body);
    expect(listed).not.toContain(live.id);
  });
});
