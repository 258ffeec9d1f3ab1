/**
 * Audit N11, as the audit ran it: after real flows (a standard_kyc session with typed and read
 * identity, a live SMS code, the three standalone checks), read every table of the database with
 * SQL and look for the person's name, date of birth, document number and phone in clear. The only
 * place allowed to hold any of them is the one docs/security.md names: the session search's
 * normalised names (`session_search.name_normalized`, pg_trgm needs them). Everything else
 * a reader shows is opened from sealed values (src/auth/personal-data.ts).
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phoneDigest, sealLegacyPersonalData } from '../../src/auth/personal-data.js';
import { importEntities } from '../../src/engines/aml/store.js';
import { completeStandardKyc, createSession, gql, SANDBOX_IMAGE, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const FIRST_NAME = 'Zebulon';
const LAST_NAME = 'Quixlestone';
const DATE_OF_BIRTH = '1971-03-14';
const DOCUMENT_NUMBER = 'QX4821937';
/** The standalone AML check screens another person, so each finding names its source. */
const AML_NAME = 'Ottoline Brackenbery';
/** How the list spells the person it hits: the list itself (public data) holds this spelling, never the screened one. */
const LISTED_NAME = 'Ottoline Brackenbury';
/** The sandbox engine's placeholder document number, read by the standalone ID check. */
const STANDALONE_DOCUMENT_NUMBER = 'SBX000000';
/** A UK mobile number, fresh per run (the per-number limit spans runs on a server database). */
const PHONE = `+447400${randomInt(100_000, 1_000_000)}`;
const CONTACT_PHONE = `+447400${randomInt(100_000, 1_000_000)}`;

/** Where a personal value may sit in clear, and which values (docs/security.md "Personal data at rest"). */
const DOCUMENTED_EXCEPTIONS: Record<string, string[]> = {
  'public.session_search': [FIRST_NAME, LAST_NAME],
};

const REQUEST_CODE = /* GraphQL */ `
  mutation ($sessionId: String!, $phone: String) {
    requestPhoneCode(sessionId: $sessionId, phone: $phone) {
      sentTo
    }
  }
`;
const CONFIRM_CODE = /* GraphQL */ `
  mutation ($sessionId: String!, $input: PhoneConfirmStepInput!) {
    confirmPhoneCode(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;

/** A real SMS gateway on 127.0.0.1:0 that keeps the last code per number. */
function startGateway(): Promise<{ server: Server; url: string; codes: Map<string, string> }> {
  const codes = new Map<string, string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; text: string };
      codes.set(body.to, body.text.match(/\b(\d{6})\b/)![1]!);
      response.writeHead(202, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`, codes })),
  );
}

/** The spellings of each value a leak could take: as typed, upper case, digits only. */
function needles(): Record<string, string[]> {
  const digits = (phone: string) => phone.replace(/\D/g, '').slice(2);
  return {
    first_name: [FIRST_NAME],
    last_name: [LAST_NAME],
    aml_name: ['Brackenbery'],
    date_of_birth: [DATE_OF_BIRTH, DATE_OF_BIRTH.replace(/-/g, '').slice(2)],
    document_number: [DOCUMENT_NUMBER],
    /** What the sandbox reads from the standalone check's document (no typed identity). */
    standalone_document_number: [STANDALONE_DOCUMENT_NUMBER],
    phone: [digits(PHONE)],
    contact_phone: [digits(CONTACT_PHONE)],
  };
}

let testApp: TestApp;
let tenant: TestTenant;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let sessionId: string;

