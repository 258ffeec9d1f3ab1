/**
 * Bounded work for proof-of-address documents: page count known before pages are parsed, capped
 * inflating, one pixel cap, and text from documents cleaned before it is stored. Each bomb is
 * generated here and must be refused with a 400 naming the limit and RSS growth under 100 MB (the server
 * runs in this process, so process.memoryUsage() sees its allocations). No timed assertion: a refusal
 * that hung would meet the test's own timeout; how fast refusals are is for benchmarks, not tests.
 */
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTimeBudget } from '../../src/engines/deadline.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { billLines, dataUri, daysAgo, longDate, rawPdf, streamObject, zerosFlate } from './fixtures.js';

/** Most the process's RSS may grow while a bomb is refused, in bytes. */
const RSS_GROWTH_MAX_BYTES = 100 * 1024 * 1024;

/** A PDF of `pageCount` pages that all share one small text content stream (audit H3). */
function manyPagesPdf(pageCount: number): Buffer {
  const kids = Array.from({ length: pageCount }, (_, index) => `${index + 5} 0 R`).join(' ');
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>';
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`,
    streamObject('', Buffer.from('BT /F1 12 Tf 50 780 Td (Electricity bill) Tj ET')),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from({ length: pageCount }, () => page),
  ]);
}

/** A one-page PDF with the given content stream (and its dictionary entries). */
function onePagePdf(content: Buffer, entries = ''): Buffer {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
    streamObject(entries, content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>',
  ]);
}

/** A PNG whose header declares `width`×`height` pixels over a tiny (truncated) image body. */
function declaredPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  // PDFs are read in a worker thread of their own: its start (a V8 isolate and the PDF libraries)
  // is paid once by an ordinary bill here, so the growth measured below is the bombs' alone.
  await testApp.rest('POST', '/v1/poa', {
    key: tenant.liveKey,
    body: { document_image: dataUri('application/pdf', onePagePdf(Buffer.from('BT /F1 12 Tf 50 780 Td (Electricity bill) Tj ET'))) },
  });
});
afterAll(() => testApp.close());

/** Posts a document to the live PoA check and measures the RSS growth around it. */
async function measuredCheck(document: string): Promise<{ status: number; body: any; rssGrowth: number }> {
  const rssBefore = process.memoryUsage().rss;
  const response = await testApp.rest('POST', '/v1/poa', { key: tenant.liveKey, body: { document_image: document } });
  return {
    status: response.status,
    body: response.body,
    rssGrowth: process.memoryUsage().rss - rssBefore,
  };
}

describe('PoA documents: bounded work', () => {
  it('given a PDF of 10,000 pages sharing one content stream, when checked, then 400 naming the page limit, without memory growth', async () => {
    const bomb = dataUri('application/pdf', manyPagesPdf(10_000));
    const result = await measuredCheck(bomb);
    expect(result.status).toBe(400);
    expect(result.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'limit_exceeded' }));
    expect(result.body.detail).toMatch(/10000 pages/);
    expect(result.rssGrowth).toBeLessThan(RSS_GROWTH_MAX_BYTES);
  });

  it('given a PDF whose content stream inflates to 1 GB of zeros, when checked, then 400 naming the decode limit, without memory growth', async () => {
    const bomb = dataUri('application/pdf', onePagePdf(zerosFlate(1024), '/Filter /FlateDecode'));
    const result = await measuredCheck(bomb);
    expect(result.status).toBe(400);
    expect(result.body.detail).toMatch(/decode to more than/);
    expect(result.rssGrowth).toBeLessThan(RSS_GROWTH_MAX_BYTES);
  });

  it('given a PNG declaring 30000×30000 pixels, when checked, then 400 naming the pixel limit, without memory growth', async () => {
    const result = await measuredCheck(dataUri('image/png', declaredPng(30_000, 30_000)));
    expect(result.status).toBe(400);
    expect(result.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'limit_exceeded' }));
    expect(result.rssGrowth).toBeLessThan(RSS_GROWTH_MAX_BYTES);
  });

  it('given work that outlasts the time budget, when run under it, then 503 service_unavailable with Retry-After and the work is told to stop', async () => {
    let stopped = false;
    const never = new Promise<never>(() => undefined);
    const budgeted = withTimeBudget(never, 20, 'Reading document_image', () => {
      stopped = true;
    });
    await expect(budgeted).rejects.toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '30' } });
    expect(stopped).toBe(true);
    await expect(withTimeBudget(Promise.resolve('read'), 20, 'Reading document_image')).resolves.toBe('read');
  });

  it('given a truncated PNG, when checked, then 400 unreadable, not 500', async () => {
    const truncated = declaredPng(64, 64).subarray(0, 69);
    const response = await testApp.rest('POST', '/v1/poa', {
      key: tenant.liveKey,
      body: { document_image: dataUri('image/png', truncated) },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('document_image');
  });

  it('given a bill PDF whose text holds NUL and control characters, when checked, then answered without them (no 500)', async () => {
    const lines = billLines({ issued: longDate(daysAgo(5)) });
    const text = lines
      .map((line, index) => `BT /F1 12 Tf 50 ${780 - index * 18} Td (${index === 4 ? 'Jane\\000 Doe\\007' : line}) Tj ET`)
      .join('\n');
    const response = await testApp.rest('POST', '/v1/poa', {
      key: tenant.liveKey,
      body: { document_image: dataUri('application/pdf', onePagePdf(Buffer.from(text, 'latin1'))), expected_name: 'Jane Doe' },
    });
    expect(response.status).toBeLessThan(500);
    expect(JSON.stringify(response.body)).not.toMatch(/\\u000[07]/);
  });
});
