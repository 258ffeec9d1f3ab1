import { describe, expect, it } from 'vitest';
import type { MrzFields } from '../../src/engines/document/mrz-text.js';
import { compareVizWithMrz, parseVizDate, readVisualZone } from '../../src/engines/document/viz.js';

// The visual zone of a data page, located by its captions and compared with the MRZ. The lines
// are what PaddleOCR returned for ICAO 9303's TD3 specimen (fastmrz td3.jpg, upscaled to 1200 px):
// captions printed side by side come as one line, spaces inside names are dropped.

/** A text line with its box (left, top, right, bottom). */
const line = (text: string, left: number, top: number, right: number, bottom: number) => ({
  text,
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
