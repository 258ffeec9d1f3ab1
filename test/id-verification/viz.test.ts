import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MrzFields } from '../../src/engines/document/mrz-text.js';
import {
  compareVizWithMrz,
  datesIn,
  mrzSeenSideways,
  parseVizDate,
  readVisualZone,
  readVisualZoneByMrz,
} from '../../src/engines/document/viz.js';

// The visual zone of a data page, located by its captions and compared with the MRZ. The lines
// are what PaddleOCR returned for ICAO 9303's TD3 specimen (fastmrz td3.jpg, upscaled to 1200 px):
// captions printed side by side come as one line, spaces inside names are dropped.

/** A text line with its box (left, top, right, bottom) and, when given, PaddleOCR's mean confidence. */
const line = (text: string, left: number, top: number, right: number, bottom: number, mean?: number) => ({
  text,
  ...(mean === undefined ? {} : { mean }),
  box: [
    [left, top],
    [right, top],
    [right, bottom],
    [left, bottom],
  ],
});

/** A page of `support/viz-pages.json`: OCR lines (text, left, top, right, bottom, mean confidence) as the engine read them from a real photo, and its MRZ fields. */
interface RecordedPage {
  /** The photo, in `../shared/realdata/id`. */
  file: string;
  mrz: MrzFields;
  lines: [string, number, number, number, number, number][];
}

const RECORDED = JSON.parse(readFileSync(new URL('./support/viz-pages.json', import.meta.url), 'utf8')) as Record<string, RecordedPage>;

/** The lines and MRZ of a recorded page. */
const recorded = (name: string) => ({ lines: RECORDED[name].lines.map((row) => line(...row)), mrz: RECORDED[name].mrz });

const MRVA = recorded('mrva');
const MRVB = recorded('mrvb');
const US_VISA = recorded('usVisa');
const CANADA = recorded('canada');

const SPECIMEN_PAGE = [
  line('UTOPIA', 434, 51, 616, 92),
  line('Passport/ Type/Type Country code/Code du pays Passport Number/Ndepasseport', 186, 109, 1155, 151),
  line('Passeport P UTO L898902C3', 184, 147, 1037, 178),
  line('Name/Nom', 433, 188, 537, 209),
  line('ERIKSSON,ANNAMARIA', 446, 216, 760, 239),
  line('Dale of Birth/Date denaissance Personal No/Npersonnel', 436, 361, 1095, 378),
  line('12AUG/AOUT74 ZE184226B', 445, 389, 1051, 410),
  line('Sex/Sexe Place ofbirth/ Lieu denaissance', 432, 419, 948, 443),
  line('F ZENITH', 437, 443, 794, 468),
  line("Dateofexpiry/Dated'expiration", 434, 537, 709, 561),
  line('15APR/AVR12', 446, 563, 633, 584),
];

const SPECIMEN_MRZ: MrzFields = {
  documentCode: 'P',
  issuingState: 'UTO',
  nationality: 'UTO',
  lastName: 'ERIKSSON',
  firstName: 'ANNA MARIA',
  documentNumber: 'L898902C3',
  birthDate: '740812',
  expirationDate: '120415',
  sex: 'F',
};