beforeAll(async () => {
  gateway = await startGateway();
  testApp = await startTestApp({ SMS_PROVIDER: 'http', SMS_GATEWAY_URL: gateway.url });
  tenant = await testApp.tenant();

  // A session with typed identity and contact, its document read, its selfie and its AML step.
  const created = await createSession(testApp, tenant.sandboxKey, {
    workflow_id: 'standard_kyc',
    vendor_data: 'n11-audit',
    expected_details: { first_name: FIRST_NAME, last_name: LAST_NAME, date_of_birth: DATE_OF_BIRTH, country: 'GB' },
    contact_details: { phone: CONTACT_PHONE },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  sessionId = created.body.session_id;
  const status = await completeStandardKyc(testApp, { key: tenant.sandboxKey }, sessionId, {
    fullName: `${FIRST_NAME} ${LAST_NAME}`,
    document: { dateOfBirth: DATE_OF_BIRTH, documentNumber: DOCUMENT_NUMBER },
  });
  expect(['approved', 'in_review']).toContain(status);

  // A live SMS code sent and confirmed.
  const workflow = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.liveKey,
    body: { name: 'Phone only', nodes: [{ type: 'phone_verification', required: true, provider: 'openkyc:sms_otp' }] },
  });
  expect(workflow.status).toBe(201);
  const phoneSession = await createSession(testApp, tenant.liveKey, { workflow_id: workflow.body.workflow_id, vendor_data: 'n11-phone' });
  const credential = { sessionToken: tokenOf(phoneSession.body.url) };
  const requested = await gql(testApp, credential, REQUEST_CODE, { sessionId: phoneSession.body.session_id, phone: PHONE });
  expect(requested.body.errors).toBeUndefined();
  const confirmed = await gql(testApp, credential, CONFIRM_CODE, {
    sessionId: phoneSession.body.session_id,
    input: { code: gateway.codes.get(PHONE) },
  });
  expect(confirmed.body.data.confirmPhoneCode.status).toBe('approved');

  // The standalone checks keep their results; the AML one hits a listed person, so its hit's
  // explanation carries the screened name (as the audit's 22 AML checks did).
  await importEntities(
    testApp.app.orm.em,
    [
      {
        source_list: 'PEP',
        source_id: 'n11-1',
        kind: 'person',
        primary_name: LISTED_NAME,
        aliases: [],
        dates_of_birth: ['1958-11-02'],
        countries: ['GB'],
        programs: [],
        topics: ['role.pep'],
      },
    ],
    { lists: ['PEP'], fileFormat: 'test', checksum: 'n11' },
  );
  const aml = await testApp.rest('POST', '/v1/aml', { key: tenant.liveKey, body: { full_name: AML_NAME, date_of_birth: '1958-11-02' } });
  expect(aml.status, JSON.stringify(aml.body)).toBe(200);
  expect(JSON.stringify(aml.body.hits).toLowerCase()).toContain('brackenbery');
  const document = await testApp.rest('POST', '/v1/id-verification', {
    key: tenant.sandboxKey,
    body: { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE },
  });
  expect(document.status, JSON.stringify(document.body)).toBe(200);
}, 180_000);

afterAll(async () => {
  await testApp?.close();
  await new Promise((resolve) => gateway?.server.close(resolve));
});

/** Every table of every schema but the system's, with the rows whose text form holds `needle` (case-insensitive). */
async function tablesHolding(needle: string): Promise<string[]> {
  const em = testApp.app.orm.em.fork();
  const tables = await em.execute<{ schema: string; name: string }[]>(
    `select table_schema as schema, table_name as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`,
  );
  const found: string[] = [];
  for (const table of tables) {
    const [row] = await em.execute<{ n: number }[]>(
      `select count(*)::int as n from "${table.schema}"."${table.name}" t where strpos(lower(t::text), lower(?)) > 0`,
      [needle],
    );
    if (row!.n > 0) found.push(`${table.schema}.${table.name}`);
  }
  return found;
}

describe('personal data at rest (audit N11)', () => {
  it('given the API, when reading the session, then it still shows what was read and typed', async () => {
    const read = await testApp.rest('GET', `/v1/sessions/${sessionId}`, { key: tenant.sandboxKey });
    expect(read.body.node_results.document_verification.details.extracted).toMatchObject({
      first_name: FIRST_NAME,
      last_name: LAST_NAME,
      date_of_birth: DATE_OF_BIRTH,
      document_number: DOCUMENT_NUMBER,
    });
    expect(read.body.node_results.aml_screening.details.subject.full_name).toBe(`${FIRST_NAME} ${LAST_NAME}`);
  });

  it('given real flows, when every table is read with SQL, then no name, date of birth, document number or phone is in clear outside the documented exception', async () => {
    const leaks: Record<string, string[]> = {};
    for (const [kind, spellings] of Object.entries(needles()))
      for (const needle of spellings) {
        const tables = (await tablesHolding(needle)).filter((table) => !DOCUMENTED_EXCEPTIONS[table]?.includes(needle));
        if (tables.length > 0) leaks[`${kind} (${needle})`] = tables;
      }
    expect(leaks).toEqual({});
  });

  it('given the documented exception, then it holds the normalised name only, nothing else of the person', async () => {
    const [row] = await testApp.app.orm.em
      .fork()
      .execute<{ name_normalized: string }[]>('select name_normalized from session_search where session_id = ?', [sessionId]);
    expect(row!.name_normalized).toContain(`${FIRST_NAME} ${LAST_NAME}`.toLowerCase());
  });
});

