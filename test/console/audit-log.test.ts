/**
 * Proof (issue 25): the audit log page's query (who did what, when, from where; filtered; paged)
 * over decisions, evidence views, list changes, key and operator changes; the cases and audit log
 * CSV exports (streamed, filtered as on screen) and the PDF case report, each export itself
 * audited; all behind the console sign-in and inside the tenant and environment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeStandardKyc, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { codeOf, consoleGql, inReviewSession, makeOperator, signIn, type ConsoleCredential } from './support.js';

const AUDIT_LOG = /* GraphQL */ `
  query ($first: Int, $after: String, $filter: AuditLogFilterInput) {
    auditLog(first: $first, after: $after, filter: $filter) {
      edges {
        cursor
        node {
          id
          at
          actorOperatorId
          actorName
          action
          targetType
          targetId
          environment
          clientAddress
          details
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;
const REVIEW = /* GraphQL */ `
  mutation ($id: String!, $reason: String!) {
    reviewSession(id: $id, decision: declined, reason: $reason) {
      status
    }
  }
`;
const CLAIM = /* GraphQL */ `
  mutation ($id: String!) {
    claimSession(id: $id) {
      sessionId
    }
  }
`;
const ADD_NAME = /* GraphQL */ `
  mutation ($listId: String!) {
    addNameListEntry(listId: $listId, input: { name: "Audit Subject", reason: "fraud ring" }) {
      id
    }
  }
`;
const DELETE_ENTRY = /* GraphQL */ `
  mutation ($listId: String!, $entryId: String!) {
    deleteListEntry(listId: $listId, entryId: $entryId)
  }
`;
const NAME_LIST = /* GraphQL */ `
  query {
    lists {
      id
      type
      builtIn
    }
  }
`;
const CREATE_KEY = /* GraphQL */ `
  mutation {
    createApiKey(name: "audited key") {
      apiKey {
        id
      }
    }
  }
`;
const EVIDENCE = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      evidence {
        url
      }
    }
  }
`;

interface Entry {
  id: string;
  at: number;
  actorOperatorId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  environment: string | null;
  clientAddress: string | null;
  details: string;
}

let testApp: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let admin: ConsoleCredential;
let adminLive: ConsoleCredential;
let reviewer: ConsoleCredential;
let otherAdmin: ConsoleCredential;
let declinedId: string;
let pendingReviewId: string;
let imagesSessionId: string;

async function auditLog(credential: ConsoleCredential, variables: Record<string, unknown> = {}): Promise<Entry[]> {
  const answer = await consoleGql(testApp, credential, AUDIT_LOG, { first: 100, ...variables });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data.auditLog.edges.map((edge: { node: Entry }) => edge.node);
}

/** Downloads an export with the console's cookie and CSRF header. */
async function download(credential: ConsoleCredential | null, path: string): Promise<Response> {
  return fetch(`${testApp.url}/console/api${path}`, {
    headers: credential ? { cookie: credential.cookie, 'x-csrf-token': credential.csrfToken } : {},
  });
}

const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

