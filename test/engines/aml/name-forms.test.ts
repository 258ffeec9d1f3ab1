/**
 * What the stored name forms give candidate retrieval, on a database of its own (the AML tables
 * are global): `aml:import` of an OFAC sdn.csv with its alt.csv and add.csv; a name misspelt in
 * every word, or written in Arabic script, found through its consonant skeleton by the in-memory
 * index and by pg_trgm alike, or with two letters swapped in every word, found by the index's
 * edit path; and Migration20261123000600AmlNameForms recomputing the forms that
 * an older release stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importListFile } from '../../../src/engines/aml/importers/cli-import.js';
import { AML_LISTS, entityId, type SanctionedEntity } from '../../../src/engines/aml/entity.js';
import { AmlNameIndex } from '../../../src/engines/aml/name-index.js';
import { CANDIDATE_LIMIT, findCandidates, normalizedNamesOf, screenStored, upsertEntities } from '../../../src/engines/aml/store.js';
import { openScratchDatabase, type ScratchDatabase } from '../../support/scratch-database.js';

const fixture = (name: string) => new URL(`../../fixtures/aml/${name}`, import.meta.url).pathname;

let scratch: ScratchDatabase;

beforeAll(async () => {
  scratch = await openScratchDatabase('aml_name_forms', { migrate: false });
  // Up to the migration before the one under test, so that it can be run on old rows below.
  await scratch.database.orm.migrator.up({ to: 'Migration20261122001300AmlRescreenRequests' });
}, 120_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('name forms', () => {
  const soleimani: SanctionedEntity = {
    source_list: 'OFAC_SDN',
    source_id: '10481',
    kind: 'person',
    primary_name: 'Qasem SOLEIMANI',
    aliases: ['Qassem SULEIMANI'],
    dates_of_birth: ['1957-03-11'],
    countries: ['IR'],
    programs: ['SDGT'],
    topics: ['sanction'],
  };

  it('given names stored by an older normaliser, when the migration runs, then every entity has exactly the forms of this release', async () => {
    const em = scratch.database.orm.em.fork();
    await em.execute(
      `insert into aml_entity (id, source_list, source_id, kind, primary_name, aliases, dates_of_birth, countries, programs, topics, imported_at)
       values (?, ?, ?, ?, ?, ?::text[], '{}', '{}', '{}', '{}', now())`,
      [entityId(soleimani), soleimani.source_list, soleimani.source_id, soleimani.kind, soleimani.primary_name, '{"Qassem SULEIMANI"}'],
      'run',
    );
    // What the previous release wrote: the plain forms only.
    await em.execute(
      `insert into aml_entity_name (entity_id, source_list, name_normalized) values (?, 'OFAC_SDN', 'qasem soleimani'), (?, 'OFAC_SDN', 'qassem suleimani')`,
      [entityId(soleimani), entityId(soleimani)],
      'run',
    );

    await scratch.database.orm.migrator.up();

    const rows = await em.execute<{ name_normalized: string }[]>(
      'select name_normalized from aml_entity_name where entity_id = ? order by name_normalized',
      [entityId(soleimani)],
      'all',
    );
    expect(rows.map((row) => row.name_normalized)).toEqual([...normalizedNamesOf(soleimani)].sort());
    expect(rows.map((row) => row.name_normalized)).toContain('ksm slmn');
  });

  it('given OFAC sdn.csv with alt.csv and add.csv, when imported as the CLI does, then aliases and address countries are merged', async () => {
    const em = scratch.database.orm.em.fork();
    const summary = await importListFile(em, fixture('ofac-sdn.csv'), { companions: [fixture('ofac-add.csv'), fixture('ofac-alt.csv')] });
    expect(summary).toMatchObject({ format: 'ofac_sdn_csv', lists: ['OFAC_SDN'], counts: { OFAC_SDN: 6 } });
    const [row] = await em.execute<{ aliases: string[]; countries: string[] }[]>(
      `select aliases, countries from aml_entity where id = 'OFAC_SDN:90001'`,
      [],
      'all',
    );
    expect(row).toEqual({ aliases: ['Борислав Кравецкий', 'Boris KRAVETSKI'], countries: ['RU'] });
    const [munsterberg] = await em.execute<{ countries: string[] }[]>(
      `select countries from aml_entity where id = 'OFAC_SDN:90005'`,
      [],
      'all',
    );
    expect(munsterberg!.countries).toEqual(['DE', 'AT']);
  });

  it('given a companion that is not alt.csv or add.csv, or a companion beside a file that is not sdn.csv, when imported, then it is refused and nothing changes', async () => {
    const em = scratch.database.orm.em.fork();
    await expect(importListFile(em, fixture('ofac-sdn.csv'), { companions: [fixture('un-consolidated.xml')] })).rejects.toThrow(
      /only OFAC's alt.csv and add.csv/,
    );
    await expect(importListFile(em, fixture('un-consolidated.xml'), { companions: [fixture('ofac-alt.csv')] })).rejects.toThrow(
      /only OFAC's alt.csv and add.csv/,
    );
    const [count] = await em.execute<{ n: string }[]>(`select count(*) as n from aml_entity where source_list = 'OFAC_SDN'`, [], 'all');
    expect(Number(count!.n)).toBe(6);
  });

  it('given a typo in every word or an Arabic-script name, when retrieved through the index and through pg_trgm, then the listed entity is a candidate of both, and a hit', async () => {
    const em = scratch.database.orm.em.fork();
    const maduro: SanctionedEntity = {
      source_list: 'OFAC_SDN',
      source_id: '22790',
      kind: 'person',
      primary_name: 'Nicolas MADURO MOROS',
      aliases: [],
      dates_of_birth: [],
      countries: ['VE'],
      programs: ['VENEZUELA'],
      topics: ['sanction'],
    };
    // Names around them that share trigrams, so the candidates are not everything listed.
    const crowd = ['Nicola Madera', 'Nicolas Moro', 'Mauro Morales', 'Qasim Salman', 'Solomon Kasem'].map((name, i): SanctionedEntity => ({
      ...maduro,
      source_id: String(1000 + i),
      primary_name: name,
    }));
    // The sdn.csv import above replaced OFAC_SDN; Soleimani is listed again beside Maduro.
    await upsertEntities(em, [maduro, soleimani, ...crowd]);
    const index = new AmlNameIndex(scratch.database.orm.em);
    await index.start();
    try {
      for (const [query, expected] of [
        ['Nicloas Madruo Moors', 'OFAC_SDN:22790'],
        ['قاسم سليماني', 'OFAC_SDN:10481'],
      ] as const) {
        const viaIndex = await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index);
        const viaTrigram = await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, null);
        expect(viaIndex.map(entityId), query).toEqual(viaTrigram.map(entityId));
        expect(viaIndex.map(entityId), query).toContain(expected);
        const screening = await screenStored(em, { fullName: query }, AML_LISTS, index);
        // A skeleton cannot tell every name apart: "Qasim Salman" has Soleimani's ("ksm slmn") and
        // scores as high; both are hits for a reviewer, Soleimani among them.
        expect(screening.hits.find((hit) => hit.entityId === expected)?.score, query).toBeGreaterThanOrEqual(80);
      }
      expect(index.counters().fallbacks).toBe(0);
    } finally {
      await index.stop();
    }
  });

  it('given two letters swapped in every word, which trigram similarity misses, when screened through the index, then the edit path finds the listed name and it declines', async () => {
    const em = scratch.database.orm.em.fork();
    const dergham: SanctionedEntity = {
      source_list: 'OFAC_SDN',
      source_id: '20962',
      kind: 'person',
      primary_name: 'Duraid DERGHAM',
      aliases: [],
      dates_of_birth: [],
      countries: ['SY'],
      programs: ['SYRIA'],
      topics: ['sanction'],
    };
    await upsertEntities(em, [dergham]);
    const index = new AmlNameIndex(scratch.database.orm.em);
    await index.start();
    try {
      const query = 'Duarid Derhgam';
      // Trigram similarity 0.17, skeletons "drd drhgm" and "drd drghm": neither way finds it.
      expect((await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, null)).map(entityId)).not.toContain('OFAC_SDN:20962');
      expect((await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index)).map(entityId)).not.toContain('OFAC_SDN:20962');
      const withEdits = await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index, { edits: true });
      expect(withEdits.map(entityId)).toContain('OFAC_SDN:20962');
      const screening = await screenStored(em, { fullName: query }, AML_LISTS, index);
      expect(screening.hits[0]).toMatchObject({ entityId: 'OFAC_SDN:20962', matchedName: 'Duraid DERGHAM' });
      expect(screening.score).toBeGreaterThanOrEqual(80);
      // Other lists are not screened by the edit path either.
      expect((await findCandidates(em, query, ['UN_SC'], CANDIDATE_LIMIT, index, { edits: true })).map(entityId)).toEqual([]);
    } finally {
      await index.stop();
    }
  });
});
