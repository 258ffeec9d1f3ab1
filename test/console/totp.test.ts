/**
 * The optional second factor (issue 16): an operator enrols an authenticator app (secret and QR
 * code shown once, confirmed by a first code), sign-in then asks for a code, a wrong code counts
 * towards the lock-out, a code is never accepted twice, and turning it off takes a code or an
 * admin. The secret is sealed at rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_MAX_FAILED_LOGINS } from '../../src/operators/operator.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import {
  consoleGql,
  makeOperator,
  operatorAuditOf,
  operatorIdOf,
  OPERATOR_PASSWORD,
  postSignIn,
  signIn,
  totpCodeFor,
  type ConsoleCredential,
} from './support.js';

const START = /* GraphQL */ `
  mutation {
    startTotpEnrolment {
      secret
      otpauthUri
      qrSvg
    }
  }
`;
const CONFIRM = /* GraphQL */ `
  mutation ($code: String!) {
    confirmTotpEnrolment(code: $code)
  }
`;
const DISABLE_OWN = /* GraphQL */ `
  mutation ($code: String!) {
    disableOwnTotp(code: $code)
  }
`;
const RESET_TOTP = /* GraphQL */ `
  mutation ($id: String!) {
    resetOperatorTotp(id: $id)
  }
`;
const CURRENT_OPERATOR = /* GraphQL */ `
  query {
    currentOperator {
      id
      totpEnabled
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

/** A code that is certainly wrong for `secret` now. */
function wrongCode(secret: string): string {
  const right = new Set([-1, 0, 1].map((steps) => totpCodeFor(secret, steps)));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!right.has(candidate)) return candidate;
  }
}

/** Enrols an operator's second factor; returns the secret. */
async function enrol(credential: ConsoleCredential): Promise<string> {
  const started = await consoleGql(testApp, credential, START);
  const secret = started.body.data.startTotpEnrolment.secret as string;
  const confirmed = await consoleGql(testApp, credential, CONFIRM, { code: totpCodeFor(secret) });
  expect(confirmed.body.data?.confirmTotpEnrolment, JSON.stringify(confirmed.body)).toBe(true);
  return secret;
}

describe('enrolling', () => {
  it('given a viewer, when enrolling, then the secret and QR code are shown once, a wrong first code is refused, a right one confirms, and the secret is sealed at rest', async () => {
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer', 'Vera Viewer'));

    const started = await consoleGql(testApp, viewer, START);
    const { secret, otpauthUri, qrSvg } = started.body.data.startTotpEnrolment;
    const wrong = await consoleGql(testApp, viewer, CONFIRM, { code: wrongCode(secret) });
    const right = await consoleGql(testApp, viewer, CONFIRM, { code: totpCodeFor(secret) });
    const again = await consoleGql(testApp, viewer, START);

    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/openkyc:.+\?.*secret=/);
    expect(qrSvg).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(wrong.body.errors[0].extensions.code).toBe('OTP_INVALID');
    expect(right.body.data.confirmTotpEnrolment).toBe(true);
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await consoleGql(testApp, viewer, CURRENT_OPERATOR)).body.data.currentOperator.totpEnabled).toBe(true);
    const [row] = await testApp.app.orm.em.fork().execute<{ secret_sealed: string }[]>('select secret_sealed from operator_totp');
    expect(row!.secret_sealed).not.toContain(secret);
    expect(row!.secret_sealed).toMatch(/^v2\./);
  });

  it('given an API key, when enrolling, then it is FORBIDDEN: a second factor is a person’s', async () => {
    const answer = await testApp.graphql(START, {}, tenant.sandboxKey);

    expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('signing in with a second factor', () => {
  it('given an enrolled operator, when signing in without a code, with a wrong one, with the right one and with that one again, then it asks, refuses, admits and refuses the replay', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer', 'Tess Totp');
    const secret = await enrol(await signIn(testApp, email));
    const next = totpCodeFor(secret, 1);

    const without = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD });
    const wrong = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, totp_code: wrongCode(secret) });
    const right = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, totp_code: next });
    const replayed = await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, totp_code: next });

    expect(without.status).toBe(401);
    expect(((await without.json()) as any).code).toBe('second_factor_required');
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).code).toBe('unauthenticated');
    expect(right.status).toBe(200);
    expect(((await right.json()) as any).operator.totp_enabled).toBe(true);
    expect(replayed.status).toBe(401);
  });

  it(`given an enrolled operator, when ${OPERATOR_MAX_FAILED_LOGINS} wrong codes follow the right password, then the account is locked`, async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer');
    const secret = await enrol(await signIn(testApp, email));

    const answers: number[] = [];
    for (let attempt = 0; attempt < OPERATOR_MAX_FAILED_LOGINS; attempt += 1)
      answers.push((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, totp_code: wrongCode(secret) })).status);

    expect(answers).toEqual([...Array(OPERATOR_MAX_FAILED_LOGINS - 1).fill(401), 429]);
    expect((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD, totp_code: totpCodeFor(secret, 1) })).status).toBe(429);
  });
});

describe('turning it off', () => {
  it('given an enrolled operator, when turning it off with a wrong code then a right one, then the first is refused, the second works and sign-in needs no code; audited', async () => {
    const email = await makeOperator(testApp, tenant.id, 'viewer', 'Olga Off');
    const credential = await signIn(testApp, email);
    const secret = await enrol(credential);

    const wrong = await consoleGql(testApp, credential, DISABLE_OWN, { code: wrongCode(secret) });
    const right = await consoleGql(testApp, credential, DISABLE_OWN, { code: totpCodeFor(secret, 1) });

    expect(wrong.body.errors[0].extensions.code).toBe('OTP_INVALID');
    expect(right.body.data.disableOwnTotp).toBe(true);
    expect((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD })).status).toBe(200);
    const audit = await operatorAuditOf(testApp, await operatorIdOf(testApp, credential));
    expect(audit.map((row) => `${row.action} by ${row.actor_name}`)).toEqual([
      'operator.totp_enrolled by Olga Off',
      'operator.totp_disabled by Olga Off',
    ]);
  });

  it('given an operator who lost their phone, when an admin resets the second factor, then they sign in without a code; a reviewer or another organisation’s admin cannot', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer', 'Lost Phone');
    const credential = await signIn(testApp, email);
    await enrol(credential);
    const id = await operatorIdOf(testApp, credential);
    const admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin'));
    const foreignAdmin = await signIn(testApp, await makeOperator(testApp, other.id, 'admin'));

    expect((await consoleGql(testApp, credential, RESET_TOTP, { id })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await consoleGql(testApp, foreignAdmin, RESET_TOTP, { id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await consoleGql(testApp, admin, RESET_TOTP, { id })).body.data.resetOperatorTotp).toBe(true);
    expect((await postSignIn(testApp, { email, password: OPERATOR_PASSWORD })).status).toBe(200);
  });
});
