import { beforeAll, describe, expect, it } from 'vitest';
import { mrzDate, verifyDocument } from '../../src/engines/document/engine.js';
import { cleanNameFiller, findMrz, withFillerEvidence, withNameField, type MrzRead } from '../../src/engines/document/mrz-text.js';
import { checkNamesAgainstViz } from '../../src/engines/document/names.js';
import { icaoCheckDigit, repairByCheckDigits } from '../../src/engines/document/mrz-check-digits.js';
import { mrzLines, renderDocument, toDataUri, type SyntheticIdentity, samplePassport } from './support/synthetic-document.js';

// The post-OCR rules of the document engine, on MRZ strings given directly (the reader is
// replaced by `findMrz` over these lines), so each rule is tested without OCR's cost.

const NOW = new Date('2026-11-23T12:00:00Z');

const PASSPORT: SyntheticIdentity = samplePassport(NOW);

/** ICAO 9303 Part 7's MRV-A and MRV-B specimens (Utopia, ERIKSSON ANNA MARIA). */
const MRV_A = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'];
const MRV_B = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];

describe('document engine rules after OCR', () => {
  let image: string;

  beforeAll(async () => {
    image = toDataUri(await renderDocument(PASSPORT, { jpegQuality: 70 }));
  });

  const verifyLines = (lines: string[], country: string, idType = 'PASSPORT', pageText: string[] = []) =>
    verifyDocument({ country, idType, imageFront: image }, null, {
      now: () => NOW,
      readMrz: () => Promise.resolve({ ...(findMrz(lines) as MrzRead), pageText }),
    });

  describe('given an expiry printed as 98 on a passport of someone born in 68', () => {
    it('when verified in 2026, then the expiry is 1998 (not 2098) and the document is expired', async () => {
      const lines = mrzLines({ ...PASSPORT, issuingState: 'TWN', birthDate: '680302', expiryDate: '980104' });

      const result = await verifyLines(lines, 'TW');

      expect(result.details.resultCode).toBe('document_expired');
      expect(result.details.extracted).toMatchObject({ dateOfBirth: '1968-03-02', expiryDate: '1998-01-04' });
    });
  });

  describe('given two-digit years', () => {
    it('when read as birth dates, then the latest year not after today is chosen', () => {
      expect(mrzDate('261123', 'birth', NOW)).toBe('2026-11-23');
      expect(mrzDate('270101', 'birth', NOW)).toBe('1927-01-01');
    });

    it('when read as expiry dates, then this century unless 50 or more years ahead, and never before birth', () => {
      expect(mrzDate('350101', 'expiry', NOW)).toBe('2035-01-01');
      expect(mrzDate('750101', 'expiry', NOW)).toBe('2075-01-01');
      expect(mrzDate('760101', 'expiry', NOW)).toBe('1976-01-01');
      expect(mrzDate('050101', 'expiry', NOW, 2004)).toBe('2005-01-01');
      expect(mrzDate('990101', 'expiry', NOW, 2003)).toBe('2099-01-01');
    });

    it('when the value is not six digits, then there is no date', () => {
      expect(mrzDate('98O104', 'expiry', NOW)).toBeNull();
      expect(mrzDate(null, 'birth', NOW)).toBeNull();
    });
  });

  describe('given an MRZ whose check digits hold', () => {
    it('when the issuing state is a code nobody assigned, then unknown_issuing_state for review, not mrz_mismatch', async () => {
      const result = await verifyLines(mrzLines({ ...PASSPORT, issuingState: 'QQQ', nationality: 'FRA' }), 'FR');

      expect(result.status).toBe('review');
      expect(result.details.resultCode).toBe('unknown_issuing_state');
      expect(result.details.checks).toMatchObject({ mrzMatch: 'passed', documentAuthentic: 'failed' });
      expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'unknown_issuing_state', field: 'country' }));
    });

    it("when the issuing state is ICAO's specimen state UTO, then it passes with a specimen_state_code warning", async () => {
      const result = await verifyLines(mrzLines({ ...PASSPORT, issuingState: 'UTO' }), 'SE');

      expect(result.status).toBe('passed');
      expect(result.details.resultCode).toBe('clear');
      expect(result.details.checks).toMatchObject({ mrzMatch: 'passed', documentAuthentic: 'warning' });
      expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'specimen_state_code' }));
      expect(result.details.extracted).toMatchObject({ issuingState: 'UTO', nationality: null, nationalityCode: 'UTO' });
    });

    it('when the issuing state is a withdrawn code (YUG), then it passes for a successor state with a warning', async () => {
      const result = await verifyLines(mrzLines({ ...PASSPORT, issuingState: 'YUG' }), 'RS');

      expect(result.details.resultCode).toBe('clear');
      expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'historic_state_code' }));
    });

    it('when a withdrawn code is sent with an unrelated country, then country_mismatch', async () => {
      const result = await verifyLines(mrzLines({ ...PASSPORT, issuingState: 'YUG' }), 'FR');

      expect(result.details.resultCode).toBe('country_mismatch');
    });

    it('when a check digit is broken, then mrz_mismatch still wins over the state code', async () => {
      const lines = mrzLines({ ...PASSPORT, issuingState: 'QQQ' });
      lines[1] = lines[1].slice(0, 9) + (lines[1][9] === '1' ? '2' : '1') + lines[1].slice(10);

      const result = await verifyLines(lines, 'FR');

      expect(result.details.resultCode).toBe('mrz_mismatch');
    });

    it('when verified, then every parsed field is returned', async () => {
      const result = await verifyLines(mrzLines({ ...PASSPORT, sex: 'M' }), 'FR');

      expect(result.details.extracted).toEqual({
        firstName: 'CLAIRE ANNE',
        lastName: 'MARTIN',
        dateOfBirth: '1985-04-12',
        documentNumber: '18FR04512',
        expiryDate: mrzDate(PASSPORT.expiryDate, 'expiry', NOW),
        nationality: 'FR',
        nationalityCode: 'FRA',
        issuingState: 'FRA',
        sex: 'M',
        documentCode: 'P',
        mrzFormat: 'TD3',
      });
    });
  });

  describe('given a TD1 card whose first line the OCR read without most of its trailing fillers', () => {
    // PassportEye's German ID card specimen, first line read as 21 of its 30 characters.
    const CARD = ['IDD<<T220001293<<<<<<', '6408125<2010315D<<<<<<<<<<<<<4', 'MUSTERMANN<<ERIKA<<<<<<<<<<<<<'];

    it('when the line ends in fillers, then it is completed with fillers and the check digits decide', () => {
      const read = findMrz(CARD);

      expect(read).toMatchObject({ valid: true, format: 'TD1', fields: { documentNumber: 'T22000129', lastName: 'MUSTERMANN' } });
      expect(read?.lines[0]).toBe('IDD<<T220001293<<<<<<<<<<<<<<<');
    });

    it('when the dropped characters were not fillers, then the composite check digit refuses the completion', () => {
      const read = findMrz(['IDD<<T220001293ABC<<<', CARD[1], CARD[2]]);

      expect(read?.valid).toBe(false);
    });
  });

  describe('given a TD1 card read with look-alike characters, so that its check digits fail', () => {
    // PassportEye's Swiss and US specimen cards, with the confusions OCR makes across classes.
    const SWISS = ['IDCHES0002068<8<<<<<<<<<<<<<<<', '8102287F1301014CHE<<<<<<<<<<<4', 'VADIS<<QUO<<<<<<<<<<<<<<<<<<<<'];

    it('when a glyph of the document number is read as its look-alike everywhere, then the check digits pick the reading the card prints', () => {
      const read = findMrz([SWISS[0].replace('S000', 'SOOO'), SWISS[1], SWISS[2]]);

      expect(read).toMatchObject({ valid: true, repairCost: 1, fields: { documentNumber: 'S0002068' } });
      expect(read?.lines).toEqual(SWISS);
    });

    it('when a digit of the optional data is read as a letter, then the composite check digit restores it', () => {
      const card = ['IAUSA0000000033LIN1044750079<<', '5808175F1004027COD<<<<<<<<<<<7', 'SPECIMEN<<TEST<VOID<<<<<<<<<<<'];
      const read = findMrz([card[0].replace('LIN10', 'LIN1O'), card[1], card[2]]);

      expect(read?.valid).toBe(true);
      expect(read?.lines[0]).toBe(card[0]);
    });

    it('when the printed MRZ itself breaks its check digits, then no look-alike reading is invented', () => {
      // The Spanish and Costa Rican specimens print wrong check digits: they must stay mrz_mismatch.
      const spanish = ['IDESPAAA1000014<00000023T<<<<<', '7212018F1101236ESP<<<<<<<<<<<8', 'ESPANOLA<ESPANOLA<CARMEN<<<<<<'];
      const usCard = ['C1USA0223456791EAC9730051220<<', '4910040M9411014CAN<<<<<<<<<<<0', 'CRITTENDEN<<LEE<W<<<<<<<<<<<<<'];

      expect(repairByCheckDigits(spanish)).toBeNull();
      expect(repairByCheckDigits(usCard)).toBeNull();
      expect(findMrz(spanish)?.valid).toBe(false);
    });

    it('when two readings fit the check digits equally well, then neither is chosen', () => {
      // A date digit read as another digit: several days fit the check digit at the same cost.
      const ambiguous = [SWISS[0], '8102297F1301014CHE<<<<<<<<<<<4', SWISS[2]];

      expect(repairByCheckDigits(ambiguous)).toBeNull();
    });

    it('when a passport date holds a letter, then it is read as the digit at no cost and the digits decide', () => {
      const lines = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8989O2C36UTO74O8122F1204159ZE184226B<<<<<10'];

      expect(findMrz(lines)).toMatchObject({ valid: true, fields: { documentNumber: 'L898902C3', birthDate: '740812' } });
    });

    it('then the check digit is computed as ICAO 9303 defines it', () => {
      expect(icaoCheckDigit('L898902C3')).toBe(6);
      expect(icaoCheckDigit('740812')).toBe(2);
      expect(icaoCheckDigit('AB2134<<<')).toBe(5);
    });
  });

  describe('given machine-readable visas', () => {
    it('when an MRV-A is read, then it is valid without the passport-only check digits', async () => {
      const result = await verifyLines(MRV_A, 'SE', 'VISA');

      expect(result.details).toMatchObject({
        resultCode: 'document_expired',
        checks: { mrzMatch: 'passed', documentAuthentic: 'warning' },
        extracted: {
          mrzFormat: 'MRVA',
          documentCode: 'V',
          documentNumber: 'L8988901C',
          nationality: null,
          nationalityCode: 'XXX',
          dateOfBirth: '1940-09-07',
          expiryDate: '1996-12-10',
          sex: 'F',
          lastName: 'ERIKSSON',
          firstName: 'ANNA MARIA',
        },
      });
    });

    it('when an MRV-B is read, then it is valid too', () => {
      const read = findMrz(MRV_B);

      expect(read).toMatchObject({ valid: true, format: 'MRVB', fields: { documentNumber: 'L8988901C', expirationDate: '961210' } });
    });

    it('when the optional data fills the second line (no filler in it), then the visa is still found', () => {
      const read = findMrz(['VIUSATRAVELER<<HAPPYPERSON<<<<<<<<<<<<<<<<<', '555123ABC6GBR6502056F0412236IFLND00AMS803085']);

      expect(read).toMatchObject({ valid: true, format: 'MRVA', fields: { documentNumber: '555123ABC', nationality: 'GBR' } });
    });

    it('when a visa check digit is broken, then it is not valid', () => {
      const broken = [MRV_B[0], MRV_B[1].replace('4009078', '4009079')];

      expect(findMrz(broken)?.valid).toBe(false);
    });
  });

  describe('given MRZ names, which carry no check digit', () => {
    it('when the visual zone prints the name with a letter the OCR dropped, then the name is restored from the page', () => {
      const check = checkNamesAgainstViz('SPECIMEN<<VZR<<<<<<<<', ['SPECIMEN', 'Vzor', 'CESKA REPUBLIKA']);

      expect(check).toEqual({ lastName: 'SPECIMEN', firstName: 'VZOR', confirmed: true, restored: ['VZR → VZOR'] });
    });

    it('when the OCR read the filler between two given names as a letter, then the page splits them again', () => {
      const check = checkNamesAgainstViz('SPECIMEN<<TESTKVOID<<<<', ['SPECIMEN', 'TEST VOID']);

      expect(check).toMatchObject({ firstName: 'TEST VOID', confirmed: true });
    });

    it('when the OCR read the separator after the family name as a letter, then the page restores the split', () => {
      const check = checkNamesAgainstViz('ULYSSEK<CHRISTOPHE<<<<<<<<', ['ULYSSE', 'CHRISTOPHE']);

      expect(check).toMatchObject({ lastName: 'ULYSSE', firstName: 'CHRISTOPHE', confirmed: true });
    });

    it('when the OCR read every filler of a double family name as a letter, then the page splits it and restores the separator', () => {
      // As PaddleOCR reads the Polish MRV-B specimen: `KOWALSKA<KWIATKOWSKA<<BEATA<<<` with each `<` a K.
      const check = checkNamesAgainstViz('KOWALSKAKKWIATKOWSKAK<BEATAK<<<', ['NOMPRENOM KOWALSKA-KWIATKOWSKA BEATA']);

      expect(check).toMatchObject({ lastName: 'KOWALSKA KWIATKOWSKA', firstName: 'BEATA', confirmed: true });
    });

    it('when the OCR read the first trailing filler after the given names as a letter, then the page drops it', () => {
      const check = checkNamesAgainstViz('SMITH<<BEATAK<<<<<', ['SMITH', 'BEATA']);

      expect(check).toMatchObject({ lastName: 'SMITH', firstName: 'BEATA', confirmed: true, restored: ['BEATAK → BEATA<'] });
    });

    it('when a joined word splits into page words in two ways, then it is left as read and not confirmed', () => {
      const check = checkNamesAgainstViz('DOE<<ANNAKMARIE<<<<<', ['DOE', 'ANNA MARIE', 'ANNAK ARIE']);

      expect(check).toMatchObject({ firstName: 'ANNAKMARIE', confirmed: false, restored: [] });
    });

    it('when another read of the line saw a filler where this one read K, then the filler is restored', () => {
      // The US card specimen: the page read gives TESTKVOID, the MRZ zone read at 2400 px TEST<VOID.
      const merged = withFillerEvidence('SPECIMEN<<TESTKVOID<<<<<<<<<<<', [
        'SPECIMENKKTESTKVOID<<<<<K<<<K',
        'SPECIMEN<<TEST<VOID<<<<<<<<<<',
      ]);

      expect(merged).toBe('SPECIMEN<<TEST<VOID<<<<<<<<<<<');
    });

    it('when reads differ by a dropped character, then they are aligned before fillers are compared', () => {
      expect(withFillerEvidence('DOE<<ANNAKMARIE<<<<', ['DOE<ANNA<MARIE<<<<<'])).toBe('DOE<<ANNA<MARIE<<<<');
    });

    it('when another read has a filler where this one has a letter no reader confuses with it, then the letter stays', () => {
      expect(withFillerEvidence('DOE<<ANNAMMARIE<<<<', ['DOE<<ANNA<MARIE<<<<'])).toBe('DOE<<ANNAMMARIE<<<<');
    });

    it('when a name line is corrected from other reads, then the read is re-parsed and stays valid', () => {
      const read = findMrz([
        'I<UTOD231458907<<<<<<<<<<<<<<<',
        '7408122F1204159UTO<<<<<<<<<<<6',
        'ERIKSSON<<ANNAKMARIA<<<<<<<<<<',
      ]) as MrzRead;

      const merged = withNameField(read, withFillerEvidence(read.nameField, ['ERIKSSON<<ANNA<MARIA<<<<<<<<<<']));

      expect(merged).toMatchObject({ valid: true, fields: { lastName: 'ERIKSSON', firstName: 'ANNA MARIA' } });
    });

    it('when the fillers after the given names were misread, then a trailing one-letter K/S/C word is a filler too', () => {
      expect(cleanNameFiller('MEULENDIJK<<LOES<ALBERTINE<S<<<S<S<<K')).toBe('MEULENDIJK<<LOES<ALBERTINE<<<<<<<<<<<');
    });

    it('when the fillers after a one-letter given name were read clean, then it is kept as an initial', () => {
      expect(cleanNameFiller('DOE<<JOHN<K<<<<<<<<')).toBe('DOE<<JOHN<K<<<<<<<<');
      expect(cleanNameFiller('DOE<<K<<S<<<<<<<<<<')).toBe('DOE<<K<<<<<<<<<<<<<');
    });

    it('when the page misses the first letter of a name the MRZ has, then the MRZ name is kept', () => {
      const check = checkNamesAgainstViz('AEVARSDOTTIR<<THURIDUR<OESP<<<', ['EVARSDOTTIR', 'THURIDUR OESP']);

      expect(check).toMatchObject({ lastName: 'AEVARSDOTTIR', firstName: 'THURIDUR OESP', confirmed: false });
    });

    it('when the page shows nothing like a misread word, then the name stays as read and is not confirmed', () => {
      const check = checkNamesAgainstViz('ERIKSSON<<ANNA<<<<', ['UTOPIA', 'PASSPORT']);

      expect(check).toEqual({ lastName: 'ERIKSSON', firstName: 'ANNA', confirmed: false, restored: [] });
    });

    it('when the page prints names with diacritics, then their ICAO transliteration confirms the MRZ', () => {
      const check = checkNamesAgainstViz('MUELLER<<JOSE<<<<<<', ['Müller', 'José']);

      expect(check.confirmed).toBe(true);
      expect(check.lastName).toBe('MUELLER');
    });

    it('when the page does not show the name and the name line was read with low confidence, then a warning asks for review', async () => {
      const lines = mrzLines(PASSPORT);
      const read = findMrz([
        { text: lines[0], mean: 0.6 },
        { text: lines[1], mean: 0.99 },
      ]) as MrzRead;

      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image }, null, {
        now: () => NOW,
        readMrz: () => Promise.resolve({ ...read, pageText: ['REPUBLIQUE FRANCAISE'] }),
      });

      expect(result.details.resultCode).toBe('clear');
      expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'mrz_name_unconfirmed' }));
    });

    it('when the page confirms the names, then no warning even at low confidence', async () => {
      const lines = mrzLines(PASSPORT);
      const read = findMrz([
        { text: lines[0], mean: 0.6 },
        { text: lines[1], mean: 0.99 },
      ]) as MrzRead;

      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image }, null, {
        now: () => NOW,
        readMrz: () => Promise.resolve({ ...read, pageText: ['MARTIN', 'Claire, Anne'] }),
      });

      expect(result.warnings).toEqual([]);
    });
  });

  describe('given an MRZ read from a page photographed sideways (its lines in page-sized boxes)', () => {
    /** A line with its box (left, top, right, bottom). */
    const boxed = (text: string, left: number, top: number, right: number, bottom: number) => ({
      text,
      mean: 0.99,
      box: [
        [left, top],
        [right, top],
        [right, bottom],
        [left, bottom],
      ],
    });
    const lines = mrzLines(PASSPORT);
    const sideways = [boxed(`${lines[1]} ${lines[0]}`, 170, 215, 800, 1300)];
    const upright = [
      boxed(`P ${PASSPORT.issuingState} ${PASSPORT.documentNumber}`, 400, 100, 900, 130),
      boxed(lines[0], 50, 700, 1150, 730),
      boxed(lines[1], 50, 760, 1150, 790),
    ];

    it('when verified, then the page is read again turned a quarter each way until the MRZ stands upright, and its zone is compared', async () => {
      const read = findMrz(lines) as MrzRead;
      const turns: number[] = [];

      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image }, null, {
        now: () => NOW,
        readMrz: () => Promise.resolve({ ...read, pageLines: sideways }),
        readPageTurned: (_bytes, quarterTurns) => {
          turns.push(quarterTurns);
          return Promise.resolve(quarterTurns === 1 ? upright : []);
        },
      });

      expect(turns).toEqual([3, 1]);
      expect(result.details.viz).toMatchObject({ zone: 'located', compared: ['document_number'], mismatches: [] });
    });

    it('when the MRZ was read upright, then the page is not read again', async () => {
      const read = findMrz(lines) as MrzRead;
      let calls = 0;

      const result = await verifyDocument({ country: 'FR', idType: 'PASSPORT', imageFront: image }, null, {
        now: () => NOW,
        readMrz: () => Promise.resolve({ ...read, pageLines: upright }),
        readPageTurned: () => {
          calls++;
          return Promise.resolve([]);
        },
      });

      expect(calls).toBe(0);
      expect(result.details.viz).toMatchObject({ zone: 'located', compared: ['document_number'] });
    });
  });
});