describe('visual zone of a data page', () => {
  describe('given the OCR lines of the ICAO specimen passport page', () => {
    it('when read, then the name, number and dates are found under their captions, the place of birth is not a date', () => {
      expect(readVisualZone(SPECIMEN_PAGE)).toEqual({
        last_name: 'ERIKSSON,ANNAMARIA',
        first_name: null,
        full_name: null,
        document_number: 'L898902C3',
        date_of_birth: '740812',
        expiry_date: '120415',
      });
    });

    it('when compared with its own MRZ, then every field read is compared and none differs', () => {
      const { compared, mismatches } = compareVizWithMrz(readVisualZone(SPECIMEN_PAGE), SPECIMEN_MRZ);

      expect(compared).toEqual(['last_name', 'document_number', 'date_of_birth', 'expiry_date']);
      expect(mismatches).toEqual([]);
    });

    it('when compared with an MRZ re-printed under another name and birth date, then those fields differ', () => {
      const { mismatches } = compareVizWithMrz(readVisualZone(SPECIMEN_PAGE), {
        ...SPECIMEN_MRZ,
        lastName: 'SMITH',
        firstName: 'JOHN',
        birthDate: '750812',
      });

      expect(mismatches).toEqual([
        { field: 'last_name', viz: 'ERIKSSON,ANNAMARIA', mrz: 'SMITH' },
        { field: 'date_of_birth', viz: '740812', mrz: '750812' },
      ]);
    });

    it('when the MRZ number differs by one character the VIZ font makes look alike, then it is not a mismatch', () => {
      const { mismatches } = compareVizWithMrz(readVisualZone(SPECIMEN_PAGE), { ...SPECIMEN_MRZ, documentNumber: 'L8989O2C3' });

      expect(mismatches).toEqual([]);
    });
  });

  describe('given a card whose captions are in German and whose names carry accents', () => {
    const card = [
      line('Name/Surname/Nom', 300, 100, 520, 120),
      line('MÜLLER', 300, 125, 420, 150),
      line('Vornamen/Given names/Prénoms', 300, 170, 600, 190),
      line('JÖRG ANDRÉ', 300, 195, 480, 220),
      line('Geburtstag/Date of birth: 01.02.1980', 300, 240, 700, 260),
    ];

    it('when compared with the MRZ, then the ICAO 9303 transliteration (Ü → UE) agrees and the accents are kept as printed', () => {
      const viz = readVisualZone(card);
      const { compared, mismatches } = compareVizWithMrz(viz, {
        ...SPECIMEN_MRZ,
        lastName: 'MUELLER',
        firstName: 'JOERG ANDRE',
        birthDate: '800201',
      });

      expect(viz).toMatchObject({ first_name: 'JÖRG ANDRÉ', date_of_birth: '800201' });
      expect(viz.last_name ?? viz.full_name).toBe('MÜLLER');
      expect(compared).toEqual(expect.arrayContaining(['last_name', 'first_name', 'date_of_birth']));
      expect(mismatches).toEqual([]);
    });
  });

  describe('given printed dates', () => {
    it('when parsed, then the common VIZ formats give YYMMDD and impossible dates give nothing', () => {
      expect(parseVizDate('12 AUG/AOUT 74')).toBe('740812');
      expect(parseVizDate('15APR/AVR12')).toBe('120415');
      expect(parseVizDate('01.02.1980')).toBe('800201');
      expect(parseVizDate('3 MAR 2031')).toBe('310303');
      expect(parseVizDate('1974-08-12')).toBe('740812');
      expect(parseVizDate('45.13.1980')).toBeNull();
      expect(parseVizDate('ZENITH')).toBeNull();
    });
  });
});

// Lines as PaddleOCR returned them through the engine (`readMrz`) for pages of the real specimen
// set (../shared/realdata/id) that no field was compared on before the zone was placed by the MRZ.

/** mrz-passporteye/testdata__100_pass-fin.png: a Finnish specimen passport; its small captions come out garbled. */
const FINNISH_PAGE = [
  line('PASSI-PASS SUOMI·FINLAND·FINLAND·FINLANDE', 70, 26, 1124, 56, 0.97),
  line('PASSPORT-PASSEPORT', 71, 56, 353, 79, 0.97),
  line('Teeplhe MS', 375, 82, 648, 102, 0.55),
  line('PmIYP PassgortnoAPausepr', 378, 97, 953, 115, 0.59),
  line('P FIN XP8271602', 380, 116, 968, 144, 0.99),
  line('Virtanen', 376, 175, 527, 206, 1.0),
  line('mEtnmec-Fornm', 380, 207, 521, 228, 0.78),
  line('Maria Olivia', 378, 239, 580, 266, 0.96),
  line('Ka', 843, 274, 890, 284, 0.6),
  line('Suomi Finland Finiard Finlance E', 375, 299, 1053, 328, 0.86),
  line('SrntyinalkarFodcheg 426U', 389, 332, 1020, 368, 0.79),
  line('21.121971', 379, 363, 574, 392, 0.98),
  line('R pcance', 550, 409, 603, 419, 0.58),
  line('oyaniem', 385, 422, 537, 455, 0.79),
  line('ym.im.olopitomedsg', 818, 452, 1060, 473, 0.56),
  line('21.08.2006 21.08.2011', 378, 488, 986, 517, 1.0),
  line('AA', 608, 530, 728, 545, 0.76),
  line('Poliisi/Lappeenranta', 584, 551, 859, 581, 0.98),
  line('hama Birtanen', 83, 547, 497, 621, 0.77),
  line('Polisen/Villmanstrand', 583, 586, 879, 614, 0.96),
  line('P<FINVIRTANEN<<MARIA<OLIVIA<<<<<<<<<<<<<<<<<', 63, 696, 1134, 723, 0.94),
  line('XP82716024FIN7112214F1108213211271<426U<<<04', 63, 755, 1134, 786, 0.98),
];