beforeAll(async () => {
  testApp = await startTestApp();
  [tenant, other] = await Promise.all([testApp.tenant(), testApp.tenant()]);
  const adminEmail = await makeOperator(testApp, tenant.id, 'admin', 'Audrey Auditor');
  admin = await signIn(testApp, adminEmail, 'sandbox');
  adminLive = await signIn(testApp, adminEmail, 'live');
  reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Rita Reviewer'), 'sandbox');
  otherAdmin = await signIn(testApp, await makeOperator(testApp, other.id, 'admin', 'Other Admin'), 'sandbox');

  // Given: a claimed and declined case, a case still in review, a list entry added and removed, a key created.
  declinedId = await inReviewSession(testApp, tenant.sandboxKey);
  pendingReviewId = await inReviewSession(testApp, tenant.sandboxKey);
  expect(codeOf(await consoleGql(testApp, reviewer, CLAIM, { id: declinedId }))).toBeNull();
  expect(codeOf(await consoleGql(testApp, reviewer, REVIEW, { id: declinedId, reason: 'forged utility bill' }))).toBeNull();
  const lists = (await consoleGql(testApp, reviewer, NAME_LIST)).body.data.lists as { id: string; type: string; builtIn: boolean }[];
  const nameList = lists.find((list) => list.type === 'name' && list.builtIn)!;
  const added = await consoleGql(testApp, reviewer, ADD_NAME, { listId: nameList.id });
  expect(
    codeOf(await consoleGql(testApp, reviewer, DELETE_ENTRY, { listId: nameList.id, entryId: added.body.data.addNameListEntry.id })),
  ).toBeNull();
  expect(codeOf(await consoleGql(testApp, admin, CREATE_KEY))).toBeNull();

  // A session with kept images, one of them viewed through its signed URL.
  const png = await sharp({ create: { width: 64, height: 40, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const created = await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'standard_kyc', vendor_data: 'audit-images' },
  });
  imagesSessionId = created.body.session_id;
  await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, imagesSessionId, {
    imageFront: dataUri(png),
    selfie: dataUri(png),
  });
  const evidence = (await consoleGql(testApp, reviewer, EVIDENCE, { id: imagesSessionId })).body.data.session.evidence as { url: string }[];
  expect(evidence.length).toBeGreaterThan(0);
  // Evidence links open only within the sign-in that asked for them (audit N13).
  expect((await fetch(`${testApp.url}${evidence[0]!.url}`, { headers: { cookie: reviewer.cookie } })).status).toBe(200);
}, 120_000);
afterAll(() => testApp?.close());

