import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckRunSchema } from '../../entities/check-run.entity.js';
import { CPU_ENGINES } from '../../src/engines/cpu-engines.js';
import { PoaResultJson } from '../../src/rest/routes/poa.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { billPdf, billPng, dataUri, daysAgo, longDate, tamperedBillPng } from './fixtures.js';

const FRESH = longDate(daysAgo(5));

// One server for the file: starting an in-memory PGlite costs seconds.
let testApp: TestApp;
let tenant: TestTenant;
let freshPdf: string;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  freshPdf = dataUri('application/pdf', await billPdf({ issued: FRESH }));
});
afterAll(() => testApp.close());

describe('POST /v1/poa (live key)', () => {
  const post = (body: unknown, key: string | null = tenant.liveKey) => testApp.rest('POST', '/v1/poa', { key, body });
  const storedRuns = () => testApp.app.orm.em.fork().find(CheckRunSchema, { tenant: tenant.id, kind: 'poa' });

  describe('given a fresh bill PDF addressed to the expected name', () => {
    it('when checked, then 200 passed with the spec shape, and the result is stored without the document', async () => {
      const response = await post({ document_image: freshPdf, expected_name: 'DOE, jane', country: 'GB' });

      expect(response.status).toBe(200);
      expect(PoaResultJson.strict().safeParse(response.body).success).toBe(true);
      expect(response.body).toMatchObject({
        status: 'passed',
        result_code: 'clear',
        extracted: {
          name: 'Jane Doe',
          address: '42 Baker Street, London NW1 6XE, United Kingdom',
          issuer: 'Northwind Energy Ltd',
          issued_at: daysAgo(5),
        },
        checks: { name_match: 'passed', geocode: 'passed', freshness: 'passed', tamper_score: 0 },
        tamper_method: 'pdf_structure',
        warnings: [],
      });
      const run = (await storedRuns()).find((row) => row.id === response.body.poa_id);
      expect(run).toMatchObject({ kind: 'poa', status: 'passed' });
      expect(JSON.stringify(run?.result)).not.toMatch(/base64|document_image/);
    });
  });

  describe('given a bill addressed to someone else', () => {
    it('when checked, then passed with name_match warning and a name_mismatch warning (not an error)', async () => {
      const response = await post({ document_image: freshPdf, expected_name: 'John Smith' });

      expect(response.status).toBe(200);
      expect(response.body.status).toBe('passed');
      expect(response.body.checks.name_match).toBe('warning');
      expect(response.body.warnings).toEqual([expect.objectContaining({ code: 'name_mismatch', field: 'expected_name' })]);
    });
  });

  describe('given no expected_name', () => {
    it('when checked, then name_match is skipped', async () => {
      const response = await post({ document_image: freshPdf });
      expect(response.status).toBe(200);
      expect(response.body.checks.name_match).toBe('skipped');
    });
  });

  describe('given a bill issued long ago', () => {
    it('when checked with the default max_age_days, then 422 document_too_old and nothing is stored', async () => {
      const before = (await storedRuns()).length;
      const old = dataUri('application/pdf', await billPdf({ issued: longDate(daysAgo(200)) }));

      const response = await post({ document_image: old, expected_name: 'Jane Doe' });

      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ code: 'document_too_old', status: 422 });
      expect(response.body.detail).toContain('max_age_days is 90');
      expect((await storedRuns()).length).toBe(before);
    });
  });

  describe('given max_age_days 30', () => {
    it('when the bill is exactly 30 days old (ISO date), then freshness passes', async () => {
      const pdf = dataUri('application/pdf', await billPdf({ issued: daysAgo(30) }));
      const response = await post({ document_image: pdf, max_age_days: 30 });
      expect(response.status).toBe(200);
      expect(response.body.checks.freshness).toBe('passed');
    });

    it('when the bill is 31 days old (DD/MM/YYYY in GB), then 422 document_too_old', async () => {
      const [year, month, day] = daysAgo(31).split('-');
      const pdf = dataUri('application/pdf', await billPdf({ issued: `${day}/${month}/${year}` }));
      const response = await post({ document_image: pdf, max_age_days: 30, country: 'GB' });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('document_too_old');
    });
  });

  describe('given bad input', () => {
    const cases: [string, () => unknown, string, string][] = [
      ['a missing document_image', () => ({ expected_name: 'Jane Doe' }), 'document_image', 'required'],
      ['a document_image that is not a data URI', () => ({ document_image: 'https://example.com/bill.pdf' }), 'document_image', 'invalid'],
      [
        'a GIF document_image',
        () => ({ document_image: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' }),
        'document_image',
        'unsupported_type',
      ],
      [
        'a PNG label on PDF bytes',
        () => ({ document_image: freshPdf.replace('application/pdf', 'image/png') }),
        'document_image',
        'content_mismatch',
      ],
      ['max_age_days as a string', () => ({ document_image: freshPdf, max_age_days: '30' }), 'max_age_days', 'invalid'],
      ['max_age_days 0', () => ({ document_image: freshPdf, max_age_days: 0 }), 'max_age_days', 'invalid'],
      ['an unknown country', () => ({ document_image: freshPdf, country: 'ZZ' }), 'country', 'invalid'],
      ['an unknown field', () => ({ document_image: freshPdf, image: 'x' }), 'image', 'unknown_field'],
    ];
    it.each(cases)('when the body has %s, then 400 validation_failed naming the field', async (_label, body, field, code) => {
      const response = await post(body());
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    });

    it('when a PDF has neither text nor a page scan, then 400 asking for an image', async () => {
      const empty = await PDFDocument.create();
      empty.addPage();
      const blank = dataUri('application/pdf', await empty.save());
      const response = await post({ document_image: blank });
      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'unreadable' }));
    });

    it('when no key is sent, then 401', async () => {
      const response = await post({ document_image: freshPdf }, null);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('unauthenticated');
    });
  });

  describe('given bill images (OCR)', () => {
    it('when a clean PNG and the same PNG with a pasted name are checked, then the pasted one scores higher and fails as tampered', async () => {
      const clean = await post({
        document_image: dataUri('image/png', await billPng({ issued: FRESH })),
        expected_name: 'Jane Doe',
        country: 'GB',
      });
      const tampered = await post({
        document_image: dataUri('image/png', await tamperedBillPng('Jane Doe', { issued: FRESH })),
        expected_name: 'Jane Doe',
        country: 'GB',
      });

      expect(clean.status).toBe(200);
      expect(clean.body).toMatchObject({
        status: 'passed',
        tamper_method: 'ela',
        extracted: { name: 'Jane Doe', issuer: 'Northwind Energy Ltd', issued_at: daysAgo(5) },
        checks: { name_match: 'passed', geocode: 'passed', freshness: 'passed' },
      });
      expect(clean.body.checks.tamper_score).toBeLessThan(0.5);
      expect(tampered.status).toBe(200);
      expect(tampered.body.checks.tamper_score).toBeGreaterThan(clean.body.checks.tamper_score);
      expect(tampered.body).toMatchObject({ status: 'failed', result_code: 'document_tampered' });
    });
  });

  describe('given the GraphQL mutation', () => {
    it('when checkProofOfAddress runs, then it answers the same result in camelCase', async () => {
      const response = await testApp.graphql(
        `mutation ($input: CheckProofOfAddressInput!) { checkProofOfAddress(input: $input) { poaId status extracted { name issuedAt } checks { nameMatch freshness tamperScore } warnings { code } } }`,
        { input: { documentImage: freshPdf, expectedName: 'Jane Doe', maxAgeDays: 10 } },
        tenant.liveKey,
      );
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.checkProofOfAddress).toMatchObject({
        status: 'passed',
        extracted: { name: 'Jane Doe', issuedAt: daysAgo(5) },
        checks: { nameMatch: 'passed', freshness: 'passed' },
      });
    });
  });
});

