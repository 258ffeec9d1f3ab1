/**
 * OFAC Specially Designated Nationals list: `sdn.xml` (schema sdnList/sdnEntry) and the legacy
 * CSV files `sdn.csv` (primary records) + optional `alt.csv` (aliases), both published by the
 * US Treasury at https://sanctionslistservice.ofac.treas.gov.
 */
import { parse as parseCsv } from 'csv-parse';
import type { EntityKind, SanctionedEntity } from '../entity.js';
import { countryToIso2 } from '../../../shared/country-names.js';
import { child, children, field, normalizeDates, parseRecord, text, textChunks, unique, xmlRecords, type TextSource } from './common.js';

/** OFAC `sdnType` → entity kind; anything else ("Entity") is an organisation. */
function ofacKind(sdnType: string): EntityKind {
  switch (sdnType.trim().toLowerCase()) {
    case 'individual':
      return 'person';
    case 'vessel':
      return 'vessel';
    case 'aircraft':
      return 'aircraft';
    case 'entity':
    case '':
      return 'organization';
    default:
      return 'other';
  }
}

/** "First Last" from OFAC's separate name parts (XML keeps them apart; either may be missing). */
function joinName(first: string, last: string): string {
  return [first, last].filter((p) => p.length > 0).join(' ');
}

/** Streams `sdn.xml` as entities, one `<sdnEntry>` at a time. */
export async function* importOfacSdnXml(source: TextSource): AsyncGenerator<SanctionedEntity> {
  for await (const record of xmlRecords(source, ['sdnEntry'])) {
    const e = parseRecord(record);
    const uid = text(e.uid);
    if (!uid) continue;
    const aliases = children(child(e, 'akaList'), 'aka').map((a) => joinName(field(a, 'firstName'), field(a, 'lastName')));
    const countryNames = [
      ...children(child(e, 'nationalityList'), 'nationality'),
      ...children(child(e, 'citizenshipList'), 'citizenship'),
      ...children(child(e, 'addressList'), 'address'),
    ].map((n) => field(n, 'country'));
    // A vessel's flag state is its only country signal.
    countryNames.push(field(child(e, 'vesselInfo'), 'vesselFlag'));
    const dobs = children(child(e, 'dateOfBirthList'), 'dateOfBirthItem').flatMap((d) => normalizeDates(field(d, 'dateOfBirth')));
    yield {
      source_list: 'OFAC_SDN',
      source_id: uid,
      kind: ofacKind(text(e.sdnType)),
      primary_name: joinName(text(e.firstName), text(e.lastName)),
      aliases: unique(aliases),
      dates_of_birth: unique(dobs),
      countries: unique(countryNames.filter((c) => c.length > 0).map(countryToIso2)),
      programs: unique(children(child(e, 'programList'), 'program').map(text)),
      topics: ['sanction'],
    };
  }
}

/** OFAC CSV's null marker (`-0- `). */
function nullable(value: string | undefined): string {
  const v = (value ?? '').trim();
  return v === '-0-' ? '' : v;
}

/** "LAST, First" (how sdn.csv writes individuals) → "First LAST"; other names unchanged. */
function naturalOrder(name: string, kind: EntityKind): string {
  if (kind !== 'person') return name;
  const comma = name.indexOf(',');
  if (comma < 0) return name;
  return joinName(name.slice(comma + 1).trim(), name.slice(0, comma).trim());
}

/** Facts OFAC packs into the CSV `Remarks` column ("DOB 01 Jan 1950; nationality Iran; a.k.a. 'X'."). */
function parseRemarks(remarks: string): { dobs: string[]; countries: string[]; aliases: string[] } {
  const dobs: string[] = [];
  const countries: string[] = [];
  const aliases: string[] = [];
  for (const m of remarks.matchAll(/\bDOB\s+([^;]+)/g)) dobs.push(...normalizeDates(m[1].replace(/^circa\s+/i, '').replace(/\.$/, '')));
  for (const m of remarks.matchAll(/\b(?:nationality|citizen)\s+([^;.]+)/gi)) {
    const iso = countryToIso2(m[1]);
    if (iso) countries.push(iso);
  }
  for (const m of remarks.matchAll(/\b[afn]\.k\.a\.,?\s+'([^']+)'/g)) aliases.push(m[1]);
  return { dobs, countries, aliases };
}

