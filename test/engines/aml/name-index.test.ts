/**
 * The in-memory trigram index of listed names (src/engines/aml/name-index.ts) against pg_trgm
 * itself: the same trigrams, the same similarity, and for every query the same candidates in
 * the same order as the pg_trgm query; it steps aside when the lists change and when a name is
 * outside the normalised alphabet. Runs on a database of its own (the AML tables are global).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveAmlEngine } from '../../../src/engines/aml/engine.js';
import { AML_LISTS, entityId, type AmlList, type SanctionedEntity } from '../../../src/engines/aml/entity.js';
import { AmlNameIndex, trigramCodes, trigramSimilarity } from '../../../src/engines/aml/name-index.js';
import { CANDIDATE_LIMIT, findCandidates, upsertEntities } from '../../../src/engines/aml/store.js';
import type { EngineContext } from '../../../src/engines/node-engine.js';
import { openScratchDatabase, type ScratchDatabase } from '../../support/scratch-database.js';
import { prng } from '../../support/prng.js';

const ALPHABET = ' abcdefghijklmnopqrstuvwxyz0123456789';
/** A trigram code back to its three characters, as pg_trgm's show_trgm prints them. */
const trigramText = (code: number) => ALPHABET[Math.floor(code / 1369)]! + ALPHABET[Math.floor(code / 37) % 37]! + ALPHABET[code % 37]!;

const random = prng(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const SYLLABLES = [
  'ka',
  'ri',
  'mo',
  'ha',
  'sa',
  'ne',
  'lo',
  'vich',
  'ov',
  'an',
  'el',
  'ju',
  'zh',
  'dr',
  'ak',
  'ul',
  'mi',
  'ta',
  'ben',
  'os',
];
const word = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(SYLLABLES)).join('');
const personName = () => Array.from({ length: 2 + Math.floor(random() * 2) }, word).join(' ');
/** One letter changed, dropped or doubled. */
function misspell(token: string): string {
  const i = Math.floor(random() * token.length);
  const r = random();
  if (r < 0.33) return token.slice(0, i) + pick([...'aeiouk']) + token.slice(i + 1);
  if (r < 0.66 && token.length > 2) return token.slice(0, i) + token.slice(i + 1);
  return token.slice(0, i) + token[i] + token.slice(i);
}

/** 1,500 entities: aliases reordered or misspelt, and 12 entities sharing one name in every list (ties at any limit). */
function syntheticEntities(): SanctionedEntity[] {
  const entities: SanctionedEntity[] = [];
  for (let i = 0; i < 1500; i += 1) {
    const name = personName();
    const tokens = name.split(' ');
    entities.push({
      source_list: pick(AML_LISTS),
      source_id: `syn-${i}`,
      kind: 'person',
      primary_name: name,
      aliases: random() < 0.5 ? [[...tokens].reverse().join(' '), tokens.map(misspell).join(' ')] : [],
      dates_of_birth: [],
      countries: [],
      programs: [],
      topics: [],
    });
  }
  for (let i = 0; i < 12; i += 1) {
    entities.push({
      source_list: AML_LISTS[i % AML_LISTS.length]!,
      source_id: `twin-${String(i).padStart(2, '0')}`,
      kind: 'person',
      primary_name: 'Sakamo Rivich',
      aliases: [],
      dates_of_birth: [],
      countries: [],
      programs: [],
      topics: [],
    });
  }
  return entities;
}

let scratch: ScratchDatabase;
let entities: SanctionedEntity[];

