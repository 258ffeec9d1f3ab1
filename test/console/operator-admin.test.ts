/**
 * Operator management (issue 16): admins list, add, re-role, disable and reset colleagues of their
 * own organisation only; the last admin cannot be removed; operators change their own password;
 * viewers, reviewers and API keys are refused; every change is audited with the admin's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import {
  codeOf,
  consoleGql,
  makeOperator,
  operatorAuditOf,
  operatorIdOf,
  OPERATOR_PASSWORD,
  postSignIn,
  signIn,
  type ConsoleCredential,
} from './support.js';

const OPERATORS = /* GraphQL */ `
  query {
    operators(first: 100) {
      edges {
        node {
          id
          email
          name
          role
          disabled
          passwordChangeRequired
          totpEnabled
        }
      }
    }
  }
`;

/** The operators an admin lists, oldest first. */
async function operatorsOf(credential: ConsoleCredential): Promise<{ id: string; email: string; role: string; disabled: boolean }[]> {
  return (await consoleGql(testApp, credential, OPERATORS)).body.data.operators.edges.map((edge: { node: any }) => edge.node);
}
const CREATE_OPERATOR = /* GraphQL */ `
  mutation ($input: CreateOperatorInput!) {
    createOperator(input: $input) {
      id
      email
      role
      passwordChangeRequired
    }
  }
`;
const UPDATE_OPERATOR = /* GraphQL */ `
  mutation ($id: String!, $input: UpdateOperatorInput!) {
    updateOperator(id: $id, input: $input) {
      id
      role
      disabled
    }
  }
`;
const RESET_PASSWORD = /* GraphQL */ `
  mutation ($id: String!, $password: String!) {
    resetOperatorPassword(id: $id, password: $password) {
      passwordChangeRequired
    }
  }
`;
const CHANGE_OWN_PASSWORD = /* GraphQL */ `
  mutation ($currentPassword: String!, $newPassword: String!) {
    changeOwnPassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`;
