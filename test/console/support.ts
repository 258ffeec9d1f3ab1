import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { OperatorRole } from '../../entities/operator.entity.js';
import { createOperator } from '../../src/operators/operator.service.js';
import type { TestApp } from '../support/app.js';

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