beforeAll(async () => {
  scratch = await openScratchDatabase('aml_index', { migrate: true });
  entities = syntheticEntities();
  await upsertEntities(scratch.database.orm.em.fork(), entities);
}, 60_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('trigrams and similarity', () => {
  const names = ['a', 'ab', 'abc', 'borislav kravetsky', 'x 7 zz', 'mohammed al rashid', 'aaaa aaaa', 'k2 r2d2 c3po', 'ibn'];

  it('given normalised names, when split into trigrams, then they are exactly the trigrams pg_trgm shows', async () => {
    const em = scratch.database.orm.em.fork();
    for (const name of names) {
      const [row] = await em.execute<{ t: string[] }[]>('select show_trgm(?) as t', [name], 'all');
      const codes = trigramCodes(name);
      expect(codes, name).not.toBeNull();
      expect([...codes!].map(trigramText).sort(), name).toEqual([...row!.t].sort());
    }
  });

  it('given a character outside the normalised alphabet, when split, then there are no trigrams to trust', () => {
    expect(trigramCodes('josé')).toBeNull();
    expect(trigramCodes('JOSE')).toBeNull();
    expect(trigramCodes('o-brien')).toBeNull();
  });

  it('given random pairs of names, when compared, then the similarity is pg_trgm similarity() to the bit (float4)', async () => {
    const em = scratch.database.orm.em.fork();
    const pairs = Array.from({ length: 200 }, () => {
      const a = personName();
      return [a, random() < 0.5 ? personName() : a.split(' ').map(misspell).join(' ')] as const;
    });
    const rows = await em.execute<{ s: number | string }[]>(
      'select similarity(p.a, p.b) as s from jsonb_to_recordset(?::jsonb) as p(a text, b text, n int) order by p.n',
      [JSON.stringify(pairs.map(([a, b], n) => ({ a, b, n })))],
      'all',
    );
    let similarPairs = 0;
    pairs.forEach(([a, b], i) => {
      const codesA = trigramCodes(a)!;
      const codesB = new Set(trigramCodes(b)!);
      const overlap = [...codesA].filter((code) => codesB.has(code)).length;
      const ours = trigramSimilarity(overlap, codesA.length, codesB.size);
      expect(ours, `${a} / ${b}`).toBe(Math.fround(Number(rows[i]!.s)));
      if (ours >= 0.4) similarPairs += 1;
    });
    // The misspelt half gives pairs on both sides of the candidate threshold.
    expect(similarPairs).toBeGreaterThan(0);
  });
});

describe('candidate retrieval', () => {
  let index: AmlNameIndex;

  beforeAll(async () => {
    index = new AmlNameIndex(scratch.database.orm.em);
    await index.start();
  });
  afterAll(() => index.stop());

  /** Listed names misspelt or reordered, unlisted names, a short name, the shared name, and a variant-producing umlaut. */
  const queries = () => [
    ...entities.slice(0, 150).map((e) => {
      const tokens = e.primary_name.split(' ');
      return random() < 0.5 ? tokens.map(misspell).join(' ') : [...tokens].reverse().join(' ');
    }),
    ...Array.from({ length: 100 }, personName),
    'ka',
    'Sakamo Rivich',
    'Sakamö Rivich',
    'SAKAMO  rivič',
  ];

  it('given the same queries, lists and limits, when retrieved through the index and through pg_trgm, then both return the same entities in the same order', async () => {
    const em = scratch.database.orm.em.fork();
    expect(index.stats()).toMatchObject({ names: expect.any(Number), entities: entities.length });
    const before = index.counters();
    let compared = 0;
    let nonEmpty = 0;
    const cases: { lists: readonly AmlList[]; limit: number }[] = [
      { lists: AML_LISTS, limit: CANDIDATE_LIMIT },
      { lists: ['PEP', 'UN_SC'], limit: CANDIDATE_LIMIT },
      { lists: AML_LISTS, limit: 3 },
    ];
    for (const { lists, limit } of cases) {
      for (const query of queries()) {
        const viaIndex = await findCandidates(em, query, lists, limit, index);
        const viaTrigram = await findCandidates(em, query, lists, limit, null);
        expect(viaIndex.map(entityId), `${query} on ${lists.join(',')} limit ${limit}`).toEqual(viaTrigram.map(entityId));
        expect(viaIndex).toEqual(viaTrigram);
        compared += 1;
        if (viaIndex.length > 0) nonEmpty += 1;
      }
    }
    expect(index.counters()).toMatchObject({ served: before.served + compared, fallbacks: before.fallbacks });
    expect(nonEmpty).toBeGreaterThan(compared / 2);
    // The shared name at limit 3: ties broken by entity id, as the database orders them.
    const twins = await findCandidates(em, 'Sakamo Rivich', AML_LISTS, 3, index);
    expect(twins.map(entityId)).toEqual(
      entities
        .filter((e) => e.primary_name === 'Sakamo Rivich')
        .map(entityId)
        .sort()
        .slice(0, 3),
    );
  }, 600_000); // 762 retrievals twice, each with up to six candidate forms; minutes on a shared 2-core machine

  it('given the live engine built with the index, when it screens a listed name, then the index answers and the hit is found', async () => {
    const engine = createLiveAmlEngine({ em: () => scratch.database.orm.em.fork(), amlIndex: index });
    const before = index.counters();
    const listed = entities[3]!;
    const result = await engine.run({ fullName: listed.primary_name }, {
      tenantId: 'tenant',
      sessionId: 'session',
      amlScoreThreshold: 80,
    } satisfies EngineContext);
    expect(result.details).toMatchObject({
      hits: expect.arrayContaining([expect.objectContaining({ entryId: listed.source_id, score: 100 })]),
    });
    expect(index.counters().served).toBe(before.served + 1);
  });
});

describe('freshness', () => {
  it('given names changed by bare SQL after the build, when screened, then pg_trgm answers with the change until the index has rebuilt, and the index then serves it', async () => {
    const em = scratch.database.orm.em.fork();
    const index = new AmlNameIndex(scratch.database.orm.em);
    await index.start();
    const built = index.stats()!;
    const victim = entities[10]!;
    const query = victim.primary_name;
    expect((await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index)).map(entityId)).toContain(entityId(victim));
    await em.execute('delete from aml_entity_name where entity_id = ?', [entityId(victim)], 'run');

    const before = index.counters();
    const afterDelete = await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index);
    expect(afterDelete.map(entityId)).not.toContain(entityId(victim));
    expect(index.counters().fallbacks).toBe(before.fallbacks + 1);

    await index.refresh();
    expect(index.stats()!.epoch).not.toBe(built.epoch);
    expect(index.stats()!.names).toBeLessThan(built.names);
    const served = index.counters().served;
    expect((await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index)).map(entityId)).toEqual(
      (await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, null)).map(entityId),
    );
    expect(index.counters().served).toBe(served + 1);

    // Put the names back for the other tests.
    await upsertEntities(em, [victim]);
    await index.stop();
  });

  it('given a listed name outside the normalised alphabet, when the index builds, then it stays off and screens still find it through pg_trgm', async () => {
    const em = scratch.database.orm.em.fork();
    const odd = entities[20]!;
    await em.execute(
      'insert into aml_entity_name (entity_id, source_list, name_normalized) values (?, ?, ?)',
      [entityId(odd), odd.source_list, 'zoë odd'],
      'run',
    );
    const index = new AmlNameIndex(scratch.database.orm.em);
    await index.start();
    expect(index.stats()).toBeNull();
    const builds = index.counters().builds;
    for (const query of ['zoe odd', 'zoe', entities[20]!.primary_name]) {
      const found = await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, index);
      expect(found.map(entityId)).toEqual((await findCandidates(em, query, AML_LISTS, CANDIDATE_LIMIT, null)).map(entityId));
    }
    // Screens do not start a build each while the index is off (a rebuild would read every name).
    expect(index.counters()).toEqual({ served: 0, fallbacks: 3, builds });
    await em.execute('delete from aml_entity_name where name_normalized = ?', ['zoë odd'], 'run');
    await index.stop();
  });
});
