import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { ageInDays, findDates, findIssueDate } from '../../src/engines/poa/dates.js';
import { extractFields, withOcrSpaces } from '../../src/engines/poa/fields.js';
import { checkAddress } from '../../src/engines/poa/geocode.js';
import { layoutPage, MAX_LAYOUT_ITEMS_PER_PAGE } from '../../src/engines/poa/layout.js';
import { pdfStructureScore, readPdf } from '../../src/engines/poa/pdf.js';
import sharp from 'sharp';
import { billPng, scannedPdf, withMetadataUpdate } from './fixtures.js';
import { nameSimilarity } from '../../src/engines/aml/score.js';

describe('dates', () => {
  it.each([
    ['12 March 2026', undefined, '2026-03-12'],
    ['12th of Mar, 2026', undefined, '2026-03-12'],
    ['12-Mar-2026', undefined, '2026-03-12'],
    ['March 12, 2026', undefined, '2026-03-12'],
    ['Sept 3 2026', undefined, '2026-09-03'],
    ['2026-03-12', 'US', '2026-03-12'],
    ['2026/03/12', undefined, '2026-03-12'],
    ['12/03/2026', 'GB', '2026-03-12'],
    ['12.03.2026', 'DE', '2026-03-12'],
    ['03/12/2026', 'US', '2026-03-12'],
    ['03/25/2026', 'GB', '2026-03-25'],
    ['25/03/2026', 'US', '2026-03-25'],
    ['12/03/26', 'FR', '2026-03-12'],
  ])('given "%s" in %s, then %s', (text, country, iso) => {
    expect(findDates(text, country)[0]?.iso).toBe(iso);
  });

  it('given impossible dates, then none is found', () => {
    expect(findDates('31 February 2026 and 2026-13-01')).toEqual([]);
  });

  it('given a due date above the statement date, then the labelled statement date is the issue date', () => {
    expect(findIssueDate(['Due date: 30 April 2026', 'Statement date: 12 March 2026'])).toBe('2026-03-12');
    expect(findIssueDate(['Billing period 1 Jan 2026 to 31 Jan 2026', 'Invoice date', '2026-02-03'])).toBe('2026-02-03');
  });

  it('given unlabelled dates, then the first one not labelled as another kind wins', () => {
    expect(findIssueDate(['Pay by 30 April 2026', 'London, 12 March 2026'])).toBe('2026-03-12');
  });

  it('given a date exactly N days back, then its age is N (UTC calendar days)', () => {
    expect(ageInDays('2026-03-12', new Date('2026-06-10T23:59:00Z'))).toBe(90);
    expect(ageInDays('2026-03-12', new Date('2026-03-11T00:00:00Z'))).toBe(-1);
  });
});

describe('field extraction', () => {
  it('given a labelled bank statement, then labels win over layout', () => {
    const text = [
      'Acme Bank plc',
      'Customer: Ms Émilie Durand',
      'Address: 7 rue de la Paix',
      '75002 Paris',
      'France',
      'Date: 2026-03-01',
      'Balance 100 EUR',
    ].join('\n');
    expect(extractFields(text, { country: 'FR' })).toEqual({
      name: 'Émilie Durand',
      addressLines: ['7 rue de la Paix', '75002 Paris', 'France'],
      issuer: 'Acme Bank plc',
      issuedAt: '2026-03-01',
    });
  });

  it('given a German letter with street before number, then the name is the line above the address', () => {
    const text = ['Stadtwerke München GmbH', '05.02.2026', 'Max Mustermann', 'Hauptstraße 5', '80331 München'].join('\n');
    expect(extractFields(text, { country: 'DE' })).toMatchObject({
      name: 'Max Mustermann',
      addressLines: ['Hauptstraße 5', '80331 München'],
      issuedAt: '2026-02-05',
    });
  });

  it('given a window whose narrow spaces OCR dropped (435W 57 ST2H), then the spaces are put back and the window is the addressee', () => {
    const text = ['conEdison', '', 'MITCHELL JOHNSON', '435W 57 ST2H', 'NEW YORK NY 10019-1723', '', 'Account number 44-6011'].join('\n');
    expect(extractFields(text, { country: 'US' })).toMatchObject({
      name: 'MITCHELL JOHNSON',
      addressLines: ['435 W 57 ST 2H', 'NEW YORK NY 10019-1723'],
    });
    expect(withOcrSpaces('435W 57ST 2H')).toBe('435 W 57 ST 2H');
    // Ordinals and house numbers with a letter are left as printed.
    expect(['1ST AVE', '3RD ST APT 2', '57TH ST', 'Flat 2B', '12A Baker Street'].map(withOcrSpaces)).toEqual([
      '1ST AVE',
      '3RD ST APT 2',
      '57TH ST',
      'Flat 2B',
      '12A Baker Street',
    ]);
  });

  it('given an expected name printed away from the address, then that line is the addressee', () => {
    const text = ['City Water', 'Account holder details', 'John A Smith', 'Notes about the supply', 'Jane Doe', '1 High Street'].join('\n');
    expect(extractFields(text, { expectedName: 'Smith John A', similarity: nameSimilarity }).name).toBe('John A Smith');
  });
});

