import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckRunSchema } from '../../entities/check-run.entity.js';
import { analyseProofOfAddress } from '../../src/engines/poa/engine.js';
import { POA_MAX_AGE_DAYS_LIMIT } from '../../src/checks/poa-check.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { withMetadataUpdate } from './fixtures.js';
import { storedFlipProblems } from '../support/stored-keys.js';

// Real bills and invoices nobody on this project made (../shared/realdata/poa, see its README),
// read by the live engine: fields found by layout (the envelope window, a value beside or below
// its label), not headings nor the due date. Only present on machines that have the shared data
// set; elsewhere the file is skipped with a message.

const DATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/poa');
const NOW = new Date('2026-11-23T12:00:00Z');

if (!existsSync(DATA_DIR)) console.warn(`test/poa/realdata.test.ts skipped: ${DATA_DIR} is absent (the shared real-data set).`);

/** Every string inside a JSON value (JSON.stringify would escape a control character out of sight). */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

/** Analyses one PDF as `POST /v1/proof-of-address` would, and checks its details flip to the stored shape losslessly. */
async function analyseBytes(bytes: Buffer, country?: string) {
  const result = await analyseProofOfAddress(
    { documentImage: `data:application/pdf;base64,${bytes.toString('base64')}`, ...(country ? { country } : {}) },
    { now: () => NOW },
  );
  // What a session would keep of this real output says the same, in snake_case (the one case flip).
  expect(storedFlipProblems(result.details)).toEqual([]);
  return result;
}

/** Analyses one PDF of the data set. */
async function analyseFile(file: string, country?: string) {
  return analyseBytes(await readFile(path.join(DATA_DIR, file)), country);
}

describe.skipIf(!existsSync(DATA_DIR))('proof-of-address engine on real documents', () => {
  describe('given a US electric bill whose labels and values are drawn column by column (MVEA)', () => {
    it('when analysed, then the addressee and address come from the envelope window and the issue date is the bill date, not the due date', async () => {
      const { details } = await analyseFile('bills/electric1.pdf', 'US');

      expect(details.extracted).toEqual({
        name: 'RON A BAUMERT',
        address: '935 FLAMING TREE WAY, MONUMENT CO 80132-9306',
        issuer: 'MVEA',
        issuedAt: '2020-05-13',
      });
      expect(details.textSource).toBe('pdf_text');
    });
  });

  describe('given a bill whose address box starts with the heading "Service address" (Duke Energy)', () => {
    it('when analysed, then the heading is not taken as the name and the issuer is read from the printed domain', async () => {
      const { details } = await analyseFile('bills/electric4.pdf', 'US');

      expect(details.extracted).toMatchObject({
        name: 'KAREN G PEREZ',
        address: '13619 TORTONA LN APT 3121, WINDERMERE FL 34786',
        issuer: 'Duke Energy',
        issuedAt: '2022-02-23',
      });
    });
  });

  describe('given a bill that also prints the next billing date (Con Edison)', () => {
    it('when analysed, then the issue date is the statement\'s "as of" date and the issuer the payee', async () => {
      const { details } = await analyseFile('bills/electric3.pdf', 'US');

      expect(details.extracted).toMatchObject({ name: 'MITCHELL JOHNSON', issuer: 'Con Edison', issuedAt: '2023-03-28' });
    });
  });

  describe('given invoices dated in German, Dutch and French beside a due or order date', () => {
    it.each([
      ['QualityHosting.pdf', '2014-05-07'],
      ['coolblue2.pdf', '2014-03-29'],
      ['free_fiber.pdf', '2015-07-02'],
      ['FlipkartInvoice.pdf', '2015-10-20'],
      ['AmazonWebServices.pdf', '2014-08-03'],
    ])('when %s is analysed, then the issue date is %s', async (file, issuedAt) => {
      const { details } = await analyseFile(file);

      expect(details.extracted.issuedAt).toBe(issuedAt);
    });
  });

  describe('given an invoice whose footer credits the PDF library with its web address', () => {
    it('when analysed, then the issuer is the company above the registered-office line, not the library', async () => {
      const { details } = await analyseFile('NetpresseInvoice.pdf');

      expect(details.extracted.issuer).toBe('NETPRESSE');
    });
  });

  describe('given a real bill saved again with only new metadata appended (an incremental update)', () => {
    it('when analysed, then the update is seen but the bill is not suspected of tampering', async () => {
      const updated = withMetadataUpdate(await readFile(path.join(DATA_DIR, 'bills/electric1.pdf')));

      const { details } = await analyseBytes(updated, 'US');

      expect(details.checks.tamperScore).toBe(0.2);
      expect(details.resultCode).not.toMatch(/tamper/);
      expect(details.extracted.name).toBe('RON A BAUMERT');
    });
  });

  describe('given a real bill whose incremental update rewrote the addressee of page 1 (electric4)', () => {
    it('when analysed a week after its bill date, then it is sent to review as tamper_suspected', async () => {
      const bytes = await readFile(path.join(DATA_DIR, 'bills/electric4.pdf'));

      const analysis = await analyseProofOfAddress(
        { documentImage: `data:application/pdf;base64,${bytes.toString('base64')}`, country: 'US' },
        { now: () => new Date('2022-03-01T12:00:00Z') },
      );

      expect(analysis).toMatchObject({
        status: 'review',
        details: { resultCode: 'tamper_suspected', tamperMethod: 'pdf_structure', checks: { tamperScore: 0.6 } },
      });
    });
  });
});

describe.skipIf(!existsSync(DATA_DIR))('POST /v1/poa with a real bill whose text layer holds 65 control characters (electric1)', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('when checked with a live key, then 200 with its fields, and neither the answer nor the stored run holds a control character', async () => {
    const tenant = await testApp.tenant();
    const bytes = await readFile(path.join(DATA_DIR, 'bills/electric1.pdf'));

    const response = await testApp.rest('POST', '/v1/poa', {
      key: tenant.liveKey,
      body: {
        document_image: `data:application/pdf;base64,${bytes.toString('base64')}`,
        country: 'US',
        max_age_days: POA_MAX_AGE_DAYS_LIMIT,
      },
    });

    expect(response.status).toBe(200);
    expect(response.body.extracted).toEqual({
      name: 'RON A BAUMERT',
      address: '935 FLAMING TREE WAY, MONUMENT CO 80132-9306',
      issuer: 'MVEA',
      issued_at: '2020-05-13',
    });
    const runs = await testApp.app.orm.em.fork().find(CheckRunSchema, { tenant: tenant.id, kind: 'poa' });
    expect(runs).toHaveLength(1);
    const controlCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
    expect(stringsOf(response.body).filter((text) => controlCharacter.test(text))).toEqual([]);
    expect(stringsOf(runs[0].result).filter((text) => controlCharacter.test(text))).toEqual([]);
  });
});
