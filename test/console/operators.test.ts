/**
 * Operators (issue 16.1): people sign in to the console with a password (argon2id), get an
 * httpOnly SameSite=Strict cookie and a CSRF token that every cookie request must echo, are
 * locked out after repeated wrong passwords, act in their tenant and the environment they chose,
 * may do what their role allows (a viewer cannot decide), and are audited by name.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_MAX_FAILED_LOGINS } from '../../src/operators/operator.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { recordStatusEvents, waitForSubscribers } from '../events/support.js';
import { consoleApi, consoleGql, consoleSocket, inReviewSession, makeOperator, OPERATOR_PASSWORD, postSignIn, signIn } from './support.js';

const SESSIONS = /* GraphQL */ `
  query {
    sessions(first: 50) {
      edges {
        node {
          id
          environment
        }
      }
    }
  }
`;
const SESSION = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      id
      status
      reviewHistory {
        actor
        toStatus
        actorKeyId
        actorOperatorId
        actorName
        reason
      }
    }
  }
`;
const REVIEW = /* GraphQL */ `
  mutation ($id: String!, $decision: ReviewDecision!, $reason: String!) {
    reviewSession(id: $id, decision: $decision, reason: $reason) {
      id
      status
    }
  }
`;
const CURRENT_OPERATOR = /* GraphQL */ `
  query {
    currentOperator {
      id
      email
      name
      role
    }
  }
`;
const CREATE_OPERATOR = /* GraphQL */ `
  mutation ($input: CreateOperatorInput!) {
    createOperator(input: $input) {
      id
      email
      role
    }
  }
`;
const CREATE_WORKFLOW = /* GraphQL */ `
  mutation {
    createWorkflow(input: { name: "by an operator", nodes: [{ type: aml_screening, required: true, provider: "openkyc:aml_screen" }] }) {
      id
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
}, 60_000);
afterAll(() => testApp?.close());

/** A pending session of `key`. */
async function pendingSession(key: string): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'standard_kyc', vendor_data: `pending-${Math.random()}` },
  });
  expect(created.status).toBe(201);
  return created.body.session_id;
}

describe('signing in', () => {
  it('given an operator, when signing in with the right password, then the cookie is httpOnly, SameSite=Strict and the answer carries the CSRF token but no hash', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper');

    const response = await postSignIn(testApp, { email: email.toUpperCase(), password: OPERATOR_PASSWORD, environment: 'sandbox' });

    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^openkyc_console=[\w-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      operator: { email, name: 'Grace Hopper', role: 'reviewer', tenant_id: tenant.id },
      environment: 'sandbox',
      csrf_token: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(JSON.stringify(body)).not.toMatch(/argon2|password/);

    // After a reload the page gets the same CSRF token back with the cookie alone.
    const session = await fetch(`${testApp.url}/console/api/session`, { headers: { cookie: cookie.split(';')[0]! } });
    expect((await session.json()) as any).toMatchObject({ csrf_token: body.csrf_token, operator: { email } });
  });

  it('given a wrong password or an unknown address, when signing in, then both get the same 401 problem', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');

    const wrong = await postSignIn(testApp, { email, password: 'not the password at all' });
    const unknown = await postSignIn(testApp, { email: 'nobody@example.com', password: OPERATOR_PASSWORD });

    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    expect(((await wrong.json()) as any).detail).toBe(((await unknown.json()) as any).detail);
  });

  it('given a malformed body, when signing in, then it is a 400 naming the fields, not a 500', async () => {
    const response = await postSignIn(testApp, { email: 42, environment: 'staging' });

    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['email', 'environment', 'password']);
  });

  it(`given ${OPERATOR_MAX_FAILED_LOGINS} wrong passwords in a row, when signing in, then the account is locked even for the right password until the lock ends`, async () => {
    const email = await makeOperator(testApp, tenant.id, 'admin');

    const answers: number[] = [];
    for (let attempt = 1; attempt <= OPERATOR_MAX_FAILED_LOGINS; attempt += 1)
      answers.push((await postSignIn(testApp, { email, password: `wrong password ${attempt}` })).status);
    const right = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD });

    expect(answers).toEqual([...Array(OPERATOR_MAX_FAILED_LOGINS - 1).fill(401), 429]);
    expect(right.status).toBe(429);
    expect(((await right.json()) as any).code).toBe('account_locked');
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);

    // When the lock ends (moved into the past here rather than waited for), the right password works and the count starts again.
    const account = createHash('sha256').update(`account\0${email}`).digest('hex');
    await testApp.app.orm.em
      .fork()
      .execute(`update sign_in_failure set locked_until = now() - interval '1 second' where account_key = ?`, [account]);
    expect((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD })).status).toBe(200);
    const rows = await testApp.app.orm.em.fork().execute(`select failures from sign_in_failure where account_key = ?`, [account]);
    expect(rows).toEqual([]);
  });

  it('given parallel wrong guesses, when they race, then the count is exact: limit − 1 are answered wrong, every other one locked', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');

    const statuses = await Promise.all(
      Array.from({ length: OPERATOR_MAX_FAILED_LOGINS * 2 }, (_, index) =>
        postSignIn(testApp, { email, password: `parallel guess ${index}` }).then((response) => response.status),
      ),
    );

    expect(statuses.filter((status) => status === 401)).toHaveLength(OPERATOR_MAX_FAILED_LOGINS - 1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(OPERATOR_MAX_FAILED_LOGINS + 1);
    expect((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD })).status).toBe(429);
  });
});