const FINNISH_MRZ: MrzFields = {
  documentCode: 'P',
  issuingState: 'FIN',
  nationality: 'FIN',
  lastName: 'VIRTANEN',
  firstName: 'MARIA OLIVIA',
  documentNumber: 'XP8271602',
  birthDate: '711221',
  expirationDate: '110821',
  sex: 'F',
};

/** mrz-passporteye/tests__passport-td2.png: ICAO's TD2 specimen, captions `Primary identifier/Identifiant primaire`, `Valid until/Valide jusqu'au`. */
const TD2_PAGE = [
  line('OFFICIAL TRAVEL DOCUMENT', 473, 56, 1051, 89, 0.99),
  line('UTOPIA Document Officiel de Voyage', 177, 94, 984, 139, 0.99),
  line('Primary identifier/ Secondary identifier/ Document No. 7', 350, 166, 1190, 198, 0.99),
  line('Identifiant primaire ldentlfiant secondaire Numero de document', 352, 202, 1273, 233, 0.98),
  line('ERIKSSON ANNA MARIA D23145890', 369, 241, 1173, 274, 0.99),
  line('Nationality/ Date of birth/', 498, 294, 868, 324, 0.98),
  line('Nationalite Date de naissance', 500, 330, 946, 361, 0.99),
  line('UTO 12 AUG/AOUT 74', 527, 371, 956, 407, 1.0),
  line('Sex/ Sexe Valid until/', 501, 444, 845, 478, 0.99),
  line("Valide jusqu'au", 704, 480, 913, 514, 1.0),
  line('F/F', 533, 492, 608, 539, 1.0),
  line('15APR/AVR 12', 694, 535, 941, 567, 1.0),
  line('Signature', 476, 599, 609, 631, 1.0),
  line('anna Maria Eriksson', 474, 637, 969, 684, 0.94),
  line('I<UTOErIKSSON<<ANNA<MArIA<<<<<<<<<<<', 129, 766, 1173, 799, 0.91),
  line('D231458907UT07408122F1204159<<<<<<<6', 129, 827, 1173, 860, 0.96),
];

/** mrz-passporteye/testdata__100_id-si.jpg: the back of a Slovenian ID card (TD1): address, authority, date of issue, the MRZ. */
const TD1_BACK = [
  line('Ljubljana, 0705966505468', 78, 122, 1133, 162, 0.94),
  line('Beethomova ulica 003', 80, 171, 451, 201, 0.92),
  line('MNZR Slovenlje', 79, 246, 351, 287, 0.9),
  line('27.07.1998', 79, 422, 256, 457, 0.97),
  line('I<S1<09999100180706966505468<<', 71, 543, 1127, 584, 0.93),
  line('6606079F0807276S1<<<<<<<<<<<<0', 73, 606, 1126, 643, 0.9),
  line('VZOREC<<TINA<<<<<<<<<<<<<<<<<<', 72, 668, 1128, 707, 0.93),
];

