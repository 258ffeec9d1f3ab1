import { createClient, type Client } from 'graphql-ws';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { OperatorRole } from '../../entities/operator.entity.js';
import { createOperator } from '../../src/operators/operator.service.js';
import type { TestApp } from '../support/app.js';
import { gql, tokenOf } from '../sessions/support.js';

/** A password good enough for the rules; every test operator has it. */
export const OPERATOR_PASSWORD = 'correct horse battery staple';

/** A console sign-in as a browser holds it: the cookie and the CSRF token the page was given. */
export interface ConsoleCredential {
  cookie: string;
  csrfToken: string;
}

/** Creates an operator of a tenant directly through the service (the CLI's path); returns its address. */
export async function makeOperator(testApp: TestApp, tenantId: string, role: OperatorRole, name = `Operator ${role}`): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  await createOperator(testApp.app.orm.em.fork(), { tenantId, email, name, role, password: OPERATOR_PASSWORD });
  return email;
}

/** Posts the sign-in form as the console does; returns the raw answer. */
export async function postSignIn(testApp: TestApp, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${testApp.url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Signs an operator in and keeps what a browser keeps. */
export async function signIn(testApp: TestApp, email: string, environment: ApiKeyEnvironment = 'sandbox'): Promise<ConsoleCredential> {
  const response = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, environment });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  const body = (await response.json()) as { csrf_token: string };
  return { cookie, csrfToken: body.csrf_token };
}

/** Posts a GraphQL operation as the console does: the cookie, and the CSRF header unless overridden. */
export async function consoleGql(
  testApp: TestApp,
  credential: ConsoleCredential,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = { 'x-csrf-token': credential.csrfToken },
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${testApp.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: credential.cookie, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await response.json() };
}

/** Calls one of the console's sign-in routes with the cookie and the CSRF header. */
export async function consoleApi(
  testApp: TestApp,
  credential: ConsoleCredential,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${testApp.url}/console/api${path}`, {
    method,
    headers: {
      cookie: credential.cookie,
      'x-csrf-token': credential.csrfToken,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const SUBMIT_AML = /* GraphQL */ `
  mutation ($sessionId: String!, $input: AmlStepInput!) {
    submitAmlData(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;

/** A sandbox session of `key` sent to in_review by the sandbox's PEP name. */
export async function inReviewSession(testApp: TestApp, key: string): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `review-${Math.random()}` },
  });
  expect(created.status).toBe(201);
  const submitted = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_AML, {
    sessionId: created.body.session_id,
    input: { fullName: 'Sandbox Pep', country: 'GB' },
  });
  expect(submitted.body.data?.submitAmlData.status, JSON.stringify(submitted.body)).toBe('in_review');
  return created.body.session_id;
}

/** A graphql-ws client whose upgrade request carries the console cookie, as a browser's would. */
export function consoleSocket(testApp: TestApp, credential: ConsoleCredential, csrfToken: string | undefined): Client {
  class CookieWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { cookie: credential.cookie } });
    }
  }
  return createClient({
    url: `${testApp.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: CookieWebSocket,
    connectionParams: csrfToken ? { 'x-csrf-token': csrfToken } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
}

/** The error code of a GraphQL answer, or null when it succeeded. */
export function codeOf(answer: { body: any }): string | null {
  return answer.body.errors?.[0]?.extensions?.code ?? null;
}

/** The operator id of a console sign-in. */
export async function operatorIdOf(testApp: TestApp, credential: ConsoleCredential): Promise<string> {
  return (await consoleGql(testApp, credential, 'query { currentOperator { id } }')).body.data.currentOperator.id;
}

/** The operator audit trail of one target, oldest first. */
export async function operatorAuditOf(
  testApp: TestApp,
  targetId: string,
): Promise<{ action: string; actor_name: string; environment: string | null }[]> {
  return testApp.app.orm.em
    .fork()
    .execute('select action, actor_name, environment from operator_audit where target_id = ? order by created_at, action', [targetId]);
}

/** The code an authenticator app shows for `secret`, `stepsAhead` 30-second steps from now (the server accepts one either side). */
export function totpCodeFor(secret: string, stepsAhead = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}
