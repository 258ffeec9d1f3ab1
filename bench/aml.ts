/**
 * AML screening benchmark: `npx tsx bench/aml.ts [--sizes 10000,100000,1000000] [--screens 400]`.
 *
 * Loads synthetic listed entities (multi-token names built from syllable tables, aliases,
 * dates of birth, countries) in growing steps, and after each step times N screens through the
 * server's path (`screenStored` with the in-memory trigram index, then TypeScript scoring) and
 * through the pg_trgm query alone, half of them names that are listed (reordered, misspelt or
 * re-cased) and half names that are not. A baseline in the same run times an exact
 * `where name_normalized = $1` btree lookup on the same table. Untimed: whether the index and
 * pg_trgm return the same candidates, and recall for names with every word misspelt once and twice.
 *
 * `--load-only` times the loading alone (the import and ANALYZE), step by step.
 *
 * Runs on embedded PGlite (in memory) by default, on DATABASE_URL when set. It EMPTIES the AML
 * tables: against a server it refuses a database that holds real list imports unless --force.
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/shared/config.js';
import { openDatabase } from '../src/db/database.js';
import { AML_LISTS, ENTITY_KINDS, entityId, type SanctionedEntity } from '../src/engines/aml/entity.js';
import { normalizeName } from '../src/engines/aml/normalize.js';
import { AmlNameIndex } from '../src/engines/aml/name-index.js';
import { CANDIDATE_LIMIT, findCandidates, screenStored, upsertEntities } from '../src/engines/aml/store.js';
import { prng } from '../test/support/prng.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    screens: { type: 'string', default: '400' },
    seed: { type: 'string', default: '42' },
    force: { type: 'boolean', default: false },
    'trgm-screens': { type: 'string' },
    'load-only': { type: 'boolean', default: false },
  },
});
const SIZES = values.sizes
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b);
const SCREENS = Number(values.screens);
/** Queries timed through pg_trgm alone and compared for `same` (the slow baseline: at 1M names ~1 s each under load). */
const TRGM_SCREENS = Math.min(SCREENS, Number(values['trgm-screens'] ?? SCREENS));

const random = prng(Number(values.seed));
/** A second stream for the harder recall queries, so adding them leaves the data and timed queries as they were. */
const hardRandom = prng(Number(values.seed) + 1);
const pick = <T>(items: readonly T[], rand = random): T => items[Math.floor(rand() * items.length)] as T;
const int = (min: number, max: number, rand = random) => min + Math.floor(rand() * (max - min + 1));

// Syllables from several naming traditions, so names look like real list entries and share
// trigrams the way real names do (the hard case for a trigram index).
const ONSETS = [
  '',
  'b',
  'ch',
  'd',
  'f',
  'g',
  'h',
  'j',
  'k',
  'kh',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  'sh',
  't',
  'v',
  'y',
  'z',
  'br',
  'dr',
  'gr',
  'kr',
  'st',
  'tr',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ei', 'ia', 'ou', 'ya', 'yu', 'ee', 'oo'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'm', 'k', 'v', 'd', 'sh', 'ng', 'st', 'ff'];
const SUFFIXES = ['', '', 'ov', 'ova', 'enko', 'ski', 'son', 'ez', 'ian', 'ani', 'awi', 'ush', 'berg', 'ini'];
const ORG_WORDS = ['Trading', 'Holdings', 'Maritime', 'Exchange', 'Industries', 'Logistics', 'Group', 'Bank', 'Energy', 'Mining'];
const COUNTRIES = ['RU', 'IR', 'SY', 'KP', 'CU', 'VE', 'AE', 'CY', 'TR', 'CN', 'IQ', 'LB', 'YE', 'SD', 'MM', 'BY', 'DE', 'FR', 'GB', 'US'];

function syllable(): string {
  return pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
}
function word(minSyllables: number, maxSyllables: number, suffix = false): string {
  let w = '';
  for (let i = int(minSyllables, maxSyllables); i > 0; i--) w += syllable();
  if (suffix) w += pick(SUFFIXES);
  return w.charAt(0).toUpperCase() + w.slice(1);
}
function personName(): string[] {
  const tokens = [word(1, 3)];
  if (random() < 0.4) tokens.push(word(1, 3));
  tokens.push(word(2, 3, true));
  return tokens;
}
/** A plausible misspelling: one letter changed, dropped or doubled. */
function misspell(token: string, rand = random): string {
  if (token.length < 4) return token;
  const at = int(1, token.length - 2, rand);
  const r = rand();
  if (r < 0.33) return token.slice(0, at) + token.slice(at + 1);
  if (r < 0.66) return token.slice(0, at) + token[at] + token.slice(at);
  return token.slice(0, at) + pick(['a', 'e', 'i', 'o', 'u', 'y'], rand) + token.slice(at + 1);
}

let nextId = 0;
/** One synthetic entity: 85% persons, the rest organisations, vessels and aircraft. */
function syntheticEntity(): SanctionedEntity {
  nextId += 1;
  const isPerson = random() < 0.85;
  const tokens = isPerson ? personName() : [word(2, 3), pick(ORG_WORDS), ...(random() < 0.5 ? [pick(['LLC', 'JSC', 'Ltd'])] : [])];
  const aliases: string[] = [];
  for (let i = int(0, 2); i > 0; i--) {
    const r = random();
    if (r < 0.4) aliases.push([...tokens].reverse().join(' '));
    else if (r < 0.8) aliases.push(tokens.map((t) => (random() < 0.5 ? misspell(t) : t)).join(' '));
    else aliases.push(personName().join(' '));
  }
  const year = int(1940, 2000);
  const dob = random() < 0.5 ? `${year}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}` : String(year);
  return {
    source_list: AML_LISTS[nextId % AML_LISTS.length] ?? 'OFAC_SDN',
    source_id: `bench-${nextId}`,
    kind: isPerson ? 'person' : (pick(ENTITY_KINDS.slice(1, 3)) as SanctionedEntity['kind']),
    primary_name: tokens.join(' '),
    aliases,
    dates_of_birth: isPerson ? [dob] : [],
    countries: [pick(COUNTRIES), ...(random() < 0.3 ? [pick(COUNTRIES)] : [])],
    programs: ['BENCH'],
    topics: ['sanction'],
  };
}

/** Keeps a reservoir of generated entities to build "listed" queries from. */
const sample: SanctionedEntity[] = [];
function* generate(count: number): Generator<SanctionedEntity> {
  for (let i = 0; i < count; i++) {
    const entity = syntheticEntity();
    if (sample.length < 5000) sample.push(entity);
    else if (random() < 0.001) sample[int(0, sample.length - 1)] = entity;
    yield entity;
  }
}

/** Half listed names (reordered, misspelt, upper-cased, with DOB), half unlisted names. */
function queries(count: number): { fullName: string; dateOfBirth?: string; expectedId?: string }[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 2 === 1) return { fullName: personName().join(' '), dateOfBirth: `${int(1940, 2000)}-0${int(1, 9)}-1${int(0, 9)}` };
    const entity = pick(sample);
    const tokens = entity.primary_name.split(' ');
    const variant = random();
    let name = entity.primary_name;
    if (variant < 0.33) name = [...tokens].reverse().join(' ');
    else if (variant < 0.66) name = tokens.map((t, j) => (j === tokens.length - 1 ? misspell(t) : t)).join(' ');
    else name = entity.primary_name.toUpperCase();
    const dob = entity.dates_of_birth[0];
    return { fullName: name, ...(dob && dob.length === 10 ? { dateOfBirth: dob } : {}), expectedId: entityId(entity) };
  });
}