describe('visual zone placed by the MRZ (ICAO 9303 geometry)', () => {
  describe('given a TD3 page whose captions the OCR garbles (the Finnish specimen)', () => {
    it('when read, then the number after the state code and the first of the three dates (the date of birth) are taken by position, the expiry from the issue/expiry pair', () => {
      const { fields, zone } = readVisualZoneByMrz(FINNISH_PAGE, { format: 'TD3', issuingState: 'FIN' }, new Date('2026-11-27'));

      expect(zone).toBe('located');
      expect(fields).toMatchObject({ document_number: 'XP8271602', date_of_birth: '711221', expiry_date: '110821' });
      expect(compareVizWithMrz(fields, FINNISH_MRZ)).toEqual({
        compared: ['document_number', 'date_of_birth', 'expiry_date'],
        mismatches: [],
      });
    });

    it('when its MRZ names another birth date and number, then both differ', () => {
      const { fields } = readVisualZoneByMrz(FINNISH_PAGE, { format: 'TD3', issuingState: 'FIN' }, new Date('2026-11-27'));

      expect(compareVizWithMrz(fields, { ...FINNISH_MRZ, documentNumber: 'XP9135577', birthDate: '791221' }).mismatches).toEqual([
        { field: 'document_number', viz: 'XP8271602', mrz: 'XP9135577' },
        { field: 'date_of_birth', viz: '711221', mrz: '791221' },
      ]);
    });

    it('when the number line was read with low confidence, then the number is not taken (not compared rather than a false alarm)', () => {
      const blurred = FINNISH_PAGE.map((page) =>
        page.text === 'P FIN XP8271602' ? { ...page, text: 'P FIN XE8Z716O2', mean: 0.72 } : page,
      );

      expect(readVisualZoneByMrz(blurred, { format: 'TD3', issuingState: 'FIN' }).fields.document_number).toBeNull();
    });
  });

  describe("given ICAO's TD2 specimen with captions `Primary identifier` and `Valid until` over two lines each", () => {
    it('when read, then names, number and expiry are found under their captions, the date of birth by position (two dates 38 years apart), and agree with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(TD2_PAGE, { format: 'TD2', issuingState: 'UTO' });

      expect(zone).toBe('located');
      expect(fields).toMatchObject({
        last_name: 'ERIKSSON',
        first_name: 'ANNA MARIA',
        document_number: 'D23145890',
        date_of_birth: '740812',
        expiry_date: '120415',
      });
      const { compared, mismatches } = compareVizWithMrz(fields, { ...SPECIMEN_MRZ, documentCode: 'I', documentNumber: 'D23145890' });
      expect(compared).toEqual(['last_name', 'first_name', 'document_number', 'date_of_birth', 'expiry_date']);
      expect(mismatches).toEqual([]);
    });
  });

  describe('given the MRZ side of a TD1 card (the Slovenian back: address, authority, date of issue)', () => {
    it('when read, then it is the MRZ side only: nothing is compared, the date of issue is not taken for another date', () => {
      const { fields, zone } = readVisualZoneByMrz(TD1_BACK, { format: 'TD1', issuingState: 'SI<' });

      expect(zone).toBe('mrz_side_only');
      expect(Object.values(fields).every((value) => value === null)).toBe(true);
    });
  });

  describe('given dates as the OCR leaves them on data pages', () => {
    it('when searched, then separators dropped, months in two languages and two dates on one line are read; glued slips are not', () => {
      expect(datesIn('21.121971').map(({ date }) => date)).toEqual(['711221']);
      expect(datesIn('2512.1982').map(({ date }) => date)).toEqual(['821225']);
      expect(datesIn('31DES/DEC66 311266-9539').map(({ date }) => date)).toEqual(['661231']);
      expect(datesIn('13LIP/JUL 2006 MINISTERSWIA').map(({ date }) => date)).toEqual(['060713']);
      expect(datesIn('10041960 06062008').map(({ date }) => date)).toEqual(['600410', '080606']);
      expect(datesIn('01 JAN7JAN85')).toEqual([]);
      expect(datesIn('23111959 45911231023').map(({ date }) => date)).toEqual(['591123']);
    });
  });

  describe('given a US card printing dates month first', () => {
    it('when its 10/04/49 is compared with the MRZ 491004, then the day/month reading it cannot be sure of is not a mismatch', () => {
      const viz = { ...readVisualZone([]), date_of_birth: parseVizDate('10/04/49') };

      expect(compareVizWithMrz(viz, { ...SPECIMEN_MRZ, birthDate: '491004' }).mismatches).toEqual([]);
      expect(compareVizWithMrz(viz, { ...SPECIMEN_MRZ, birthDate: '491005' }).mismatches).toHaveLength(1);
    });
  });

  describe('given a name caption for the whole name over a line that also prints the name in Han characters', () => {
    it('when read, then the whole Latin line is the name and the Han characters are not compared', () => {
      const lines = [
        line('姓名/Name （Surname.Given names)', 388, 144, 751, 172),
        line('林美華 LIN,MEI-HUA SPECIMEN', 388, 171, 1132, 211),
      ];
      const viz = readVisualZone(lines);

      expect(viz.full_name).toBe('LIN,MEI-HUA SPECIMEN');
      expect(compareVizWithMrz(viz, { ...SPECIMEN_MRZ, lastName: 'LIN', firstName: 'MEI HUA' }).mismatches).toEqual([]);
    });
  });

  describe('given the Latvian page photographed sideways (PaddleOCR reads its MRZ in page-sized boxes)', () => {
    it('when read as found, then the MRZ is seen sideways and the zone is not placed (nothing compared)', () => {
      const { fields, zone } = readVisualZoneByMrz(LATVIAN_SIDEWAYS, { format: 'TD3', issuingState: 'LVA' });

      expect(mrzSeenSideways(LATVIAN_SIDEWAYS)).toBe(true);
      expect(zone).toBe('unlocated');
      expect(compareVizWithMrz(fields, LATVIAN_MRZ).compared).toEqual([]);
    });

    it('when read turned upright, then the number after the state code and the date of birth (the first of two dates 26 years apart) agree with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(LATVIAN_UPRIGHT, { format: 'TD3', issuingState: 'LVA' }, new Date('2026-11-28'));

      expect(mrzSeenSideways(LATVIAN_UPRIGHT)).toBe(false);
      expect(zone).toBe('located');
      expect(fields).toMatchObject({ document_number: 'LT0000000', date_of_birth: '860510' });
      expect(compareVizWithMrz(fields, LATVIAN_MRZ)).toEqual({ compared: ['document_number', 'date_of_birth'], mismatches: [] });
      expect(compareVizWithMrz(fields, { ...LATVIAN_MRZ, birthDate: '880510' }).mismatches).toEqual([
        { field: 'date_of_birth', viz: '860510', mrz: '880510' },
      ]);
    });

    it('when its two dates are an issue and an expiry (the birth not read), then the first is not taken for the birth', () => {
      const noBirth = LATVIAN_UPRIGHT.map((page) =>
        page.text.startsWith('10.05.1986') ? { ...page, text: '01.06.2007 111111-11648' } : page,
      );

      expect(readVisualZoneByMrz(noBirth, { format: 'TD3', issuingState: 'LVA' }).fields.date_of_birth).toBeNull();
    });
  });

  describe('given a British page photographed at an angle whose captions and values the OCR merges into long lines', () => {
    it('when read, then the number after the state code is taken past the merged caption `Code/Codie` and agrees with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(BRITISH_PAGE, { format: 'TD3', issuingState: 'GBR' });

      expect(zone).toBe('located');
      expect(fields.document_number).toBe('707797979');
      expect(compareVizWithMrz(fields, BRITISH_MRZ)).toEqual({ compared: ['document_number'], mismatches: [] });
      expect(compareVizWithMrz(fields, { ...BRITISH_MRZ, documentNumber: '518242591' }).mismatches).toHaveLength(1);
    });

    it('when a word without a slash stands between the state code and the number, then nothing is taken', () => {
      const other = BRITISH_PAGE.map((page) => ({ ...page, text: page.text.replace('Code/Codie', 'Codie') }));

      expect(readVisualZoneByMrz(other, { format: 'TD3', issuingState: 'GBR' }).fields.document_number).toBeNull();
    });
  });

  describe('given the back of a Swiss card printing its issue and expiry dates side by side without captions (`010103 010113`)', () => {
    it('when read, then the second, ten years to the day after the first, is the expiry and agrees with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(SWISS_BACK, { format: 'TD1', issuingState: 'CHE' });

      expect(zone).toBe('located');
      expect(fields.expiry_date).toBe('130101');
      expect(compareVizWithMrz(fields, SWISS_MRZ)).toEqual({ compared: ['expiry_date'], mismatches: [] });
      expect(compareVizWithMrz(fields, { ...SWISS_MRZ, expirationDate: '180101' }).mismatches).toEqual([
        { field: 'expiry_date', viz: '130101', mrz: '180101' },
      ]);
    });

    it('when the two dates are not a whole number of validity years apart (a birth and an issue), then neither is taken', () => {
      const other = SWISS_BACK.map((page) => (page.text === '010103 010113' ? { ...page, text: '280281 010113' } : page));

      expect(readVisualZoneByMrz(other, { format: 'TD1', issuingState: 'CHE' })).toMatchObject({
        zone: 'mrz_side_only',
        fields: { expiry_date: null, date_of_birth: null },
      });
    });
  });
});

