/**
 * EU Consolidated Financial Sanctions List, XML export format 1.1
 * (`export > sanctionEntity`, published by the European Commission's FSF platform).
 */
import type { EntityKind, SanctionedEntity } from '../entity.js';
import { children, field, normalizeDates, parseRecord, unique, xmlRecords, type TextSource } from './common.js';

/** EU `subjectType@code` → entity kind ("person", "enterprise"; others are kept as "other"). */
function euKind(code: string): EntityKind {
  if (code === 'person') return 'person';
  if (code === 'enterprise') return 'organization';
  return 'other';
}

/** ISO-2 codes as given in `countryIso2Code`, without the EU's "00" (unknown) placeholder. */
function iso2(code: string): string | undefined {
  const c = code.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(c) ? c : undefined;
}

/**
 * Streams the EU XML as entities. The first `nameAlias` is the primary name, the others
 * (including original-script names) become aliases; dates come from `birthdate@birthdate`,
 * or `@year` when only the year is known; countries from citizenship and address.
 */
export async function* importEuConsolidatedXml(source: TextSource): AsyncGenerator<SanctionedEntity> {
  for await (const record of xmlRecords(source, ['sanctionEntity'])) {
    const e = parseRecord(record);
    const id = field(e, '@logicalId');
    if (!id) continue;
    const names = unique(children(e, 'nameAlias').map((n) => field(n, '@wholeName')));
    if (names.length === 0) continue;
    const dobs = children(e, 'birthdate').flatMap((b) => {
      const full = field(b, '@birthdate');
      if (full) return normalizeDates(full);
      return normalizeDates(field(b, '@year'));
    });
    const countries = [...children(e, 'citizenship'), ...children(e, 'address')].map((c) => iso2(field(c, '@countryIso2Code')));
    yield {
      source_list: 'EU_CONSOLIDATED',
      source_id: id,
      kind: euKind(field(children(e, 'subjectType')[0], '@code')),
      primary_name: names[0],
      aliases: names.slice(1),
      dates_of_birth: unique(dobs),
      countries: unique(countries),
      programs: unique(children(e, 'regulation').map((r) => field(r, '@programme'))),
      topics: ['sanction'],
    };
  }
}