describe('the audit log', () => {
  it('given decisions, claims, list changes, a key and an evidence view, when an admin reads the log, then each is there newest first with who, what, when and from where', async () => {
    const entries = await auditLog(admin);
    const actions = entries.map((entry) => entry.action);

    expect(actions).toEqual(
      expect.arrayContaining([
        'session.claimed',
        'session.declined',
        'list_entry.added',
        'list_entry.deleted',
        'api_key.created',
        'evidence.viewed',
      ]),
    );
    const decline = entries.find((entry) => entry.action === 'session.declined')!;
    expect(decline).toMatchObject({ actorName: 'Rita Reviewer', targetType: 'session', targetId: declinedId, environment: 'sandbox' });
    expect(JSON.parse(decline.details)).toMatchObject({ reason: 'forged utility bill', from_status: 'in_review' });
    expect(decline.clientAddress).toMatch(/127\.0\.0\.1|::1/);
    expect(entries.find((entry) => entry.action === 'evidence.viewed')).toMatchObject({
      actorName: 'Rita Reviewer',
      targetId: imagesSessionId,
    });
    const times = entries.map((entry) => entry.at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('given the log, when filtering by action, actor and dates, then only matching lines come back', async () => {
    const declines = await auditLog(admin, { filter: { action: 'session.declined' } });
    const byRita = await auditLog(admin, { filter: { actor: 'rita' } });
    const future = await auditLog(admin, { filter: { from: Math.floor(Date.now() / 1000) + 3600 } });
    const past = await auditLog(admin, { filter: { to: Math.floor(Date.now() / 1000) - 3600 } });

    expect(declines.map((entry) => entry.targetId)).toEqual([declinedId]);
    expect(byRita.length).toBeGreaterThan(3);
    expect(byRita.every((entry) => entry.actorName === 'Rita Reviewer')).toBe(true);
    expect(future).toEqual([]);
    expect(past).toEqual([]);
  });

  it('given more lines than a page, when paging with after, then every line comes once, in order', async () => {
    const all = await auditLog(admin);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const answer = await consoleGql(testApp, admin, AUDIT_LOG, { first: 2, after });
      const page = answer.body.data.auditLog;
      seen.push(...page.edges.map((edge: { node: Entry }) => edge.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((entry) => entry.id));
  });

  it('given bad filters, when reading, then VALIDATION_FAILED names the field', async () => {
    const badAction = await consoleGql(testApp, admin, AUDIT_LOG, { filter: { action: "x'; drop table" } });
    const badCursor = await consoleGql(testApp, admin, AUDIT_LOG, { after: 'nope' });
    expect(codeOf(badAction)).toBe('VALIDATION_FAILED');
    expect(codeOf(badCursor)).toBe('VALIDATION_FAILED');
  });

  it('given another tenant, the other environment, a reviewer and an API key, when reading the log, then none sees these lines', async () => {
    const otherTenant = await auditLog(otherAdmin);
    const live = await auditLog(adminLive);
    const asReviewer = await consoleGql(testApp, reviewer, AUDIT_LOG);
    const asKey = await testApp.graphql(AUDIT_LOG, {}, tenant.sandboxKey);

    expect(otherTenant.map((entry) => entry.targetId)).not.toContain(declinedId);
    expect(otherTenant.filter((entry) => entry.actorName !== 'Other Admin')).toEqual([]);
    expect(live.filter((entry) => entry.environment !== null)).toEqual([]);
    expect(codeOf(asReviewer)).toBe('FORBIDDEN');
    expect(asKey.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('exports', () => {
  it('given the queue filter, when exporting cases as CSV, then only the matching sessions of the tenant and environment are streamed, and the export is audited', async () => {
    const response = await download(admin, '/exports/sessions.csv?status=in_review');
    const text = await response.text();
    const live = await (await download(adminLive, '/exports/sessions.csv?status=in_review')).text();
    const otherTenant = await (await download(otherAdmin, '/exports/sessions.csv')).text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="sessions-sandbox-\d{4}-\d\d-\d\d\.csv"/);
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'session_id,status,workflow_id,vendor_data,created_at,updated_at,decided_at,expires_at,compliance_level,reason_codes',
    );
    expect(text).toContain(pendingReviewId);
    expect(text).not.toContain(declinedId);
    expect(lines.slice(1).every((line) => line.includes(',in_review,'))).toBe(true);
    expect(live).not.toContain(pendingReviewId);
    expect(otherTenant).not.toContain(pendingReviewId);
    expect((await auditLog(admin, { filter: { action: 'export.sessions_csv' } }))[0]).toMatchObject({ actorName: 'Audrey Auditor' });
  });

  it('given more sessions than one page, when exporting, then every one is in the file once', async () => {
    const vendorData = `many-${Math.random()}`;
    const ids: string[] = [];
    for (let index = 0; index < 105; index += 1) {
      const session = await testApp.rest('POST', '/v1/sessions', {
        key: tenant.sandboxKey,
        body: { workflow_id: 'aml_only', vendor_data: `${vendorData}-${index}` },
      });
      ids.push(session.body.session_id);
    }
    const text = await (await download(admin, '/exports/sessions.csv?status=pending')).text();
    for (const id of ids) expect(text.split(id).length - 1).toBe(1);
  });

  it('given a cell that a spreadsheet would run, when exporting, then it is escaped', async () => {
    await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'aml_only', vendor_data: '=HYPERLINK("http://x")' },
    });
    const text = await (await download(admin, '/exports/sessions.csv?status=pending')).text();
    expect(text).toContain(`'=HYPERLINK`);
  });

  it('given bad parameters or no sign-in, when exporting, then a problem answer and nothing else', async () => {
    const badStatus = await download(admin, '/exports/sessions.csv?status=bogus');
    const badDate = await download(admin, '/exports/audit-log.csv?from=yesterday');
    const anonymous = await download(null, '/exports/sessions.csv');
    const noCsrf = await fetch(`${testApp.url}/console/api/exports/sessions.csv`, { headers: { cookie: admin.cookie } });
    const reviewerAudit = await download(reviewer, '/exports/audit-log.csv');

    expect(badStatus.status).toBe(400);
    expect(badStatus.headers.get('content-type')).toContain('application/problem+json');
    expect(((await badStatus.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('status');
    expect(badDate.status).toBe(400);
    expect(anonymous.status).toBe(401);
    expect(noCsrf.status).toBe(403);
    expect(reviewerAudit.status).toBe(403);
  });

  it('given the audit log filtered by action, when an admin exports it, then the CSV holds those lines and the export is audited', async () => {
    const response = await download(admin, '/exports/audit-log.csv?action=session.declined');
    const text = await response.text();
    const lines = text.trim().split('\r\n');

    expect(response.status).toBe(200);
    expect(lines[0]).toBe('at,actor_name,actor_operator_id,action,target_type,target_id,environment,client_address,details');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(declinedId);
    expect(lines[1]).toContain('Rita Reviewer');
    expect((await auditLog(admin, { filter: { action: 'export.audit_log_csv' } })).length).toBe(1);
  });

  it('given a case, when an operator downloads its report, then a PDF with its checks, reasons, images and timeline comes back, audited with its image views', async () => {
    const viewsBefore = (await auditLog(admin, { filter: { action: 'evidence.viewed' } })).length;
    const response = await download(reviewer, `/sessions/${imagesSessionId}/report.pdf`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const declined = await download(reviewer, `/sessions/${declinedId}/report.pdf`);
    const { text: pdfText } = await extractText(await getDocumentProxy(new Uint8Array(await declined.arrayBuffer())), { mergePages: true });
    // Long lines wrap: compare with every run of white space as one space.
    const text = pdfText.replace(/\s+/g, ' ');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(bytes.slice(0, 5)).toString()).toBe('%PDF-');
    // The person as the document has them: the name read and the issuing country (a detail of the result, not of its `extracted`).
    const document = (await testApp.rest('GET', `/v1/sessions/${imagesSessionId}/decision`, { key: tenant.sandboxKey })).body.node_results
      .document_verification.details;
    const { text: imagesText } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
    expect(imagesText.replace(/\s+/g, ' ')).toContain(
      `Name on the document: ${document.extracted.first_name} ${document.extracted.last_name}`,
    );
    expect(imagesText.replace(/\s+/g, ' ')).toContain(`Country: ${document.issuing_country}`);
    expect(text).toContain(declinedId);
    expect(text).toContain('forged utility bill');
    expect(text).toContain('Rita Reviewer');
    expect(text).toContain('aml_screening');
    const viewsAfter = (await auditLog(admin, { filter: { action: 'evidence.viewed' } })).length;
    expect(viewsAfter).toBeGreaterThan(viewsBefore);
    expect((await auditLog(admin, { filter: { action: 'export.case_report' } })).map((entry) => entry.targetId)).toEqual([
      declinedId,
      imagesSessionId,
    ]);
  });

  it('given names in Latin with accents, Cyrillic, Greek, Chinese, Japanese and Arabic, when the report is downloaded, then each prints as itself (embedded Unicode fonts, not Latin-1)', async () => {
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: {
        workflow_id: 'aml_only',
        vendor_data: `unicode-${Math.random()}`,
        expected_details: { first_name: 'Łukasz Émile', last_name: 'Żółć-Ørsted' },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;
    const names = ['Ольга Смирнова', 'Νίκος Παπαδόπουλος', '王小明', '山田太郎', 'محمد علي'];
    for (const name of names) {
      const added = await consoleGql(
        testApp,
        reviewer,
        'mutation ($id: String!, $body: String!) { addSessionNote(sessionId: $id, body: $body) { id } }',
        {
          id,
          body: `Spoke to ${name} on the phone`,
        },
      );
      expect(codeOf(added)).toBeNull();
    }
    const response = await download(reviewer, `/sessions/${id}/report.pdf`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    mkdirSync('test-artifacts/reports', { recursive: true });
    writeFileSync('test-artifacts/reports/unicode-names.pdf', bytes);
    const { text: pdfText } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    const text = pdfText.replace(/\s+/g, ' ');

    expect(response.status).toBe(200);
    expect(text).toContain('Łukasz Émile Żółć-Ørsted');
    for (const name of names) expect(text, text.slice(text.indexOf('Notes'))).toContain(name);
  });

  it('given another tenant, the other environment or an unknown id, when asking for a report, then 404', async () => {
    expect((await download(otherAdmin, `/sessions/${declinedId}/report.pdf`)).status).toBe(404);
    expect((await download(adminLive, `/sessions/${declinedId}/report.pdf`)).status).toBe(404);
    expect((await download(admin, '/sessions/not-a-uuid/report.pdf')).status).toBe(404);
    expect((await download(null, `/sessions/${declinedId}/report.pdf`)).status).toBe(401);
  });
});