describe('visual zone of a visa: names only', () => {
  describe("given ICAO's MRV-A specimen, whose name line the OCR joins to the passport number printed under the photo", () => {
    it('when read, then the whole name under the garbled caption `Suname.Givennames/Nom,Penoms` is taken without the number and agrees with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(MRVA.lines, { format: 'MRVA', issuingState: 'UTO' });

      expect(zone).toBe('located');
      expect(fields).toEqual({
        last_name: null,
        first_name: null,
        full_name: 'ERIKSSONANNAMARIA',
        document_number: null,
        date_of_birth: null,
        expiry_date: null,
      });
      expect(compareVizWithMrz(fields, MRVA.mrz)).toEqual({ compared: ['last_name', 'first_name'], mismatches: [] });
    });

    it('when its MRZ is re-printed under another name, then both names differ', () => {
      const { fields } = readVisualZoneByMrz(MRVA.lines, { format: 'MRVA', issuingState: 'UTO' });

      expect(compareVizWithMrz(fields, { ...MRVA.mrz, lastName: 'LINDQVIST', firstName: 'KARIN' }).mismatches).toEqual([
        { field: 'last_name', viz: 'ERIKSSONANNAMARIA', mrz: 'LINDQVIST' },
        { field: 'first_name', viz: 'ERIKSSONANNAMARIA', mrz: 'KARIN' },
      ]);
    });
  });

  describe("given ICAO's MRV-B specimen, which prints a date of birth (07 SEP 86) its MRZ does not carry (400907)", () => {
    it('when read, then the names under `Suname,Given namee/Nom,Prenoms` are compared and agree; its dates and numbers are not compared', () => {
      const { fields } = readVisualZoneByMrz(MRVB.lines, { format: 'MRVB', issuingState: 'UTO' });

      expect(fields).toMatchObject({ full_name: 'ERIKSSONANNAMARIA', document_number: null, date_of_birth: null, expiry_date: null });
      expect(compareVizWithMrz(fields, MRVA.mrz)).toEqual({ compared: ['last_name', 'first_name'], mismatches: [] });
    });

    it('when the OCR reads its date of birth in the column of a clean caption, then it is still not compared (no false alarm)', () => {
      const clean = MRVB.lines.map((page) =>
        page.text.startsWith('Passpoit')
          ? { ...page, text: 'Date of Birth/Date de naissance' }
          : page.text === 'L8988901C F/F 07SEP/SEP86 XXX'
            ? { ...page, text: '07 SEP/SEP 86' }
            : page,
      );

      expect(readVisualZone(clean).date_of_birth).toBe('860907');
      const { fields } = readVisualZoneByMrz(clean, { format: 'MRVB', issuingState: 'UTO' });
      expect(fields.date_of_birth).toBeNull();
      expect(compareVizWithMrz(fields, MRVA.mrz).mismatches).toEqual([]);
    });
  });

  describe('given a US immigrant visa whose surname shares its OCR line with a stray mark and the registration number (`0 TRAVELER 00000473`)', () => {
    it('when read, then the surname is taken without the number words, and the passport number is not compared with the MRZ number', () => {
      const { fields } = readVisualZoneByMrz(US_VISA.lines, { format: 'MRVA', issuingState: 'USA' });

      expect(fields).toMatchObject({ last_name: 'TRAVELER', first_name: 'HAPPYPERSON F IRI', document_number: null, expiry_date: null });
      expect(compareVizWithMrz(fields, US_VISA.mrz)).toEqual({ compared: ['last_name', 'first_name'], mismatches: [] });
      expect(compareVizWithMrz(fields, { ...US_VISA.mrz, lastName: 'WANDERER' }).mismatches).toEqual([
        { field: 'last_name', viz: 'TRAVELER', mrz: 'WANDERER' },
      ]);
    });
  });
});

