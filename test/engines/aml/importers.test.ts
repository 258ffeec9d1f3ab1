import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  detectOfacCompanion,
  importFile,
  importOfacSdnCsv,
  importOpenSanctionsJsonl,
  importSource,
  normalizeDates,
  readOfacAddCsv,
  readOfacAltCsv,
  toArray,
} from '../../../src/engines/aml/importers/index.js';
import { xmlRecords } from '../../../src/engines/aml/importers/common.js';
import { countryToIso2 } from '../../../src/shared/country-names.js';

const fixture = (name: string) => new URL(`../../fixtures/aml/${name}`, import.meta.url).pathname;
const byId = <T extends { source_id: string }>(items: T[], id: string): T => {
  const found = items.find((e) => e.source_id === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};

describe('detectFormat', () => {
  it.each([
    ['ofac-sdn.xml', 'ofac_sdn_xml'],
    ['ofac-sdn.csv', 'ofac_sdn_csv'],
    ['eu-consolidated.xml', 'eu_consolidated_xml'],
    ['un-consolidated.xml', 'un_consolidated_xml'],
    ['opensanctions.jsonl', 'opensanctions_jsonl'],
  ])('%s is %s', (file, format) => {
    expect(detectFormat(readFileSync(fixture(file)).subarray(0, 4096))).toBe(format);
  });

  it('returns undefined for anything else', () => {
    expect(detectFormat('<html><body/></html>')).toBeUndefined();
    expect(detectFormat('name,dob\n')).toBeUndefined();
    expect(detectFormat('36,12,"aka","X",-0- ')).toBeUndefined();
  });

  it('importFile rejects an undetectable file', async () => {
    await expect(toArray(importFile(fixture('../../engines/aml/normalize.test.ts')))).rejects.toThrow(/Unrecognised/);
  });
});

describe('OFAC sdn.xml', () => {
  it('imports every entry with names, aliases, DOBs, countries and programmes', async () => {
    const all = await toArray(importFile(fixture('ofac-sdn.xml')));
    expect(all).toHaveLength(6);
    expect(all.every((e) => e.source_list === 'OFAC_SDN')).toBe(true);
    const boris = byId(all, '90001');
    expect(boris).toMatchObject({
      kind: 'person',
      primary_name: 'Borislav KRAVETSKY',
      aliases: ['Boris KRAVETSKI', 'Борислав Кравецкий'],
      dates_of_birth: ['1968-03-12'],
      countries: ['RU', 'CY'],
      programs: ['SDGT'],
    });
    expect(byId(all, '90002')).toMatchObject({ kind: 'organization', programs: ['IRAN', 'SDGT'], countries: ['IR'] });
    expect(byId(all, '90003').dates_of_birth).toEqual(['1975']);
    expect(byId(all, '90004')).toMatchObject({ kind: 'vessel', countries: ['PA'] });
    expect(byId(all, '90005').dates_of_birth).toEqual(['1959', '1960', '1961']);
    expect(byId(all, '90006').kind).toBe('aircraft');
  });

  it('streams records split across arbitrary chunk boundaries', async () => {
    const text = readFileSync(fixture('ofac-sdn.xml'), 'utf8');
    async function* chunks() {
      for (let i = 0; i < text.length; i += 7) yield text.slice(i, i + 7);
    }
    const all = await toArray(importSource(chunks(), 'ofac_sdn_xml'));
    expect(all.map((e) => e.source_id)).toEqual(['90001', '90002', '90003', '90004', '90005', '90006']);
  });
});

describe('OFAC sdn.csv', () => {
  it('imports rows, putting individuals in natural order and reading Remarks', async () => {
    const all = await toArray(importFile(fixture('ofac-sdn.csv')));
    expect(all).toHaveLength(6);
    expect(byId(all, '90001')).toMatchObject({
      kind: 'person',
      primary_name: 'Borislav KRAVETSKY',
      aliases: ['Boris KRAVETSKI'],
      dates_of_birth: ['1968-03-12'],
      countries: ['RU'],
    });
    expect(byId(all, '90002')).toMatchObject({
      kind: 'organization',
      primary_name: 'NORTHWIND MARITIME HOLDINGS LTD.',
      programs: ['IRAN', 'SDGT'],
    });
    expect(byId(all, '90004')).toMatchObject({ kind: 'vessel', countries: ['PA'] });
    expect(byId(all, '90005')).toMatchObject({
      primary_name: 'Jörg MÜNSTERBERG',
      countries: ['DE'],
      dates_of_birth: ['1959', '1960', '1961'],
    });
  });

  it('merges alt.csv aliases when given', async () => {
    const alt = await readOfacAltCsv(readFileSync(fixture('ofac-alt.csv'), 'utf8'));
    const all = await toArray(importOfacSdnCsv(readFileSync(fixture('ofac-sdn.csv'), 'utf8'), { alt }));
    expect(byId(all, '90001').aliases).toEqual(['Борислав Кравецкий', 'Boris KRAVETSKI']);
    const viaFile = await toArray(importFile(fixture('ofac-sdn.csv'), undefined, { ofacAltCsvPath: fixture('ofac-alt.csv') }));
    expect(byId(viaFile, '90003').aliases).toContain('طارق حميد الزبيداوي');
  });
});

describe("OFAC's companion files", () => {
  it('given alt.csv, add.csv and other files, when their first bytes are read, then only the companions are recognised as such', () => {
    expect(detectOfacCompanion(readFileSync(fixture('ofac-alt.csv')))).toBe('ofac_alt_csv');
    expect(detectOfacCompanion(readFileSync(fixture('ofac-add.csv')))).toBe('ofac_add_csv');
    expect(detectOfacCompanion(readFileSync(fixture('ofac-sdn.csv')))).toBeUndefined();
    expect(detectOfacCompanion(readFileSync(fixture('un-consolidated.xml')))).toBeUndefined();
  });

  it('given add.csv, when merged into sdn.csv, then address countries join those from Remarks; an empty country adds nothing', async () => {
    const add = await readOfacAddCsv(readFileSync(fixture('ofac-add.csv'), 'utf8'));
    expect([...add]).toEqual([
      ['90001', ['RU']],
      ['90005', ['AT']],
    ]);
    const all = await toArray(importFile(fixture('ofac-sdn.csv'), undefined, { ofacAddCsvPath: fixture('ofac-add.csv') }));
    expect(byId(all, '90001').countries).toEqual(['RU']);
    expect(byId(all, '90005').countries).toEqual(['DE', 'AT']);
  });
});

describe('EU consolidated XML', () => {
  it('imports sanctionEntity records', async () => {
    const all = await toArray(importFile(fixture('eu-consolidated.xml')));
    expect(all).toHaveLength(5);
    expect(byId(all, '700001')).toMatchObject({
      source_list: 'EU_CONSOLIDATED',
      kind: 'person',
      primary_name: 'Anatoliy Petrovich Zarembin',
      aliases: ['Анатолий Петрович Зарембин'],
      dates_of_birth: ['1961-07-04'],
      countries: ['RU'],
      programs: ['RUS'],
    });
    expect(byId(all, '700002').kind).toBe('organization');
    expect(byId(all, '700003')).toMatchObject({ dates_of_birth: ['1972'], aliases: ['Helene Dubois'] });
    // "00" is the EU's unknown-country placeholder.
    expect(byId(all, '700004').countries).toEqual([]);
  });
});

describe('UN consolidated XML', () => {
  it('imports individuals and entities', async () => {
    const all = await toArray(importFile(fixture('un-consolidated.xml')));
    expect(all).toHaveLength(5);
    expect(byId(all, '6900001')).toMatchObject({
      source_list: 'UN_SC',
      kind: 'person',
      primary_name: 'PAK CHOL MIN',
      aliases: ['Pak Chol-min', '박철민'],
      dates_of_birth: ['1970-10-15'],
      countries: ['KP'],
      programs: ['DPRK'],
    });
    expect(byId(all, '6900002')).toMatchObject({ dates_of_birth: ['1966', '1968', '1969'], countries: ['IQ', 'SY'] });
    expect(byId(all, '6900003')).toMatchObject({ aliases: [], countries: ['CD'] });
    expect(byId(all, '6900101')).toMatchObject({
      kind: 'organization',
      aliases: ['CDTC', 'Crimson Dunes General Trading'],
      countries: ['YE'],
    });
  });
});

describe('OpenSanctions JSON lines', () => {
  it('maps topics and datasets to lists, one record per list', async () => {
    const all = await toArray(importFile(fixture('opensanctions.jsonl')));
    const lists = all.map((e) => `${e.source_id}:${e.source_list}`);
    expect(lists).toEqual([
      'os-fict-001:OFAC_SDN',
      'os-fict-002:PEP',
      'os-fict-003:EU_CONSOLIDATED',
      'os-fict-003:UN_SC',
      'os-fict-003:PEP',
      'os-fict-004:ADVERSE_MEDIA',
      'os-fict-005:ADVERSE_MEDIA',
      'os-fict-008:PEP',
    ]);
    expect(all[0]).toMatchObject({
      aliases: ['Boris Kravetski', 'Борислав Кравецкий'],
      dates_of_birth: ['1968-03-12'],
      countries: ['RU', 'CY'],
    });
    // Month-precision dates keep the year; historical codes ("suhh") are dropped; weakAlias is ignored.
    expect(byId(all, 'os-fict-005')).toMatchObject({ dates_of_birth: ['1983'], countries: ['RU'], aliases: ['Дмитрий Олегович Саблин'] });
  });

  it('routes other sanctions regimes only when asked', async () => {
    const text = readFileSync(fixture('opensanctions.jsonl'), 'utf8');
    const all = await toArray(importOpenSanctionsJsonl(text, { otherSanctionsList: 'EU_CONSOLIDATED' }));
    expect(byId(all, 'os-fict-006').source_list).toBe('EU_CONSOLIDATED');
  });

  it('reports the line of malformed JSON', async () => {
    await expect(toArray(importOpenSanctionsJsonl('{"id":"a","schema":"Person"}\n{oops'))).rejects.toThrow(/line 2/);
  });
});

describe('helpers', () => {
  it.each([
    ['12 Mar 1968', ['1968-03-12']],
    ['1968-03-12', ['1968-03-12']],
    ['circa 1975', ['1975']],
    ['Mar 1968', ['1968']],
    ['1959 to 1961', ['1959', '1960', '1961']],
    ['1900 to 1950', ['1900', '1950']],
    ['04/07/1961', ['1961-07-04']],
    ['unknown', []],
  ])('normalizeDates(%s)', (raw, expected) => {
    expect(normalizeDates(raw)).toEqual(expected);
  });

  it.each([
    ['Iran (Islamic Republic of)', 'IR'],
    ["Democratic People's Republic of Korea", 'KP'],
    ['Korea, North', 'KP'],
    ['Russia', 'RU'],
    ['Burma', 'MM'],
    ['Syrian Arab Republic', 'SY'],
    ['Côte d’Ivoire', 'CI'],
    ['Germany', 'DE'],
    ['de', 'DE'],
    ['Atlantis', undefined],
  ])('countryToIso2(%s)', (name, code) => {
    expect(countryToIso2(name)).toBe(code);
  });

  it('xmlRecords does not confuse INDIVIDUAL with INDIVIDUAL_ALIAS', async () => {
    const xml = '<L><INDIVIDUAL><INDIVIDUAL_ALIAS><A>x</A></INDIVIDUAL_ALIAS></INDIVIDUAL><ns:ENTITY a="1">e</ns:ENTITY></L>';
    const records = await toArray(xmlRecords(xml, ['INDIVIDUAL', 'ENTITY']));
    expect(records.map((r) => r.tag)).toEqual(['INDIVIDUAL', 'ENTITY']);
    expect(records[1].xml).toBe('<ns:ENTITY a="1">e</ns:ENTITY>');
  });
});
