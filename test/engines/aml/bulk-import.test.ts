/**
 * Large imports (issue 29.5): past BULK_INDEX_BUILD_NAMES names an import sets the name table's
 * secondary indexes aside and builds them again at its end. The indexes are back after it, the
 * pg_trgm path and the exact lookup find the new names through them, and an import that fails
 * half-way leaves the old lists and every index as they were. Runs on a database of its own
 * (the AML tables are global).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SanctionedEntity } from '../../../src/engines/aml/entity.js';
import { BULK_INDEX_BUILD_NAMES, findCandidates, importEntities, normalizedNamesOf } from '../../../src/engines/aml/store.js';
import { normalizeName } from '../../../src/engines/aml/normalize.js';
import { openScratchDatabase, type ScratchDatabase } from '../../support/scratch-database.js';
import { prng } from '../../support/prng.js';

const NAME_INDEXES = ['aml_entity_name_name_index', 'aml_entity_name_source_list_index', 'aml_entity_name_trgm_index'];
const random = prng(29);
const SYLLABLES = ['ka', 'ri', 'mo', 'ha', 'sa', 'ne', 'lo', 'vich', 'ov', 'an', 'el', 'ju', 'dr', 'ak', 'ul', 'mi', 'ta', 'ben', 'os'];
const word = () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');

/** `count` synthetic OFAC persons, each with one alias. */
function* persons(count: number, prefix: string): Generator<SanctionedEntity> {
  for (let i = 0; i < count; i += 1)
    yield {
      source_list: 'OFAC_SDN',
      source_id: `${prefix}-${i}`,
      kind: 'person',
      primary_name: `${word()} ${word()} ${word()}`,
      aliases: [`${word()} ${word()}`],
      dates_of_birth: [],
      countries: [],
      programs: ['TEST'],
      topics: ['sanction'],
    };
}

let scratch: ScratchDatabase;
const em = () => scratch.database.orm.em.fork();
const indexes = async () =>
  (
    await em().execute<{ indexname: string }[]>(
      `select indexname from pg_indexes where tablename = 'aml_entity_name' and indexname <> 'aml_entity_name_pkey' order by 1`,
      [],
      'all',
    )
  ).map((row) => row.indexname);
const nameCount = async () => Number((await em().execute<{ n: string }[]>('select count(*) as n from aml_entity_name', [], 'all'))[0]!.n);

beforeAll(async () => {
  scratch = await openScratchDatabase('aml_bulk', { migrate: true });
}, 60_000);
afterAll(async () => {
  await scratch?.drop();
});

describe('bulk imports', () => {
  it('given an import of more names than the bulk threshold, when it commits, then the name indexes are all back and find its names', async () => {
    const entities = [...persons(Math.ceil(BULK_INDEX_BUILD_NAMES / 4), 'bulk')];
    const names = entities.reduce((sum, entity) => sum + normalizedNamesOf(entity).length, 0);
    expect(names).toBeGreaterThan(BULK_INDEX_BUILD_NAMES);
    await importEntities(em(), entities, { fileFormat: 'test', checksum: 'bulk', lists: ['OFAC_SDN'] });
    expect(await indexes()).toEqual(NAME_INDEXES);
    expect(await nameCount()).toBeGreaterThanOrEqual(names - entities.length);
    // The pg_trgm path (no in-memory index) and the exact lookup both go through the rebuilt indexes.
    const wanted = entities[1234]!;
    const found = await findCandidates(em(), wanted.primary_name, ['OFAC_SDN'], 50, null);
    expect(found.map((entity) => entity.source_id)).toContain(wanted.source_id);
    const exact = await em().execute<{ entity_id: string }[]>(
      'select entity_id from aml_entity_name where name_normalized = ?',
      [normalizeName(wanted.primary_name)],
      'all',
    );
    expect(exact.length).toBeGreaterThan(0);
  }, 300_000);

  it('given names and fields with tabs, backslashes, quotes, commas and line breaks and an id given twice, when imported, then they are stored as given, the last version of the id winning', async () => {
    const tricky: SanctionedEntity = {
      source_list: 'UN_SC',
      source_id: 'tricky\\1',
      kind: 'organization',
      primary_name: 'Back\\slash\tTab "Quoted" Trading',
      aliases: ['Line\nBreak, Comma {Brace}', 'NULL', '\\N', 'Ünïcode Çorp'],
      dates_of_birth: [],
      countries: ['AE'],
      programs: ['A "B", C'],
      topics: ['sanction'],
    };
    const first: SanctionedEntity = { ...tricky, source_id: 'twice', primary_name: 'First Version Holdings', aliases: [] };
    const last: SanctionedEntity = { ...first, primary_name: 'Last Version Holdings', countries: ['CY'] };
    await importEntities(em(), [tricky, first, last], { fileFormat: 'test', checksum: 'tricky', lists: ['UN_SC'] });
    const stored = await em().execute<SanctionedEntity[]>(
      `select source_list, source_id, kind, primary_name, aliases, dates_of_birth, countries, programs, topics
       from aml_entity where source_list = 'UN_SC' order by source_id`,
      [],
      'all',
    );
    expect(stored).toEqual([tricky, last]);
    const names = await em().execute<{ entity_id: string; name_normalized: string }[]>(
      `select entity_id, name_normalized from aml_entity_name where source_list = 'UN_SC' order by 1, 2`,
      [],
      'all',
    );
    const expected = [
      ...normalizedNamesOf(tricky).map((name) => ({ entity_id: 'UN_SC:tricky\\1', name_normalized: name })),
      ...normalizedNamesOf(last).map((name) => ({ entity_id: 'UN_SC:twice', name_normalized: name })),
    ];
    expect(names).toEqual(
      expected.sort((a, b) => (a.entity_id + ' ' + a.name_normalized < b.entity_id + ' ' + b.name_normalized ? -1 : 1)),
    );
  });

  it('given a bulk import that fails after dropping the indexes, when it rolls back, then the old list and every index are as they were', async () => {
    const before = await nameCount();
    async function* failing(): AsyncGenerator<SanctionedEntity> {
      yield* persons(Math.ceil(BULK_INDEX_BUILD_NAMES / 3), 'broken');
      throw new Error('the feed broke');
    }
    await expect(importEntities(em(), failing(), { fileFormat: 'test', checksum: 'broken', lists: ['OFAC_SDN'] })).rejects.toThrow(
      'the feed broke',
    );
    expect(await indexes()).toEqual(NAME_INDEXES);
    expect(await nameCount()).toBe(before);
  }, 300_000);
});
