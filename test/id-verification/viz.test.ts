import { describe, expect, it } from 'vitest';
import type { MrzFields } from '../../src/engines/document/mrz-text.js';
import { compareVizWithMrz, datesIn, parseVizDate, readVisualZone, readVisualZoneByMrz } from '../../src/engines/document/viz.js';

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
    it('when read, then the number after the state code and the first of the three dates (the date of birth) are taken by position', () => {
      const { fields, zone } = readVisualZoneByMrz(FINNISH_PAGE, { format: 'TD3', issuingState: 'FIN' }, new Date('2026-11-27'));

      expect(zone).toBe('located');
      expect(fields).toMatchObject({ document_number: 'XP8271602', date_of_birth: '711221', expiry_date: null });
      expect(compareVizWithMrz(fields, FINNISH_MRZ)).toEqual({ compared: ['document_number', 'date_of_birth'], mismatches: [] });
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
    it('when read, then names, number and expiry are found under their captions and agree with the MRZ', () => {
      const { fields, zone } = readVisualZoneByMrz(TD2_PAGE, { format: 'TD2', issuingState: 'UTO' });

      expect(zone).toBe('located');
      expect(fields).toMatchObject({
        last_name: 'ERIKSSON',
        first_name: 'ANNA MARIA',
        document_number: 'D23145890',
        expiry_date: '120415',
      });
      const { compared, mismatches } = compareVizWithMrz(fields, { ...SPECIMEN_MRZ, documentCode: 'I', documentNumber: 'D23145890' });
      expect(compared).toEqual(['last_name', 'first_name', 'document_number', 'expiry_date']);
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
});