/**
 * Harder listed-name queries for a second recall figure: every word of the entity's primary name
 * misspelt `edits` times (words under four letters are left as they are), so a change of
 * candidate retrieval cannot lose fuzzy matches behind the easy queries' 100 %.
 */
function hardQueries(count: number, edits: number): { fullName: string; expectedId: string }[] {
  return Array.from({ length: count }, () => {
    const entity = pick(sample, hardRandom);
    const tokens = entity.primary_name.split(' ').map((token) => {
      let spelt = token;
      for (let i = 0; i < edits; i++) spelt = misspell(spelt, hardRandom);
      return spelt;
    });
    return { fullName: tokens.join(' '), expectedId: entityId(entity) };
  });
}

/** p-th percentile (0..100) of sorted values, nearest rank. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
function stats(ms: number[]): { p50: number; p95: number; p99: number; perSecond: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const total = ms.reduce((a, b) => a + b, 0);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), perSecond: (ms.length / total) * 1000 };
}
const fmt = (n: number) => n.toFixed(2).padStart(8);

async function main(): Promise<void> {
  const target = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite (in memory)';
  const config = loadConfig({ ...process.env, PGLITE_DATA_DIR: 'memory', LOG_LEVEL: 'silent', MIGRATE_ON_START: 'true' });
  const database = await openDatabase(config, pino({ level: 'silent' }), { migrate: true });
  try {
    const em = database.orm.em.fork();
    const real = await em.execute<{ n: string }[]>(`select count(*) as n from aml_list_import where checksum <> 'bench'`);
    if (Number(real[0]?.n ?? 0) > 0 && !values.force) {
      throw new Error(
        'This database holds real AML list imports; the benchmark empties the AML tables. Use a scratch database or --force.',
      );
    }
    await em.execute('truncate aml_entity_name, aml_entity, aml_list_import', [], 'run');
    console.log(`AML screening benchmark on ${target}; ${SCREENS} screens per size (half listed, half unlisted)\n`);
    console.log(
      'entities   load s  build s    MB | index p50   p95      p99  screens/s   CPU ms | pg_trgm p50  p95      p99  screens/s | exact p50   p95      p99 | recall  same | recall 1 edit/word  2 edits/word',
    );
    const index = new AmlNameIndex(em);
    let loaded = 0;
    for (const size of SIZES) {
      const started = performance.now();
      await upsertEntities(em, generate(size - loaded));
      loaded = size;
      await em.execute('analyze aml_entity_name', [], 'run');
      await em.execute('analyze aml_entity', [], 'run');
      const loadSeconds = (performance.now() - started) / 1000;
      // --load-only: the import alone, for comparing import paths without the index build and screens.
      if (values['load-only']) {
        console.log(`${String(size).padStart(8)} ${loadSeconds.toFixed(1).padStart(8)}`);
        continue;
      }
      const buildStarted = performance.now();
      await index.refresh();
      const buildSeconds = (performance.now() - buildStarted) / 1000;
      const built = index.stats();
      if (!built) throw new Error('the AML name index did not build');

      const batch = queries(SCREENS);
      /** Times every query of the batch through `screenStored`, with the index or with pg_trgm alone. */
      const timeScreens = async (withIndex: AmlNameIndex | null, timed: typeof batch) => {
        // Warm-up, so the first timings do not measure cold caches and JIT.
        for (const q of timed.slice(0, 20)) await screenStored(em.fork(), q, AML_LISTS, withIndex);
        const ms: number[] = [];
        let found = 0;
        const cpu = process.cpuUsage();
        for (const q of timed) {
          const t = performance.now();
          const result = await screenStored(em.fork(), q, AML_LISTS, withIndex);
          ms.push(performance.now() - t);
          if (q.expectedId && result.hits.some((hit) => hit.entityId === q.expectedId)) found += 1;
        }
        const used = process.cpuUsage(cpu);
        // CPU of this process per screen (on PGlite the database's too): what the screen costs without waiting for a core.
        return { ms, found, cpuMs: (used.user + used.system) / 1000 / timed.length };
      };
      const indexed = await timeScreens(index, batch);
      const trgm = await timeScreens(null, batch.slice(0, TRGM_SCREENS));
      if (index.stats()?.epoch !== built.epoch) throw new Error('the index went stale during the run: timings mixed both paths');
      const exactMs: number[] = [];
      for (const q of batch) {
        const t = performance.now();
        await em.fork().execute('select entity_id from aml_entity_name where name_normalized = ?', [normalizeName(q.fullName)], 'all');
        exactMs.push(performance.now() - t);
      }
      // Same candidates, in the same order, from the index as from pg_trgm (untimed).
      let same = 0;
      for (const q of batch.slice(0, TRGM_SCREENS)) {
        const a = await findCandidates(em.fork(), q.fullName, AML_LISTS, CANDIDATE_LIMIT, index);
        const b = await findCandidates(em.fork(), q.fullName, AML_LISTS, CANDIDATE_LIMIT, null);
        if (a.map(entityId).join() === b.map(entityId).join()) same += 1;
      }
      const sameShare = same / TRGM_SCREENS;
      // Recall on harder spellings, a quarter as many queries per kind (not timed).
      const hardRecall: number[] = [];
      for (const edits of [1, 2]) {
        const hard = hardQueries(Math.max(1, Math.round(SCREENS / 4)), edits);
        let hardFound = 0;
        for (const q of hard) {
          const result = await screenStored(em.fork(), q, AML_LISTS, index);
          if (result.hits.some((hit) => hit.entityId === q.expectedId)) hardFound += 1;
        }
        hardRecall.push(hardFound / hard.length);
      }
      const s = stats(indexed.ms);
      const g = stats(trgm.ms);
      const e = stats(exactMs);
      const hitRate = indexed.found / batch.filter((q) => q.expectedId).length;
      console.log(
        `${String(size).padStart(8)} ${loadSeconds.toFixed(1).padStart(8)} ${buildSeconds.toFixed(1).padStart(7)} ${(built.bytes / 2 ** 20).toFixed(0).padStart(5)} |${fmt(s.p50)}${fmt(s.p95)}${fmt(s.p99)}${s.perSecond.toFixed(0).padStart(10)}${fmt(indexed.cpuMs)} |${fmt(g.p50)}${fmt(g.p95)}${fmt(g.p99)}${g.perSecond.toFixed(0).padStart(10)} |${fmt(e.p50)}${fmt(e.p95)}${fmt(e.p99)} |${(hitRate * 100).toFixed(0).padStart(6)}%${(sameShare * 100).toFixed(0).padStart(5)}% |${hardRecall.map((r) => `${(r * 100).toFixed(0)}%`.padStart(14)).join('')}`,
      );
    }
    await index.stop();
    console.log('\nTimes in ms per call, sequential, client-side (driver round trip and TS scoring included).');
    console.log('index: the server path (in-memory trigram index, then one query for the entities); pg_trgm: the fallback query alone.');
    console.log(
      'CPU ms: CPU time of this process per index screen (PGlite: the database included; the load inflates wall times, not this).',
    );
    console.log(`pg_trgm and same: the first ${TRGM_SCREENS} of the ${SCREENS} queries.`);
    console.log('build s, MB: building the in-memory index from the table, and the memory it holds.');
    console.log('recall: share of listed-name queries whose own entity is among the hits.');
    console.log('same: share of queries for which the index and pg_trgm return the same candidates in the same order.');
    console.log('recall 1 edit/word, 2 edits/word: the same for names with every word misspelt once, twice (not timed).');
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