describe('name captions as the OCR misreads them', () => {
  describe('given the Canadian specimen page, whose `Surname/Nom` caption the OCR reads `Sumame/Noer`', () => {
    it('when read, then the surname below it is compared and agrees with the MRZ, as does the number by position', () => {
      const { fields } = readVisualZoneByMrz(CANADA.lines, { format: 'TD3', issuingState: 'CAN' });

      expect(fields).toMatchObject({ last_name: 'MARTIN', document_number: 'ZE000509' });
      expect(compareVizWithMrz(fields, CANADA.mrz)).toEqual({ compared: ['last_name', 'document_number'], mismatches: [] });
      expect(compareVizWithMrz(fields, { ...CANADA.mrz, lastName: 'TREMBLAY' }).mismatches).toEqual([
        { field: 'last_name', viz: 'MARTIN', mrz: 'TREMBLAY' },
      ]);
    });
  });

  describe('given a name caption whose column, estimated from the caption line, holds part of a date (`ANNAMARIA UTO 12 AUG/AOUT`)', () => {
    it('when read, then the cut date is not taken for a name', () => {
      const page = [
        line('Secondary identifier/   Nationality/ Date of birth/', 426, 311, 1042, 341, 0.95),
        line('ANNAMARIA UTO 12 AUG/AOUT 74', 441, 382, 1121, 409, 0.98),
      ];

      expect(readVisualZone(page).first_name).toBeNull();
    });
  });
});

