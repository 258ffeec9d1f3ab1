/**
 * Evidence (issue 16.2): the images an end user submits are kept encrypted at rest with the
 * tenant's data key (sealed by the master key), for the tenant's retention period, shown to
 * operators only through short-lived signed URLs, each opening audited with the operator's
 * name, and purged when the period ends.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIDENCE_URL_TTL_SECONDS, evidenceUrlPayload, purgeExpiredEvidence } from '../../src/evidence/evidence.service.js';
import { operatorForToken } from '../../src/operators/operator.service.js';
import { completeStandardKyc, gql, SUBMIT_DOCUMENT, SUBMIT_SELFIE, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { codeOf, consoleApi, consoleGql, makeOperator, signIn, type ConsoleCredential } from './support.js';

const EVIDENCE = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      evidence {
        id
        kind
        nodeType
        contentType
        byteLength
        expiresAt
        url
      }
    }
  }
`;
const SET_RETENTION = /* GraphQL */ `
  mutation ($days: Int!) {
    setEvidenceRetention(days: $days)
  }
`;

let testApp: TestApp;
let tenant: TestTenant;
let reviewer: ConsoleCredential;
let documentPng: Buffer;
let selfiePng: Buffer;

/** A PNG of random noise: bytes that appear nowhere else, so finding them in a table means plaintext. */
function noisePng(seed: number, width = 48, height = 32): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128 + seed, sigma: 40 } },
  })
    .png()
    .toBuffer();
}

const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

/** Opens an evidence URL as the console's page does: with the sign-in's cookie (no cookie when `credential` is null). */
const openUrl = (url: string, credential: ConsoleCredential | null) =>
  fetch(`${testApp.url}${url}`, { headers: credential ? { cookie: credential.cookie } : {} });

/** A sandbox standard_kyc session completed with the two noise images; returns its id. */
async function sessionWithImages(vendorData: string): Promise<string> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key: tenant.sandboxKey,
    body: { workflow_id: 'standard_kyc', vendor_data: vendorData },
  });
  expect(created.status).toBe(201);
  await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id, {
    imageFront: dataUri(documentPng),
    selfie: dataUri(selfiePng),
  });
  return created.body.session_id;
}

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Rosalind Franklin'));
  [documentPng, selfiePng] = await Promise.all([noisePng(1), noisePng(2)]);
}, 60_000);
afterAll(() => testApp?.close());

describe('evidence at rest', () => {
  it('given a session with a document and a selfie, when reading the evidence table, then both are there and neither image is in plaintext anywhere in the rows', async () => {
    const sessionId = await sessionWithImages('evidence-at-rest');
    const em = testApp.app.orm.em.fork();

    const rows = await em.execute<{ kind: string; row: string; ciphertext: string }[]>(
      `select kind, e::text as row, encode(ciphertext, 'hex') as ciphertext from evidence e where session_id = ? order by kind`,
      [sessionId],
    );
    const [keyRow] = await em.execute<{ key_sealed: string }[]>('select key_sealed from tenant_data_key where tenant_id = ?', [tenant.id]);

    expect(rows.map((row) => row.kind)).toEqual(['document_front', 'selfie']);
    for (const image of [documentPng, selfiePng]) {
      // A 16-byte window of the image's pixel data, in every encoding a careless store would use.
      const window = image.subarray(image.length - 40, image.length - 24);
      for (const row of rows) {
        expect(row.row.toLowerCase()).not.toContain(window.toString('hex'));
        expect(row.row).not.toContain(window.toString('base64').slice(0, 20));
        expect(row.ciphertext).not.toContain(window.toString('hex'));
      }
    }
    // The tenant's data key is itself sealed by the master key (envelope format), never stored bare.
    expect(keyRow!.key_sealed).toMatch(/^v2\./);
  });
});

