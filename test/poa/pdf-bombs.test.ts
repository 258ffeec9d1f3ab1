/**
 * PDF decompression bombs (audit N1, shaped like h3_pdf_dos.mjs and pdf_engine_starvation.mjs):
 * 2–4 KB files whose streams chain filters or sit in object streams, which pdf-lib and pdf.js
 * would decode to a gigabyte. Each must be refused with a 400 naming the limit; meanwhile another
 * tenant's normal proof of address still completes; and the PDF worker's own time and memory
 * bounds refuse what the decode budget is configured to let through. The PDFs are generated here
 * (no fixture file): the gigabytes are described, never held. No timed assertion: a refusal that
 * hung would meet the test's own timeout.
 */
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { billPdf, dataUri, daysAgo, longDate, rawPdf, streamObject, zerosFlate } from './fixtures.js';

/** A bill issued five days ago: fresh enough to be accepted. */
const freshBill = () => billPdf({ issued: longDate(daysAgo(5)) });

const TEXT = Buffer.from('BT /F1 12 Tf 72 700 Td (Jane Doe 42 Baker Street London NW1 6XE Electricity bill) Tj ET');
const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>';
const HEAD = [
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
  '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
];

/** One page whose content stream has the filter entries given and the encoded bytes. */
const onePage = (filter: string, data: Buffer) => rawPdf([...HEAD, streamObject(filter, data), PAGE]);

/** The audit's bombs: each decodes to `megabytes` MB through a filter chain or an object stream. */
const BOMBS: Record<string, (megabytes: number) => Buffer> = {
  // [Flate Flate]: the outer stream is a few KB; its output is the 1 MB zlib of the gigabyte.
  flate2: (megabytes) => onePage('/Filter [/FlateDecode /FlateDecode]', deflateSync(zerosFlate(megabytes), { level: 9 })),
  // [ASCIIHex Flate]: the first filter is not Flate, which the old cap did not look at.
  hexflate: (megabytes) => onePage('/Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from(`${zerosFlate(megabytes).toString('hex')}>`)),
  // An object stream, which pdf-lib decodes while loading the file.
  objstm: (megabytes) =>
    rawPdf([
      ...HEAD,
      streamObject('', TEXT),
      PAGE,
      streamObject('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', zerosFlate(megabytes)),
    ]),
  // Abbreviated and #-escaped filter names, as pdf.js reads them.
  escaped: (megabytes) => onePage('/Filter [/Fl /Flat#65Decode]', deflateSync(zerosFlate(megabytes), { level: 9 })),
  // A run-length stage after Flate: its output is counted too.
  flaterle: (megabytes) => {
    // 128 repeats of "take the next byte 128 times", then EOD: 16 KB per 256 bytes of input.
    const run = Buffer.alloc(256);
    for (let index = 0; index < 256; index += 2) run[index] = 129;
    const runs = Buffer.concat(Array.from({ length: 64 * megabytes }, () => run));
    return onePage('/Filter [/FlateDecode /RunLengthDecode]', deflateSync(Buffer.concat([runs, Buffer.from([128])]), { level: 9 }));
  },
};

let testApp: TestApp;
let tenantA: TestTenant;
let tenantB: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenantA = await testApp.tenant();
  tenantB = await testApp.tenant();
});
afterAll(() => testApp.close());

const check = (app: TestApp, key: string, pdf: Buffer) =>
  app.rest('POST', '/v1/poa', { key, body: { document_image: dataUri('application/pdf', pdf), expected_name: 'Jane Doe' } });

describe('PoA PDF bombs (audit N1)', () => {
  it.each(Object.keys(BOMBS))(
    'given a small PDF whose %s streams decode to 1 GB, when checked, then 400 limit_exceeded naming the decode limit',
    async (variant) => {
      const pdf = BOMBS[variant](1024);
      expect(pdf.length).toBeLessThan(3 * 1024 * 1024);
      const response = await check(testApp, tenantA.liveKey, pdf);
      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'limit_exceeded' }));
      expect(response.body.detail).toMatch(/decode to more than 67108864 bytes/);
    },
  );

  it('given a bill PDF whose streams are Flate, when checked, then it is read as before (the budget only refuses bombs)', async () => {
    const response = await check(testApp, tenantB.liveKey, await freshBill());
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).toContain('Jane Doe');
  });

  it("given two bombs from tenant A in flight, when tenant B checks a normal bill meanwhile, then B's check completes with its result", async () => {
    const bombs = [BOMBS.flate2(1024), BOMBS.objstm(1024)].map((pdf) => check(testApp, tenantA.liveKey, pdf));
    const normal = await check(testApp, tenantB.liveKey, await freshBill());
    expect(normal.status).toBe(200);
    expect(JSON.stringify(normal.body)).toContain('Jane Doe');
    expect((await Promise.all(bombs)).map((response) => response.status)).toEqual([400, 400]);
  });
});

describe('PoA PDF worker bounds', { timeout: 120_000 }, () => {
  it('given a decode budget raised past the bomb and a short time limit, when a bomb is checked, then 400 naming PDF_WORKER_TIMEOUT_MS', async () => {
    // Inflating the bomb outlasts 50 ms once the thread is reading it: the time limit, not the budget, refuses it.
    const loose = await startTestApp({
      PDF_MAX_DECODED_BYTES: String(2 * 1024 * 1024 * 1024),
      PDF_WORKER_TIMEOUT_MS: '50',
      ENGINE_EXECUTION: 'inline',
    });
    try {
      const tenant = await loose.tenant();
      const response = await check(loose, tenant.liveKey, BOMBS.flate2(1024));
      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'limit_exceeded' }));
      expect(response.body.detail).toMatch(/longer than 50 ms \(PDF_WORKER_TIMEOUT_MS\)/);
    } finally {
      await loose.close();
    }
  });

  it("given a time limit shorter than a PDF worker's start, when a bill is checked on a cold app, then it is read (the limit counts from the read's start)", async () => {
    // A new thread registers tsx and loads pdf-lib, sharp and pdf.js: 1–2 s here. Reading the bill
    // takes 50–130 ms (the first read of a thread the most), so 1 s leaves it room on a loaded machine.
    const cold = await startTestApp({ PDF_WORKER_TIMEOUT_MS: '1000', ENGINE_EXECUTION: 'inline' });
    try {
      const tenant = await cold.tenant();
      const responses = await Promise.all([0, 1, 2].map(async () => check(cold, tenant.liveKey, await freshBill())));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(JSON.stringify(responses[2]!.body)).toContain('Jane Doe');
    } finally {
      await cold.close();
    }
  });

  it('given a PDF worker heap of 48 MB, when a PDF of 150,000 objects is checked, then 400 naming PDF_WORKER_MEMORY_MB, and a normal bill is read after it', async () => {
    const small = await startTestApp({ PDF_WORKER_MEMORY_MB: '48', ENGINE_EXECUTION: 'inline' });
    try {
      const tenant = await small.tenant();
      // Many small indirect objects and no stream to decode: pdf-lib holds every one of them on the heap.
      const objects = Array.from({ length: 150_000 }, (_, index) => `<< /N ${index} /A [1 2 3] >>`);
      const response = await check(small, tenant.liveKey, rawPdf([...HEAD, streamObject('', TEXT), PAGE, ...objects]));
      expect(response.status).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ field: 'document_image', code: 'limit_exceeded' }));
      expect(response.body.detail).toMatch(/more than 48 MB of memory \(PDF_WORKER_MEMORY_MB\)/);
      const normal = await check(small, tenant.liveKey, await freshBill());
      expect(normal.status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