/** Streams CSV records (arrays of fields) from a source; OFAC's CSVs have no header row. */
async function* csvRows(source: TextSource): AsyncGenerator<string[]> {
  const parser = parseCsv({ relax_quotes: true, relax_column_count: true, skip_empty_lines: true, trim: false, bom: true });
  const feeding = (async () => {
    try {
      for await (const chunk of textChunks(source)) {
        // Respect back-pressure so a large file is not read into the parser's buffer at once.
        if (!parser.write(chunk)) await new Promise<void>((resolve) => parser.once('drain', () => resolve()));
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  for await (const row of parser) {
    const fields = row as string[];
    // The OFAC CSV ends with a 0x1A (SUB) character on its own line.
    if (fields.length === 1 && /^\s*\x1a?\s*$/.test(fields[0] ?? '')) continue;
    yield fields;
  }
  await feeding;
}

/**
 * Reads `alt.csv` (ent_num, alt_num, alt_type, alt_name, alt_remarks) into aliases per
 * ent_num; the result is passed to importOfacSdnCsv as `alt`.
 */
export async function readOfacAltCsv(source: TextSource): Promise<Map<string, string[]>> {
  const byEntity = new Map<string, string[]>();
  for await (const row of csvRows(source)) {
    const id = nullable(row[0]);
    const name = nullable(row[3]);
    if (!id || !name) continue;
    const list = byEntity.get(id) ?? [];
    list.push(name);
    byEntity.set(id, list);
  }
  return byEntity;
}

/**
 * Reads `add.csv` (ent_num, add_num, address, city/state/postal code, country, add_remarks) into
 * ISO-2 address countries per ent_num; the result is passed to importOfacSdnCsv as `add`, because
 * sdn.csv itself names a country only in Remarks.
 */
export async function readOfacAddCsv(source: TextSource): Promise<Map<string, string[]>> {
  const byEntity = new Map<string, string[]>();
  for await (const row of csvRows(source)) {
    const id = nullable(row[0]);
    const country = countryToIso2(nullable(row[4]) || 'none');
    if (!id || !country) continue;
    byEntity.set(id, [...(byEntity.get(id) ?? []), country]);
  }
  return byEntity;
}

/** Options of importOfacSdnCsv. */
export interface OfacCsvOptions {
  /** Aliases from alt.csv (readOfacAltCsv), keyed by ent_num; a.k.a.s in Remarks are used either way. */
  alt?: Map<string, string[]>;
  /** Address countries from add.csv (readOfacAddCsv), keyed by ent_num; added to the countries from Remarks. */
  add?: Map<string, string[]>;
}

/**
 * Streams `sdn.csv` (ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type,
 * Tonnage, GRT, Vess_flag, Vess_owner, Remarks) as entities. DOB, nationality and a.k.a.s
 * are recovered from Remarks, since the primary CSV has no columns for them.
 */
export async function* importOfacSdnCsv(source: TextSource, options: OfacCsvOptions = {}): AsyncGenerator<SanctionedEntity> {
  for await (const row of csvRows(source)) {
    const id = nullable(row[0]);
    const rawName = nullable(row[1]);
    if (!/^\d+$/.test(id) || !rawName) continue;
    const kind = ofacKind(nullable(row[2]));
    const remarks = parseRemarks(nullable(row[11]));
    // Multiple programmes are written "SDGT] [IRGC" (the surrounding brackets are implied).
    const programs = nullable(row[3])
      .replace(/^\[|\]$/g, '')
      .split(/\]\s*\[/);
    const alt = (options.alt?.get(id) ?? []).map((n) => naturalOrder(n, kind));
    yield {
      source_list: 'OFAC_SDN',
      source_id: id,
      kind,
      primary_name: naturalOrder(rawName, kind),
      aliases: unique([...alt, ...remarks.aliases.map((n) => naturalOrder(n, kind))]),
      dates_of_birth: unique(remarks.dobs),
      countries: unique([...remarks.countries, ...(options.add?.get(id) ?? []), countryToIso2(nullable(row[9]) || 'none')]),
      programs: unique(programs),
      topics: ['sanction'],
    };
  }
}