const CURRENT_OPERATOR = /* GraphQL */ `
  query {
    currentOperator {
      id
      passwordChangeRequired
    }
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let admin: ConsoleCredential;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin', 'Alan Turing'));
}, 60_000);
afterAll(() => testApp?.close());

describe('admins manage operators', () => {
  it('given an admin, when adding a reviewer with an initial password, then the reviewer is listed, signs in with it and must change it; audited', async () => {
    const email = `new-${Math.random().toString(36).slice(2, 8)}@example.com`;

    const created = await consoleGql(testApp, admin, CREATE_OPERATOR, {
      input: { email, name: 'Katherine Johnson', role: 'reviewer', password: 'initial password 123' },
    });
    const listed = await operatorsOf(admin);
    const signedIn = await postSignIn(testApp, { email, password: 'initial password 123', environment: 'sandbox' });

    expect(created.body.data.createOperator).toMatchObject({ email, role: 'reviewer', passwordChangeRequired: true });
    expect(listed.find((operator) => operator.email === email)).toMatchObject({ role: 'reviewer', disabled: false });
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as any).operator.temporary_credential).toBe(true);
    expect(
      (await operatorAuditOf(testApp, created.body.data.createOperator.id)).map((row) => `${row.action} by ${row.actor_name}`),
    ).toEqual(['operator.created by Alan Turing']);
  });

  it('given a reviewer, when the admin makes them a viewer, disables and enables them, then each is applied, a disabled one cannot sign in, and each is audited', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer', 'Dorothy Vaughan');
    const colleague = await signIn(testApp, email);
    const id = await operatorIdOf(testApp, colleague);

    const demoted = await consoleGql(testApp, admin, UPDATE_OPERATOR, { id, input: { role: 'viewer' } });
    const disabled = await consoleGql(testApp, admin, UPDATE_OPERATOR, { id, input: { disabled: true } });
    const oldCookie = await consoleGql(testApp, colleague, CURRENT_OPERATOR);
    const refused = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD });
    const enabled = await consoleGql(testApp, admin, UPDATE_OPERATOR, { id, input: { disabled: false } });

    expect(demoted.body.data.updateOperator).toEqual({ id, role: 'viewer', disabled: false });
    expect(disabled.body.data.updateOperator.disabled).toBe(true);
    expect(oldCookie.status).toBe(401);
    expect(refused.status).toBe(401);
    expect(enabled.body.data.updateOperator.disabled).toBe(false);
    expect((await operatorAuditOf(testApp, id)).map((row) => `${row.action} by ${row.actor_name}`)).toEqual([
      'operator.role_changed by Alan Turing',
      'operator.disabled by Alan Turing',
      'operator.enabled by Alan Turing',
    ]);
  });

  it('given the only admin of an organisation, when demoting or disabling themselves, then LAST_ADMIN and nothing changes; with a second admin it works', async () => {
    const lone = await testApp.tenant();
    const only = await signIn(testApp, await makeOperator(testApp, lone.id, 'admin', 'Only Admin'));
    const id = await operatorIdOf(testApp, only);

    expect(codeOf(await consoleGql(testApp, only, UPDATE_OPERATOR, { id, input: { role: 'reviewer' } }))).toBe('LAST_ADMIN');
    expect(codeOf(await consoleGql(testApp, only, UPDATE_OPERATOR, { id, input: { disabled: true } }))).toBe('LAST_ADMIN');
    expect(await operatorsOf(only)).toMatchObject([{ role: 'admin', disabled: false }]);

    await makeOperator(testApp, lone.id, 'admin', 'Second Admin');
    expect((await consoleGql(testApp, only, UPDATE_OPERATOR, { id, input: { role: 'reviewer' } })).body.data.updateOperator.role).toBe(
      'reviewer',
    );
  });

  it('given a forgotten password, when the admin sets a temporary one, then old sign-ins end, the temporary one works for nothing but replacing it, and the operator replaces it', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer', 'Mary Jackson');
    const before = await signIn(testApp, email);
    const id = await operatorIdOf(testApp, before);

    const reset = await consoleGql(testApp, admin, RESET_PASSWORD, { id, password: 'temporary password 1' });
    expect(reset.body.data.resetOperatorPassword.passwordChangeRequired).toBe(true);
    expect((await consoleGql(testApp, before, CURRENT_OPERATOR)).status).toBe(401);

    const response = await postSignIn(testApp, { email, password: 'temporary password 1', environment: 'sandbox' });
    const after = { cookie: response.headers.get('set-cookie')!.split(';')[0]!, csrfToken: ((await response.json()) as any).csrf_token };
    const beforeChange = await consoleGql(testApp, after, 'mutation { startTotpEnrolment { secret } }');
    const wrong = await consoleGql(testApp, after, CHANGE_OWN_PASSWORD, {
      currentPassword: 'not it at all',
      newPassword: 'my own new password',
    });
    const changed = await consoleGql(testApp, after, CHANGE_OWN_PASSWORD, {
      currentPassword: 'temporary password 1',
      newPassword: 'my own new password',
    });

    expect(codeOf(beforeChange)).toBe('FORBIDDEN');
    expect(codeOf(wrong)).toBe('VALIDATION_FAILED');
    expect(changed.body.data?.changeOwnPassword).toBe(true);
    expect((await consoleGql(testApp, after, CURRENT_OPERATOR)).body.data.currentOperator.passwordChangeRequired).toBe(false);
    expect((await postSignIn(testApp, { email, password: 'my own new password' })).status).toBe(200);
    expect((await operatorAuditOf(testApp, id)).map((row) => `${row.action} by ${row.actor_name}`)).toEqual([
      'operator.password_reset by Alan Turing',
      'operator.password_changed by Mary Jackson',
    ]);
  });
});

describe('who may manage operators', () => {
  it('given a reviewer, a viewer and an API key, when listing or changing operators, then each is FORBIDDEN', async () => {
    const reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'));
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    const target = await operatorIdOf(testApp, viewer);

    for (const credential of [reviewer, viewer]) {
      expect(codeOf(await consoleGql(testApp, credential, OPERATORS))).toBe('FORBIDDEN');
      expect(codeOf(await consoleGql(testApp, credential, UPDATE_OPERATOR, { id: target, input: { role: 'admin' } }))).toBe('FORBIDDEN');
      expect(codeOf(await consoleGql(testApp, credential, RESET_PASSWORD, { id: target, password: 'some password 123' }))).toBe(
        'FORBIDDEN',
      );
    }
    expect((await testApp.graphql(OPERATORS, {}, tenant.sandboxKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      (await testApp.graphql(UPDATE_OPERATOR, { id: target, input: { role: 'admin' } }, tenant.sandboxKey)).body.errors?.[0]?.extensions
        ?.code,
    ).toBe('FORBIDDEN');
  });

  it('given an operator of another organisation, when an admin changes or resets them, then NOT_FOUND, and the list shows only their own people', async () => {
    const outsider = await signIn(testApp, await makeOperator(testApp, other.id, 'reviewer', 'Outsider'));
    const id = await operatorIdOf(testApp, outsider);

    expect(codeOf(await consoleGql(testApp, admin, UPDATE_OPERATOR, { id, input: { disabled: true } }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, admin, RESET_PASSWORD, { id, password: 'some password 123' }))).toBe('NOT_FOUND');
    expect((await operatorsOf(admin)).map((operator) => operator.id)).not.toContain(id);
    expect((await consoleGql(testApp, outsider, CURRENT_OPERATOR)).status).toBe(200);
  });
});
