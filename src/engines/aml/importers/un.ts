/**
 * UN Security Council Consolidated List, XML (`CONSOLIDATED_LIST > INDIVIDUALS > INDIVIDUAL`
 * and `ENTITIES > ENTITY`, published at scsanctions.un.org).
 */
import type { SanctionedEntity } from '../entity.js';
import { countryToIso2 } from '../../../shared/country-names.js';
import { children, field, normalizeDates, parseRecord, unique, xmlRecords, type TextSource } from './common.js';

/** Dates of birth of one `INDIVIDUAL_DATE_OF_BIRTH` (EXACT → DATE, APPROXIMATELY → YEAR, BETWEEN → FROM_YEAR..TO_YEAR). */
function unDates(node: unknown): string[] {
  const date = field(node, 'DATE');
  if (date) return normalizeDates(date);
  const year = field(node, 'YEAR');
  if (year) return normalizeDates(year);
  const from = field(node, 'FROM_YEAR');
  const to = field(node, 'TO_YEAR');
  if (from && to) return normalizeDates(`${from} to ${to}`);
  return normalizeDates(from || to);
}

/**
 * Streams the UN XML as entities. Individuals' names are FIRST..FOURTH_NAME joined in order;
 * aliases are the ALIAS_NAMEs plus NAME_ORIGINAL_SCRIPT; countries come from NATIONALITY
 * values and address countries (names mapped to ISO-2); programmes are UN_LIST_TYPE.
 */
export async function* importUnConsolidatedXml(source: TextSource): AsyncGenerator<SanctionedEntity> {
  for await (const record of xmlRecords(source, ['INDIVIDUAL', 'ENTITY'])) {
    const e = parseRecord(record);
    const id = field(e, 'DATAID');
    const isPerson = record.tag === 'INDIVIDUAL';
    const name = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
      .map((f) => field(e, f))
      .filter((p) => p.length > 0)
      .join(' ');
    if (!id || !name) continue;
    const aliasTag = isPerson ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS';
    const addressTag = isPerson ? 'INDIVIDUAL_ADDRESS' : 'ENTITY_ADDRESS';
    const aliases = [...children(e, aliasTag).map((a) => field(a, 'ALIAS_NAME')), field(e, 'NAME_ORIGINAL_SCRIPT')];
    const countryNames = [
      ...children(e, 'NATIONALITY').flatMap((n) => children(n, 'VALUE').map((v) => field({ v }, 'v'))),
      ...children(e, addressTag).map((a) => field(a, 'COUNTRY')),
    ];
    yield {
      source_list: 'UN_SC',
      source_id: id,
      kind: isPerson ? 'person' : 'organization',
      primary_name: name,
      aliases: unique(aliases).filter((a) => a !== name),
      dates_of_birth: unique(isPerson ? children(e, 'INDIVIDUAL_DATE_OF_BIRTH').flatMap(unDates) : []),
      countries: unique(countryNames.filter((c) => c.length > 0).map(countryToIso2)),
      programs: unique([field(e, 'UN_LIST_TYPE')]),
      topics: ['sanction'],
    };
  }
}