// mrz-passporteye/testdata__0_pass-lva.jpg, a Latvian refugee travel document photographed with the
// data page turned a quarter: the lines as read (the MRZ page-sized), then turned upright (`readPageLinesTurned`, 3 quarter turns).
const LATVIAN_SIDEWAYS = [
  line('machine readable zone', 40, 20, 549, 63, 1.0),
  line(
    'LT00000004XXC8605102F1210314111111<11648<<86 PALVAMOHAMADA<<FARIDA<<<<<<<<<<<<<<<<<<<<<<< CIMEN LVA LATVIJA·LATVIA·LETTONIE',
    171,
    215,
    801,
    1303,
    0.97,
  ),
  line('10.2012 31 .62007 01. MAROKAMAR 10.05.1986 MAROKAS FARIDA MOHAMADA PA', 364, 540, 748, 705, 0.97),
  line('BEGLU SPECIMEN', 414, 882, 1337, 988, 0.99),
];

const LATVIAN_UPRIGHT = [
  line('CELOSANASDOKUMENTS LATVIJA·LATVIA·LETTONIE', 247, 696, 990, 733, 0.96),
  line('(ALTERNATIVAISSTATUSS)', 248, 721, 517, 743, 0.97),
  line('TRAVELDOCUMENT SUBSTDIARY PA LVA LT0000000', 247, 747, 1170, 778, 0.97),
  line('PROTECTION STATUS', 247, 761, 419, 778, 0.93),
  line('TITRE DE VOYAGE(LE STATUT', 244, 785, 485, 804, 0.9),
  line('DE PSOTECTION SUBSIDLAIRE MOHAMADA', 244, 800, 672, 829, 0.93),
  line('FARIDA SIMEN', 533, 766, 958, 879, 0.94),
  line('MAROKAS 167', 530, 907, 1070, 933, 1.0),
  line('10.05.1986 111111-11648', 532, 957, 1227, 982, 0.99),
  line('7.Dm', 531, 987, 572, 1001, 0.89),
  line('MAROKA MAR S/F', 527, 1010, 1071, 1037, 0.99),
  line('9.Ido', 528, 1039, 576, 1054, 0.7),
  line('01.62007. BEGLU LIETU DEPARTAMENTS', 524, 1056, 1302, 1088, 0.95),
  line('11.Deriga lDate of ', 526, 1090, 693, 1107, 0.81),
  line('31.10.2012', 524, 1112, 716, 1141, 0.99),
  line('otarsto', 1060, 1149, 1188, 1184, 0.58),
  line('PALVAMOHAMADA<<FARIDA<<<<<<<<', 221, 1242, 927, 1276, 0.81),
  line('LT00000004XXC8605102F1210314111111<11648<<86', 216, 1294, 1299, 1331, 0.98),
];