describe('POST /v1/poa (sandbox key)', () => {
  it('given sandbox:too_old, when checked, then 422 document_too_old as with a live key', async () => {
    const response = await testApp.rest('POST', '/v1/poa', { key: tenant.sandboxKey, body: { document_image: 'sandbox:too_old' } });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('document_too_old');
  });

  it('given an unknown sandbox token, when checked, then 400 unknown_sandbox_token', async () => {
    const response = await testApp.rest('POST', '/v1/poa', { key: tenant.sandboxKey, body: { document_image: 'sandbox:nope' } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'unknown_sandbox_token' }));
  });

  it('given sandbox:name_mismatch, when checked, then passed with the sandbox warning', async () => {
    const response = await testApp.rest('POST', '/v1/poa', {
      key: tenant.sandboxKey,
      body: { document_image: 'sandbox:name_mismatch', expected_name: 'Jane Doe' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'passed', checks: { name_match: 'warning' }, warnings: [{ code: 'name_mismatch' }] });
    expect(response.body.tamper_method).toBeUndefined();
  });
});

describe('openkyc:poa_ocr workflow engine', () => {
  it('given a too-old bill, when the node runs, then the node fails with document_too_old instead of throwing', async () => {
    const engine = CPU_ENGINES['openkyc:poa_ocr'];
    expect(engine?.nodeType).toBe('proof_of_address');
    const pdf = dataUri('application/pdf', await billPdf({ issued: longDate(daysAgo(120)) }));

    const result = await engine!.run(
      { documentImage: pdf, expectedName: 'Jane Doe', country: 'GB' },
      { tenantId: 't', sessionId: 's', amlScoreThreshold: 80 },
    );

    expect(result).toMatchObject({
      status: 'failed',
      provider: 'openkyc:poa_ocr',
      details: { resultCode: 'document_too_old', checks: { freshness: 'failed', nameMatch: 'passed' } },
    });
  });
});