describe('evidence for operators', () => {
  it('given an operator, when opening the signed URLs, then the files come back as submitted and each view is audited with the name', async () => {
    const sessionId = await sessionWithImages('evidence-view');

    const answer = await consoleGql(testApp, reviewer, EVIDENCE, { id: sessionId });
    const evidence = answer.body.data.session.evidence as {
      kind: string;
      url: string;
      contentType: string;
      byteLength: number;
      expiresAt: number;
    }[];
    expect(evidence.map((item) => item.kind)).toEqual(['document_front', 'selfie']);
    const front = evidence[0]!;
    expect(front).toMatchObject({ contentType: 'image/png', byteLength: documentPng.length });
    expect(front.expiresAt - Date.now() / 1000).toBeGreaterThan(29 * 24 * 3600);

    const response = await openUrl(front.url, reviewer);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await response.arrayBuffer()).equals(documentPng)).toBe(true);
    await openUrl(front.url, reviewer);

    const views = await testApp.app.orm.em
      .fork()
      .execute<{ operator_name: string }[]>('select operator_name from evidence_view where session_id = ? order by viewed_at', [sessionId]);
    expect(views.map((view) => view.operator_name)).toEqual(['Rosalind Franklin', 'Rosalind Franklin']);
  });

  it('given a signed URL, when its signature, expiry or file is changed, then it is 404; when its time has passed, 410; nothing is audited', async () => {
    const sessionId = await sessionWithImages('evidence-tamper');
    const [front] = (await consoleGql(testApp, reviewer, EVIDENCE, { id: sessionId })).body.data.session.evidence;
    const url = new URL(front.url, testApp.url);
    const other = (await consoleGql(testApp, reviewer, EVIDENCE, { id: sessionId })).body.data.session.evidence[1];
    const variant = (change: (params: URLSearchParams) => void, path = url.pathname) => {
      const params = new URLSearchParams(url.search);
      change(params);
      return openUrl(`${path}?${params}`, reviewer).then((response) => response.status);
    };
    const signedIn = (await operatorForToken(testApp.app.orm.em.fork(), decodeURIComponent(reviewer.cookie.split('=')[1]!)))!;
    const past = Math.floor(Date.now() / 1000) - 1;

    // The first character changed (it always carries 6 bits of the HMAC; writing "AA" over the last two left a
    // signature that already ended so unchanged, about once in a thousand runs).
    const tampered = (signature: string) => `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await variant((params) => params.set('signature', tampered(params.get('signature')!)))).toBe(404);
    expect(await variant((params) => params.set('expires', String(Number(params.get('expires')) + EVIDENCE_URL_TTL_SECONDS)))).toBe(404);
    expect(await variant(() => undefined, `/console/evidence/${other.id}`)).toBe(404);
    expect(await variant(() => undefined, '/console/evidence/not-a-uuid')).toBe(404);
    const signature = testApp.app.services.secrets.evidenceUrlSignature(evidenceUrlPayload(front.id, signedIn, past));
    expect(
      await variant((params) => {
        params.set('expires', String(past));
        params.set('signature', signature);
      }),
    ).toBe(410);
    const [views] = await testApp.app.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from evidence_view where session_id = ?', [sessionId]);
    expect(Number(views!.n)).toBe(0);
  });

  it('given a signed URL, when it is opened without the cookie, with another sign-in of the same operator, or after sign-out, then it is refused; within its sign-in it opens (audit N13)', async () => {
    const email = await makeOperator(testApp, tenant.id, 'reviewer', 'Barbara McClintock');
    const first = await signIn(testApp, email);
    const second = await signIn(testApp, email);
    const sessionId = await sessionWithImages('evidence-bound');
    const [front] = (await consoleGql(testApp, first, EVIDENCE, { id: sessionId })).body.data.session.evidence;

    const noCookie = await openUrl(front.url, null);
    const otherSignIn = await openUrl(front.url, second);
    const within = await openUrl(front.url, first);
    expect((await consoleApi(testApp, first, 'POST', '/sign-out')).status).toBeLessThan(300);
    const afterSignOut = await openUrl(front.url, first);

    expect(noCookie.status).toBe(401);
    expect(noCookie.headers.get('content-type')).toContain('application/problem+json');
    expect(((await noCookie.json()) as { code: string }).code).toBe('unauthenticated');
    expect(otherSignIn.status).toBe(404);
    expect(within.status).toBe(200);
    expect(Buffer.from(await within.arrayBuffer()).equals(documentPng)).toBe(true);
    expect(afterSignOut.status).toBe(401);
    // Only the one opening within the sign-in was audited.
    const views = await testApp.app.orm.em
      .fork()
      .execute<{ operator_name: string }[]>('select operator_name from evidence_view where session_id = ?', [sessionId]);
    expect(views.map((view) => view.operator_name)).toEqual(['Barbara McClintock']);
  });

  it('given an API key, when asking for evidence, then it is FORBIDDEN; an operator of another tenant does not find the session', async () => {
    const sessionId = await sessionWithImages('evidence-key');
    const stranger = await signIn(testApp, await makeOperator(testApp, (await testApp.tenant()).id, 'admin'));

    const byKey = await testApp.graphql(EVIDENCE, { id: sessionId }, tenant.sandboxKey);
    const byStranger = await consoleGql(testApp, stranger, EVIDENCE, { id: sessionId });

    expect(byKey.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(byStranger.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('retention', () => {
  it('given retention set to 0 by an admin, then kept files expire at once, the purge deletes them and new sessions keep nothing; a reviewer or an API key cannot set it', async () => {
    const other = await testApp.tenant();
    const admin = await signIn(testApp, await makeOperator(testApp, other.id, 'admin'));
    const otherReviewer = await signIn(testApp, await makeOperator(testApp, other.id, 'reviewer'));
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: other.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'retention' },
    });
    await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, created.body.session_id, {
      imageFront: dataUri(documentPng),
      selfie: dataUri(selfiePng),
    });
    const em = testApp.app.orm.em.fork();
    const count = async (tenantId: string) =>
      Number((await em.execute<{ n: string }[]>('select count(*) as n from evidence where tenant_id = ?', [tenantId]))[0]!.n);
    expect(await count(other.id)).toBe(2);

    expect((await consoleGql(testApp, otherReviewer, SET_RETENTION, { days: 0 })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await testApp.graphql(SET_RETENTION, { days: 0 }, other.liveKey)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await consoleGql(testApp, admin, SET_RETENTION, { days: 4000 })).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect((await consoleGql(testApp, admin, SET_RETENTION, { days: 0 })).body.data.setEvidenceRetention).toBe(0);

    // Past their retention the files are hidden at once and deleted by the purge (the job's own function; it runs every 5 minutes).
    expect((await consoleGql(testApp, admin, EVIDENCE, { id: created.body.session_id })).body.data.session.evidence).toEqual([]);
    const before = await count(tenant.id);
    expect(await purgeExpiredEvidence(em)).toBeGreaterThanOrEqual(2);
    expect(await count(other.id)).toBe(0);
    expect(await count(tenant.id)).toBe(before);

    const later = await testApp.rest('POST', '/v1/sessions', {
      key: other.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'retention-0' },
    });
    await completeStandardKyc(testApp, { sessionToken: tokenOf(later.body.url) }, later.body.session_id, {
      imageFront: dataUri(documentPng),
      selfie: dataUri(selfiePng),
    });
    expect(await count(other.id)).toBe(0);
  });

  it('given the job runner, when the server starts, then the purge is scheduled', async () => {
    const [schedule] = await testApp.app.orm.em
      .fork()
      .execute<{ cron: string }[]>(`select cron from pgboss.schedule where name = 'evidence-purge'`);

    expect(schedule?.cron).toBe('*/5 * * * *');
  });
});

describe('erasure on request', () => {
  it('given a decided session with evidence, when its tenant erases it over REST, then the files and personal data are gone and the decision and audit trail stay; again changes nothing', async () => {
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: {
        workflow_id: 'standard_kyc',
        vendor_data: 'erase-me',
        expected_details: { first_name: 'Jane', last_name: 'Example' },
        metadata: { crm: 'J-1' },
      },
    });
    const sessionId = created.body.session_id as string;
    expect(
      await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, sessionId, {
        imageFront: dataUri(documentPng),
        selfie: dataUri(selfiePng),
        document: { firstName: 'Jane', lastName: 'Example' },
      }),
    ).toBe('approved');
    const before = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
    expect(JSON.stringify(before.body)).toContain('Example');

    const erased = await testApp.rest('POST', `/v1/sessions/${sessionId}/erase`, { key: tenant.sandboxKey });
    const again = await testApp.rest('POST', `/v1/sessions/${sessionId}/erase`, { key: tenant.sandboxKey });

    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ session_id: sessionId, evidence_deleted: 2 });
    expect(again.body).toEqual({ ...erased.body, evidence_deleted: 0 });
    const em = testApp.app.orm.em.fork();
    const [row] = await em.execute<{ expected_details: unknown; metadata: unknown; erased_by: string; status: string }[]>(
      'select expected_details, metadata, erased_by, status from session where id = ?',
      [sessionId],
    );
    expect(row).toMatchObject({ expected_details: null, metadata: null, erased_by: `api_key:${tenant.sandboxKeyId}`, status: 'approved' });
    const [evidence] = await em.execute<{ n: string }[]>('select count(*) as n from evidence where session_id = ?', [sessionId]);
    expect(Number(evidence!.n)).toBe(0);
    // The decision snapshots kept with the session's events go too (they carry the same fields).
    const [snapshots] = await em.execute<{ n: string }[]>(
      'select count(*) as n from outbox_event where session_id = ? and snapshot is not null',
      [sessionId],
    );
    expect(Number(snapshots!.n)).toBe(0);
    const after = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
    expect(after.body).toMatchObject({ status: 'approved', service_token: before.body.service_token });
    expect(JSON.stringify(after.body)).not.toContain('Example');
    expect(after.body.node_results.document_verification.details).not.toHaveProperty('extracted');
    expect(after.body.node_results.document_verification.details).toHaveProperty('checks');
    const history = (
      await testApp.graphql(
        'query ($id: String!) { session(id: $id) { reviewHistory { toStatus } } }',
        { id: sessionId },
        tenant.sandboxKey,
      )
    ).body.data.session.reviewHistory;
    expect(history.map((change: { toStatus: string }) => change.toStatus)).toEqual(['pending', 'in_progress', 'approved']);
  });

  it('given an active session, when erased, then it is 409; a reviewer may not erase, an admin in the console may', async () => {
    const pending = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'erase-active' },
    });
    const decided = await sessionWithImages('erase-by-admin');
    const admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin', 'Ada Admin'));
    const ERASE = 'mutation ($id: String!) { eraseSession(id: $id) { evidenceDeleted } }';

    const active = await testApp.rest('POST', `/v1/sessions/${pending.body.session_id}/erase`, { key: tenant.sandboxKey });
    const byReviewer = await consoleGql(testApp, reviewer, ERASE, { id: decided });
    const byAdmin = await consoleGql(testApp, admin, ERASE, { id: decided });

    expect(active.status).toBe(409);
    expect(byReviewer.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(byAdmin.body.data.eraseSession.evidenceDeleted).toBe(2);
    const [row] = await testApp.app.orm.em.fork().execute<{ erased_by: string }[]>('select erased_by from session where id = ?', [decided]);
    expect(row!.erased_by).toBe('operator:Ada Admin');
  });
});

const PORTRAIT_EVIDENCE = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      evidence {
        id
        kind
        nodeType
        contentType
        url
        face {
          x
          y
          width
          height
        }
      }
    }
  }
`;

/** A document front with a real face printed on its left, as an ID card carries its portrait. */
async function documentWithFace(): Promise<Buffer> {
  const face = await faceSamplePng(faceSample('faceid'));
  return sharp({ create: { width: 640, height: 400, channels: 3, background: '#e8e2d0' } })
    .composite([{ input: face, left: 40, top: 120 }])
    .png()
    .toBuffer();
}

describe('the document portrait', () => {
  it("given a document front with a face and a selfie, when the case is read, then the portrait cut around the face is kept as evidence with its face box beside the selfie's, opens through its signed URL (audited), stays inside its tenant and environment, and goes with erasure", async () => {
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: 'standard_kyc', vendor_data: 'portrait' },
    });
    const sessionId = created.body.session_id as string;
    await completeStandardKyc(testApp, { sessionToken: tokenOf(created.body.url) }, sessionId, {
      imageFront: dataUri(await documentWithFace()),
      selfie: dataUri(await faceSamplePng(faceSample('detect0'))),
    });
    const evidence = (await consoleGql(testApp, reviewer, PORTRAIT_EVIDENCE, { id: sessionId })).body.data.session.evidence as {
      id: string;
      kind: string;
      nodeType: string;
      contentType: string;
      url: string;
      face: { x: number; y: number; width: number; height: number } | null;
    }[];
    const portrait = evidence.find((item) => item.kind === 'document_portrait');
    const selfie = evidence.find((item) => item.kind === 'selfie');

    expect(portrait).toMatchObject({ nodeType: 'document_verification', contentType: 'image/jpeg' });
    expect(evidence.find((item) => item.kind === 'document_front')?.face).toBeNull();
    // The face fills a good part of the cut (passport framing), and lies inside it.
    expect(portrait!.face!.height).toBeGreaterThan(0.45);
    expect(portrait!.face!.x + portrait!.face!.width).toBeLessThanOrEqual(1);
    expect(selfie!.face!.height).toBeGreaterThan(0.3);

    const opened = await openUrl(portrait!.url, reviewer);
    const bytes = Buffer.from(await opened.arrayBuffer());
    const size = await sharp(bytes).metadata();
    mkdirSync('test-artifacts/screens', { recursive: true });
    writeFileSync('test-artifacts/screens/document-portrait.jpg', bytes);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('image/jpeg');
    // Cut from the 640×400 front around a face of about 100 px: far smaller than the front.
    expect(size.width).toBeLessThan(400);
    expect(size.height).toBeLessThan(400);
    const viewed = await testApp.app.orm.em.fork().execute('select 1 from evidence_view where evidence_id = ?', [portrait!.id]);
    expect(viewed).toHaveLength(1);

    const otherTenant = await testApp.tenant();
    const outsider = await signIn(testApp, await makeOperator(testApp, otherTenant.id, 'reviewer', 'Outside Reviewer'));
    const liveReviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Live Reviewer'), 'live');
    expect(codeOf(await consoleGql(testApp, outsider, PORTRAIT_EVIDENCE, { id: sessionId }))).toBe('NOT_FOUND');
    expect(codeOf(await consoleGql(testApp, liveReviewer, PORTRAIT_EVIDENCE, { id: sessionId }))).toBe('NOT_FOUND');

    const erased = await testApp.rest('POST', `/v1/sessions/${sessionId}/erase`, { key: tenant.sandboxKey });
    expect(erased.status).toBe(200);
    expect(erased.body.evidence_deleted).toBe(3);
    const left = await testApp.app.orm.em.fork().execute('select kind from evidence where session_id = ?', [sessionId]);
    expect(left).toEqual([]);
    expect((await openUrl(portrait!.url, reviewer)).status).toBe(404);
  }, 120_000);
});