describe('issuer', () => {
  it('given a period "From: <date>" above the letterhead, then the period is not the issuer', () => {
    const text = ['From: 01/02/2026 To: 28/02/2026', 'Northwind Energy Ltd', 'Jane Doe', '42 Baker Street', 'London NW1 6XE'].join('\n');
    expect(extractFields(text, { country: 'GB' }).issuer).toBe('Northwind Energy Ltd');
  });

  it('given "Cheques payable to: Northwind Energy", then the payee is the issuer', () => {
    const text = ['Electricity bill', 'Jane Doe', '42 Baker Street', 'London NW1 6XE', 'Cheques payable to: Northwind Energy'].join('\n');
    expect(extractFields(text, { country: 'GB' }).issuer).toBe('Northwind Energy');
  });
});

describe('page layout', () => {
  it('given labels and values drawn column by column, then rows pair each label with its value and the address lines form one block', () => {
    const item = (str: string, x: number, y: number) => ({ str, transform: [10, 0, 0, 10, x, y], width: str.length * 5, height: 10 });
    const items = [
      item('Bill date:', 300, 700),
      item('Account:', 300, 688),
      item('Jane Doe', 50, 700),
      item('42 Baker Street', 50, 688),
      item('London NW1 6XE', 50, 676),
      item('12 March 2026', 400, 700),
      item('1234 5678', 400, 688),
    ];

    const layout = layoutPage(items, 800, 1);

    expect(layout.rows.map((cells) => cells.map((cell) => cell.text))).toEqual([
      ['Jane Doe', 'Bill date:', '12 March 2026'],
      ['42 Baker Street', 'Account:', '1234 5678'],
      ['London NW1 6XE'],
    ]);
    expect(layout.blocks[0].lines).toEqual(['Jane Doe', '42 Baker Street', 'London NW1 6XE']);
  });

  it('given a page of 200,000 one-letter items on one row, then only the first MAX_LAYOUT_ITEMS_PER_PAGE are laid out', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => ({ str: 'x', transform: [10, 0, 0, 10, i * 40, 700], width: 5, height: 10 }));

    const layout = layoutPage(items, 800, 1);

    expect(layout.rows.flat()).toHaveLength(MAX_LAYOUT_ITEMS_PER_PAGE);
  });
});

describe('offline address check (geocode)', () => {
  it.each([
    [['42 Baker Street', 'London NW1 6XE'], 'GB', 'passed', 'postcode_valid'],
    [['42 Baker Street', 'London NW1 6XE', 'United Kingdom'], undefined, 'passed', 'postcode_valid'],
    [['42 Baker Street', 'London'], 'GB', 'review', 'postcode_missing'],
    [['1 Main St', 'Springfield, IL 62704'], 'US', 'passed', 'postcode_valid'],
    [['1 Main St', 'Springfield, ZZ 62704'], 'US', 'failed', 'state_invalid'],
    [['1 King St W', 'Toronto ON M5H 1A1'], 'CA', 'passed', 'postcode_valid'],
    [['1 King St W', 'Vancouver BC M5H 1A1'], 'CA', 'failed', 'province_postcode_mismatch'],
    [['7 rue de la Paix', '75002 Paris', 'France'], 'DE', 'failed', 'country_mismatch'],
    [['Damrak 1', '1012 LG Amsterdam'], 'NL', 'passed', 'postcode_valid'],
    [['1 Somewhere Road'], 'KE', 'skipped', 'country_unsupported'],
    [['1 Somewhere Road'], undefined, 'skipped', 'no_country'],
    [[], 'GB', 'review', 'no_address'],
  ] as const)('given %j in %s, then %s (%s)', (lines, country, outcome, reason) => {
    expect(checkAddress(lines, country)).toMatchObject({ outcome, reason });
  });
});

describe('PDF structure score', () => {
  it('given a PDF saved once, then 0; with an appended revision or an editor producer, then higher', async () => {
    const document = await PDFDocument.create();
    document.addPage();
    const once = Buffer.from(await document.save());
    const revised = Buffer.concat([
      once,
      Buffer.from('\n1 0 obj\n<<>>\nendobj\nxref\n0 1\n0000000000 65535 f \ntrailer\n<<>>\nstartxref\n0\n%%EOF\n'),
    ]);
    document.setProducer('Sejda PDF editor');
    const edited = Buffer.from(await document.save());

    expect(pdfStructureScore(once, await PDFDocument.load(once, { updateMetadata: false }))).toBe(0);
    expect(pdfStructureScore(revised, await PDFDocument.load(once, { updateMetadata: false }))).toBe(0.6);
    expect(pdfStructureScore(revised, await PDFDocument.load(once, { updateMetadata: false }), 'added')).toBe(0.2);
    expect(pdfStructureScore(edited, await PDFDocument.load(edited, { updateMetadata: false }), 'added')).toBe(0.6);
    expect(pdfStructureScore(edited, await PDFDocument.load(edited, { updateMetadata: false }))).toBe(0.4);
  });

  it('given a scanned PDF saved again with only new metadata, then the update still scores 0.6 (no text vouches for the scan)', async () => {
    const scan = withMetadataUpdate(
      await scannedPdf(
        await sharp(await billPng())
          .jpeg({ quality: 90 })
          .toBuffer(),
      ),
    );

    const pdf = await readPdf(scan);

    expect(pdf.scans).toHaveLength(1);
    expect(pdf.structureScore).toBe(0.6);
  });
});