describe('cookie requests and CSRF', () => {
  it('given a signed-in operator, when a GraphQL request carries the cookie without the CSRF token, or with another sign-in token, then it is FORBIDDEN', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');
    const credential = await signIn(testApp, email);
    const another = await signIn(testApp, email);

    const without = await consoleGql(testApp, credential, CURRENT_OPERATOR, {}, {});
    const mismatched = await consoleGql(testApp, credential, CURRENT_OPERATOR, {}, { 'x-csrf-token': another.csrfToken });
    const right = await consoleGql(testApp, credential, CURRENT_OPERATOR);

    expect(without.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(mismatched.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(right.body.data.currentOperator).toMatchObject({ email, role: 'viewer' });
  });

  it('given a signed-in operator, when switching environment or signing out without the CSRF token, then it is refused; signed out, the cookie no longer works', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer');
    const credential = await signIn(testApp, email);

    const forged = await consoleApi(testApp, { ...credential, csrfToken: 'forged' }, 'POST', '/sign-out');
    expect(forged.status).toBe(403);
    expect((await consoleGql(testApp, credential, CURRENT_OPERATOR)).body.data.currentOperator.email).toBe(email);

    const signedOut = await consoleApi(testApp, credential, 'POST', '/sign-out');
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await consoleGql(testApp, credential, CURRENT_OPERATOR);
    expect(after.status).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('given the REST facade, when a request carries only the console cookie, then it is 401: REST stays for API keys', async () => {
    const credential = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'));

    const response = await fetch(`${testApp.url}/v1/sessions`, {
      headers: { cookie: credential.cookie, 'x-csrf-token': credential.csrfToken },
    });

    expect(response.status).toBe(401);
  });
});

describe('tenant and environment of an operator', () => {
  it("given sessions of the operator's tenant in both environments and of another tenant, when the operator reads, then only the chosen environment's own sessions are there, and switching moves the view", async () => {
    const credential = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'), 'sandbox');
    const ownSandbox = await pendingSession(tenant.sandboxKey);
    const ownLive = await pendingSession(tenant.liveKey);
    const othersSandbox = await pendingSession(other.sandboxKey);

    const listed = async () =>
      ((await consoleGql(testApp, credential, SESSIONS)).body.data.sessions.edges as { node: { id: string } }[]).map(
        (edge) => edge.node.id,
      );
    const codeOf = async (id: string) =>
      (await consoleGql(testApp, credential, SESSION, { id })).body.errors?.[0]?.extensions?.code ?? 'ok';

    expect(await listed()).toContain(ownSandbox);
    expect(await listed()).not.toContain(ownLive);
    expect(await listed()).not.toContain(othersSandbox);
    expect(await codeOf(ownSandbox)).toBe('ok');
    expect(await codeOf(ownLive)).toBe('NOT_FOUND');
    expect(await codeOf(othersSandbox)).toBe('NOT_FOUND');

    const switched = await consoleApi(testApp, credential, 'PUT', '/environment', { environment: 'live' });
    expect(switched.body).toEqual({ environment: 'live' });
    expect(await listed()).toContain(ownLive);
    expect(await listed()).not.toContain(ownSandbox);
    expect(await codeOf(ownSandbox)).toBe('NOT_FOUND');

    const bad = await consoleApi(testApp, credential, 'PUT', '/environment', { environment: 'staging' });
    expect(bad.status).toBe(400);
  });

  it("given a console socket, when sessions change, then only the sign-in's tenant and environment are pushed; without the CSRF token the socket is refused", async () => {
    const credential = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'), 'sandbox');
    const socket = consoleSocket(testApp, credential, credential.csrfToken);
    const events = recordStatusEvents(socket);
    await waitForSubscribers(testApp.app.services.live, 1);

    await pendingSession(other.sandboxKey);
    await pendingSession(tenant.liveKey);
    const own = await pendingSession(tenant.sandboxKey);
    const [first] = await events.take(1);

    expect(first).toMatchObject({ sessionId: own, environment: 'sandbox', status: 'pending' });
    events.unsubscribe();
    await socket.dispose();

    const refused = consoleSocket(testApp, credential, undefined);
    const closed = new Promise<number>((resolve) => refused.on('closed', (event) => resolve((event as { code: number }).code)));
    expect(await closed).toBe(4403);
    await refused.dispose();
  });
});

describe('the review queue subscription', () => {
  it('given a console socket on reviewQueue, when sessions of its scope and others change, then it gets only its own sessions entering and leaving review', async () => {
    const credential = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Queue Watcher'), 'sandbox');
    const socket = consoleSocket(testApp, credential, credential.csrfToken);
    const received: { sessionId: string; status: string; previousStatus: string }[] = [];
    const next = new Promise<void>((resolve, reject) => {
      socket.subscribe<{ reviewQueue: { sessionId: string; status: string; previousStatus: string } }>(
        { query: 'subscription { reviewQueue { sessionId status previousStatus } }' },
        {
          next: ({ data }) => {
            received.push(data!.reviewQueue);
            if (received.length === 2) resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    await waitForSubscribers(testApp.app.services.live, 1);

    await inReviewSession(testApp, other.sandboxKey);
    await pendingSession(tenant.sandboxKey);
    const own = await inReviewSession(testApp, tenant.sandboxKey);
    await consoleGql(testApp, credential, REVIEW, { id: own, decision: 'approved', reason: 'checked by hand' });
    await next;

    expect(received).toEqual([
      { sessionId: own, status: 'in_review', previousStatus: 'in_progress' },
      { sessionId: own, status: 'approved', previousStatus: 'in_review' },
    ]);
    await socket.dispose();
  });
});

describe('roles and the audit trail', () => {
  it('given a viewer, when deciding an in-review session or changing a setting, then it is FORBIDDEN and nothing changes', async () => {
    const sessionId = await inReviewSession(testApp, tenant.sandboxKey);
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));

    const review = await consoleGql(testApp, viewer, REVIEW, { id: sessionId, decision: 'declined', reason: 'looks wrong' });
    const workflow = await consoleGql(testApp, viewer, CREATE_WORKFLOW);

    expect(review.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(workflow.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await consoleGql(testApp, viewer, SESSION, { id: sessionId })).body.data.session.status).toBe('in_review');
  });

  it("given a reviewer, when declining an in-review session, then it is declined and the audit trail names the reviewer, not a key; a setting stays an admin's", async () => {
    const sessionId = await inReviewSession(testApp, tenant.sandboxKey);
    const reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Katherine Johnson'));
    const operatorId = (await consoleGql(testApp, reviewer, CURRENT_OPERATOR)).body.data.currentOperator.id;

    const review = await consoleGql(testApp, reviewer, REVIEW, {
      id: sessionId,
      decision: 'declined',
      reason: 'document photo of a screen',
    });
    const workflow = await consoleGql(testApp, reviewer, CREATE_WORKFLOW);

    expect(review.body.data.reviewSession.status).toBe('declined');
    expect(workflow.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const history = (await testApp.graphql(SESSION, { id: sessionId }, tenant.sandboxKey)).body.data.session.reviewHistory;
    expect(history.at(-1)).toEqual({
      actor: 'reviewer',
      toStatus: 'declined',
      actorKeyId: null,
      actorOperatorId: operatorId,
      actorName: 'Katherine Johnson',
      reason: 'document photo of a screen',
    });
  });

  it('given two reviewers, when both decide one case at the same moment, then exactly one decision wins and the other is told it came too late', async () => {
    const sessionId = await inReviewSession(testApp, tenant.sandboxKey);
    const [first, second] = await Promise.all([
      signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'First Reviewer')),
      signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Second Reviewer')),
    ]);

    const answers = await Promise.all([
      consoleGql(testApp, first, REVIEW, { id: sessionId, decision: 'approved', reason: 'looks fine' }),
      consoleGql(testApp, second, REVIEW, { id: sessionId, decision: 'declined', reason: 'looks wrong' }),
    ]);

    const won = answers.filter((answer) => answer.body.data?.reviewSession);
    const lost = answers.filter((answer) => answer.body.errors);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
    const history = (await testApp.graphql(SESSION, { id: sessionId }, tenant.sandboxKey)).body.data.session;
    const decisions = history.reviewHistory.filter((change: { actor: string }) => change.actor === 'reviewer');
    expect(decisions).toHaveLength(1);
    expect(history.status).toBe(won[0]!.body.data.reviewSession.status);
  });

  it('given a case, when a reviewer and a key add notes, then both are listed under their authors; a viewer cannot add one; an empty note is a 400', async () => {
    const sessionId = await inReviewSession(testApp, tenant.sandboxKey);
    const reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Dorothy Vaughan'));
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    const ADD = 'mutation ($sessionId: String!, $body: String!) { addSessionNote(sessionId: $sessionId, body: $body) { authorName } }';

    const byReviewer = await consoleGql(testApp, reviewer, ADD, { sessionId, body: 'Called the customer: the address is a new one.' });
    const byKey = await testApp.rest('POST', `/v1/sessions/${sessionId}/notes`, {
      key: tenant.sandboxKey,
      body: { body: 'CRM ticket 4711' },
    });
    const byViewer = await consoleGql(testApp, viewer, ADD, { sessionId, body: 'viewer note' });
    const empty = await testApp.rest('POST', `/v1/sessions/${sessionId}/notes`, { key: tenant.sandboxKey, body: { body: '  ' } });

    expect(byReviewer.body.data.addSessionNote.authorName).toBe('Dorothy Vaughan');
    expect(byKey.status).toBe(201);
    expect(byKey.body).toMatchObject({ session_id: sessionId, author_name: `api_key:${tenant.sandboxKeyId}`, body: 'CRM ticket 4711' });
    expect(byViewer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(empty.status).toBe(400);
    const notes = (
      await consoleGql(testApp, viewer, 'query ($id: String!) { session(id: $id) { notes { authorName body } } }', { id: sessionId })
    ).body.data.session.notes;
    expect(notes).toEqual([
      { authorName: 'Dorothy Vaughan', body: 'Called the customer: the address is a new one.' },
      { authorName: `api_key:${tenant.sandboxKeyId}`, body: 'CRM ticket 4711' },
    ]);
  });

  it("given an operator of another tenant, when deciding this tenant's in-review session, then it is NOT_FOUND", async () => {
    const sessionId = await inReviewSession(testApp, tenant.sandboxKey);
    const stranger = await signIn(testApp, await makeOperator(testApp, other.id, 'admin'));

    const review = await consoleGql(testApp, stranger, REVIEW, { id: sessionId, decision: 'approved', reason: 'mine now' });

    expect(review.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('given an admin, when adding an operator, then the new one can sign in; a reviewer or an API key cannot add one, nor an address already used', async () => {
    const admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'));
    const reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'));
    const input = {
      email: `added-${Math.random().toString(36).slice(2)}@example.com`,
      name: 'Added Person',
      role: 'viewer',
      password: OPERATOR_PASSWORD,
    };

    const created = await consoleGql(testApp, admin, CREATE_OPERATOR, { input });
    const again = await consoleGql(testApp, admin, CREATE_OPERATOR, { input });
    const byReviewer = await consoleGql(testApp, reviewer, CREATE_OPERATOR, { input: { ...input, email: `r-${input.email}` } });
    const byKey = await testApp.graphql(CREATE_OPERATOR, { input: { ...input, email: `k-${input.email}` } }, tenant.liveKey);
    const short = await consoleGql(testApp, admin, CREATE_OPERATOR, { input: { ...input, email: `s-${input.email}`, password: 'short' } });

    expect(created.body.data.createOperator).toMatchObject({ email: input.email, role: 'viewer' });
    expect((await postSignIn(testApp, { email: input.email, password: OPERATOR_PASSWORD })).status).toBe(200);
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(byReviewer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(byKey.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(short.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('given an API key, when asking who is signed in, then it is null', async () => {
    const answer = await testApp.graphql(CURRENT_OPERATOR, {}, tenant.sandboxKey);

    expect(answer.body).toEqual({ data: { currentOperator: null } });
  });
});