const LATVIAN_MRZ: MrzFields = {
  documentCode: 'PA',
  issuingState: 'LVA',
  nationality: 'XXC',
  lastName: 'MOHAMADA',
  firstName: 'FARIDA',
  documentNumber: 'LT0000000',
  birthDate: '860510',
  expirationDate: '121031',
  sex: 'F',
};

/** mrz-passporteye/testdata__100_id-che.jpg: the back of a Swiss ID card (TD1), dates of issue and expiry printed `01.01.03 01.01.13`. */
const SWISS_BACK = [
  line('172.cm', 81, 78, 226, 113, 0.99),
  line('Chur GR', 79, 147, 233, 186, 0.95),
  line('Luzern LU 2013', 76, 216, 896, 275, 0.99),
  line('a', 881, 288, 968, 384, 0.9),
  line('010103 010113', 76, 350, 601, 392, 1.0),
  line('Schweix.Suisso·Svirxera.Svixra:Switzerond CHE', 77, 434, 1011, 469, 0.88),
  line('IDCHES0002068<8<<<<<<<<<<<<<<', 74, 542, 1147, 584, 0.86),
  line('8102287F1301014CHE<<<<<<<<<<<4', 73, 601, 1145, 643, 0.93),
  line('VADIS<<UO<<<<<<<<<<<<<<<<<<', 69, 662, 1148, 705, 0.77),
];

const SWISS_MRZ: MrzFields = {
  documentCode: 'ID',
  issuingState: 'CHE',
  nationality: 'CHE',
  lastName: 'VADIS',
  firstName: 'QUO',
  documentNumber: 'S0002068',
  birthDate: '810228',
  expirationDate: '130101',
  sex: 'F',
};

/** mrz-fastmrz/passport_uk.jpg: a British page at an angle; the OCR merges captions and values (and the two MRZ lines) into long lines. */
const BRITISH_PAGE = [
  line(
    'UNITED KINGDOM OFGREATBRITAIN AND NORTHERN IRELAND PASSPORT PASSEPORT Type/Type P PUDARSAN Surname/Nom（1) GBR Code/Codie 707797979',
    45,
    624,
    778,
    691,
    0.97,
  ),
  line('HENERT Nationality/Natior BRITISH CITIZEN Dateofbirth/Date (noms（2） e(3 nce4', 296, 752, 479, 834, 0.84),
  line(
    'M Date ofsoe/Date de Sex/See(5） 23APR /AVR 12 20MAY CAMTETH GBR PLaCA /MAI95 ofbirth/Lieu denaissance:(6） detvrance(7） FCO itytAutotte（B)',
    293,
    879,
    690,
    925,
    0.86,
  ),
  line("22APR Date ofexpiry/Datc /AVR17 d'expiration （9) Holder 00", 295, 956, 808, 988, 0.9),
  line('7077979792GBR9505209M1704224<<<<<<<<<<<<<<00 P<GBRPUDARSAN<<HENERT<<<<<<<<<<<<<<<<<<<<<<<', 49, 1075, 802, 1139, 0.92),
];

const BRITISH_MRZ: MrzFields = {
  documentCode: 'P',
  issuingState: 'GBR',
  nationality: 'GBR',
  lastName: 'PUDARSAN',
  firstName: 'HENERT',
  documentNumber: '707797979',
  birthDate: '950520',
  expirationDate: '170422',
  sex: 'M',
};