describe('sealing what an older version stored in clear', () => {
  /** A session's details, typed details, one SMS code and one check, written back in clear as before sealing existed. */
  async function downgrade(id: string, phone: string): Promise<void> {
    const em = testApp.app.orm.em.fork();
    const read = await testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey });
    for (const [nodeType, result] of Object.entries(read.body.node_results as Record<string, { details: unknown }>))
      await em.execute('update session_node_result set details = ?::jsonb where session_id = ? and node_type = ?', [
        JSON.stringify(result.details),
        id,
        nodeType,
      ]);
    await em.execute('update session set expected_details = ?::jsonb, contact_details = ?::jsonb where id = ?', [
      JSON.stringify({ first_name: FIRST_NAME, last_name: LAST_NAME, date_of_birth: DATE_OF_BIRTH, country: 'GB' }),
      JSON.stringify({ phone: CONTACT_PHONE }),
      id,
    ]);
    await em.execute(
      `insert into phone_otp (id, tenant_id, environment, session_id, phone, code_digest, attempts, status, created_at, expires_at)
       values (?, ?, 'live', ?, ?, 'digest', 0, 'superseded', now(), now())`,
      [randomUUID(), tenant.id, id, phone],
    );
    await em.execute(
      `insert into check_run (id, tenant_id, environment, kind, status, result, created_at) values (?, ?, 'sandbox', 'aml', 'passed', ?::jsonb, now())`,
      [randomUUID(), tenant.id, JSON.stringify({ status: 'passed', subject: { full_name: `${FIRST_NAME} ${LAST_NAME}` } })],
    );
  }

  it('given rows in clear, when the start-up sealing runs in batches, then every one is sealed, readers answer as before, and a second run finds nothing', async () => {
    const ids: string[] = [];
    for (const vendorData of ['n11-legacy-1', 'n11-legacy-2']) {
      const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: vendorData });
      await completeStandardKyc(testApp, { key: tenant.sandboxKey }, created.body.session_id, {
        fullName: `${FIRST_NAME} ${LAST_NAME}`,
        document: { dateOfBirth: DATE_OF_BIRTH, documentNumber: DOCUMENT_NUMBER },
      });
      ids.push(created.body.session_id);
    }
    const before = await Promise.all(ids.map((id) => testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })));
    const legacyPhone = `+447400${randomInt(100_000, 1_000_000)}`;
    for (const id of ids) await downgrade(id, legacyPhone);
    expect(await tablesHolding(DOCUMENT_NUMBER)).toContain('public.session_node_result');
    expect(await tablesHolding(legacyPhone.slice(3))).toContain('public.phone_otp');

    const em = testApp.app.orm.em.fork();
    const sealed = await sealLegacyPersonalData(em, testApp.app.services.secrets, undefined, 1);

    expect(sealed['session_node_result.details']).toBeGreaterThanOrEqual(6);
    expect(sealed['session.expected_details']).toBeGreaterThanOrEqual(2);
    expect(sealed['session.contact_details']).toBeGreaterThanOrEqual(2);
    expect(sealed['check_run.result']).toBeGreaterThanOrEqual(1);
    expect(sealed['phone_otp.phone']).toBe(2);
    for (const needle of [DOCUMENT_NUMBER, DATE_OF_BIRTH, LAST_NAME, legacyPhone.slice(3), CONTACT_PHONE.slice(3)])
      expect(
        (await tablesHolding(needle)).filter((table) => !DOCUMENTED_EXCEPTIONS[table]?.includes(needle)),
        needle,
      ).toEqual([]);
    const digests = await em.execute<{ phone_digest: string }[]>('select phone_digest from phone_otp where session_id in (?)', [ids]);
    expect(digests.map((row) => row.phone_digest)).toEqual(Array(2).fill(await phoneDigest(em, testApp.app.services.secrets, legacyPhone)));
    const after = await Promise.all(ids.map((id) => testApp.rest('GET', `/v1/sessions/${id}`, { key: tenant.sandboxKey })));
    for (const [index, response] of after.entries()) {
      expect(response.body.node_results).toEqual(before[index]!.body.node_results);
      expect(response.body.expected_details).toEqual({
        first_name: FIRST_NAME,
        last_name: LAST_NAME,
        date_of_birth: DATE_OF_BIRTH,
        country: 'GB',
      });
    }

    const again = await sealLegacyPersonalData(em, testApp.app.services.secrets);
    expect(
      Object.values(again).every((count) => count === 0),
      JSON.stringify(again),
    ).toBe(true);
  });
});