describe('face analyses while the engines are overloaded', () => {
  it('given engines that cannot analyse a face within their budget, when a document is submitted, then 503 engine_timeout and nothing is kept or changed (not a document kept without its portrait)', async () => {
    // 10 ms: a face analysis on a cold engine thread (its models load first) never fits.
    const overloaded = await startTestApp({ ENGINE_TIMEOUT_MS: '10' });
    try {
      const owner = await overloaded.tenant();
      const created = await overloaded.rest('POST', '/v1/sessions', {
        key: owner.sandboxKey,
        body: { workflow_id: 'standard_kyc', vendor_data: 'overloaded' },
      });
      expect(created.status).toBe(201);
      const sessionId = created.body.session_id as string;
      const before = await overloaded.rest('GET', `/v1/sessions/${sessionId}`, { key: owner.sandboxKey });
      const document = await gql(overloaded, { sessionToken: tokenOf(created.body.url) }, SUBMIT_DOCUMENT, {
        sessionId,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: dataUri(await noisePng(3, 320, 240)), firstName: 'Jane' },
      });
      expect(document.body.errors?.[0]?.extensions?.code).toBe('ENGINE_TIMEOUT');
      const after = await overloaded.rest('GET', `/v1/sessions/${sessionId}`, { key: owner.sandboxKey });
      expect(after.body).toEqual(before.body);
      const kept = await overloaded.app.orm.em.fork().execute('select id from evidence where session_id = ?', [sessionId]);
      expect(kept).toEqual([]);
    } finally {
      await overloaded.close();
    }
  });

  it("given engines that cannot make the selfie's face template within their budget, when a selfie is submitted, then 503 engine_timeout and nothing changes (not a selfie that skips the face lists and the duplicate search)", async () => {
    const overloaded = await startTestApp({ ENGINE_TIMEOUT_MS: '10' });
    try {
      const owner = await overloaded.tenant();
      // No evidence kept: the face template is the only face analysis of the selfie step.
      const admin = await signIn(overloaded, await makeOperator(overloaded, owner.id, 'admin'));
      expect((await consoleGql(overloaded, admin, SET_RETENTION, { days: 0 })).body.data.setEvidenceRetention).toBe(0);
      const created = await overloaded.rest('POST', '/v1/sessions', {
        key: owner.sandboxKey,
        body: { workflow_id: 'standard_kyc', vendor_data: 'overloaded-selfie' },
      });
      const sessionId = created.body.session_id as string;
      const credential = { sessionToken: tokenOf(created.body.url) };
      const document = await gql(overloaded, credential, SUBMIT_DOCUMENT, {
        sessionId,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: dataUri(documentPng), firstName: 'Jane' },
      });
      expect(document.body.errors).toBeUndefined();
      const before = await overloaded.rest('GET', `/v1/sessions/${sessionId}`, { key: owner.sandboxKey });
      const selfie = await gql(overloaded, credential, SUBMIT_SELFIE, {
        sessionId,
        input: { selfie: dataUri(await noisePng(4, 320, 240)) },
      });
      expect(selfie.body.errors?.[0]?.extensions?.code).toBe('ENGINE_TIMEOUT');
      expect((await overloaded.rest('GET', `/v1/sessions/${sessionId}`, { key: owner.sandboxKey })).body).toEqual(before.body);
      const subjects = await overloaded.app.orm.em
        .fork()
        .execute('select kind from session_list_subject where session_id = ?', [sessionId]);
      expect(subjects).toEqual([]);
    } finally {
      await overloaded.close();
    }
  });
});
