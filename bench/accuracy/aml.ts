/**
 * AML accuracy on real lists: `npm run bench:accuracy:aml [-- --data <dir>] [--verbose]`.
 *
 * Imports the development set's real lists (OFAC SDN CSV with its alt.csv aliases, the UN
 * Security Council XML; `../shared/realdata/aml/`, README there) into a fresh in-memory embedded
 * database, builds the in-memory name index as a server does, and screens every query of
 * `queries.json` through `screenStored`: the server's path. Prints, per group of queries.json,
 * how many queries were answered correctly at the default decline threshold and the false
 * positives (declines on the wrong entity, unlisted names sent to review), beside the figures
 * measured on commit 7f1dcb4 (before the normaliser, candidate and scoring work) and on b37f4c6
 * (before the work on issue 15.5), and Watchman's own expected similarities where its tests give one.
 *
 * What "correct" means, per query (QUERIES.md):
 * - a listed person or organisation (`expect_hit: true`): its entity is a hit scoring at or above
 *   the default threshold (80), i.e. the screen would decline;
 * - `famous-exact+wrong-dob`: its entity is a hit below the threshold (review, not a decline);
 * - a Watchman query whose expected similarity is below 0.8: its entity is a hit at all;
 * - an ordinary name (`expect_hit: false`): no hit at or above the threshold (not declined);
 * - `expect_hit: null` (EU queries whose entities are not loaded): not scored, listed only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { importListFile } from '../../src/engines/aml/importers/cli-import.js';
import { loadConfig } from '../../src/shared/config.js';
import { openDatabase } from '../../src/db/database.js';
import { AML_LISTS } from '../../src/engines/aml/entity.js';
import { AmlNameIndex } from '../../src/engines/aml/name-index.js';
import { screenStored } from '../../src/engines/aml/store.js';
import { nameSimilarity, type AmlQuery } from '../../src/engines/aml/score.js';
import type { SanctionedEntity } from '../../src/engines/aml/entity.js';
import { commonNameProbes, listedProbes, WATCHMAN_KNOWN_FALSE_POSITIVES, type Probe } from './aml-probes.js';

/** The workflow default `aml_score_threshold`: a hit at or above it declines. */
export const DEFAULT_DECLINE_THRESHOLD = 80;

/** Watchman's expected similarity below which its own test expects only a weak match, not a decline. */
const WATCHMAN_WEAK_BELOW = 0.8;

/** Where the development set lives unless `--data` or `AML_REALDATA_DIR` says otherwise. */
const DEFAULT_DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/realdata/aml');

/**
 * Correct answers per group measured on commit 7f1dcb4, the engine before this benchmark's
 * changes (same data, same rules), so every later run prints its progress beside them.
 */
export const BASELINE_7F1DCB4: Readonly<Record<string, number>> = {
  'famous-exact': 25,
  'famous-listed-form': 25,
  'famous-reordered': 25,
  'famous-misspelt-1': 25,
  'famous-misspelt-every-word': 8,
  'famous-alt-romanisation': 24,
  'famous-partial(first+last)': 17,
  'famous-exact+dob+country': 25,
  'famous-exact+wrong-dob': 25,
  'famous-native-script': 12,
  watchman: 29,
  ordinary: 25,
  'ordinary+dob+country': 21,
};

/**
 * Totals on commit 7f1dcb4 across groups (the watchman group mixes listed and unlisted names, so
 * they are not sums of the per-group figures): listed subjects answered right, ordinary names
 * (groups `ordinary*`) declined, and ordinary names with a hit below the threshold (sent to review).
 */
export const BASELINE_7F1DCB4_TOTALS = { listedCorrect: 233, ordinaryDeclined: 0, ordinaryReviewed: 14 } as const;

/** The same totals on commit b37f4c6 (see BASELINE_B37F4C6). */
export const BASELINE_B37F4C6_TOTALS = { listedCorrect: 254, ordinaryDeclined: 0, ordinaryReviewed: 18 } as const;

/**
 * Per group on commit b37f4c6, where the work on issue 15.5 started (the normaliser, skeleton
 * candidates and scoring above already in): correct answers, queries declined on the wrong
 * entity, and unlisted names sent to review; same data, same rules.
 */
export const BASELINE_B37F4C6: Readonly<Record<string, { correct: number; falseDeclines: number; falseReviews: number }>> = {
  'famous-exact': { correct: 25, falseDeclines: 3, falseReviews: 0 },
  'famous-listed-form': { correct: 25, falseDeclines: 3, falseReviews: 0 },
  'famous-reordered': { correct: 25, falseDeclines: 3, falseReviews: 0 },
  'famous-misspelt-1': { correct: 25, falseDeclines: 2, falseReviews: 0 },
  'famous-misspelt-every-word': { correct: 25, falseDeclines: 1, falseReviews: 0 },
  'famous-alt-romanisation': { correct: 24, falseDeclines: 1, falseReviews: 0 },
  'famous-partial(first+last)': { correct: 17, falseDeclines: 2, falseReviews: 0 },
  'famous-exact+dob+country': { correct: 25, falseDeclines: 1, falseReviews: 0 },
  'famous-exact+wrong-dob': { correct: 25, falseDeclines: 1, falseReviews: 0 },
  'famous-native-script': { correct: 16, falseDeclines: 1, falseReviews: 0 },
  watchman: { correct: 30, falseDeclines: 2, falseReviews: 5 },
  ordinary: { correct: 25, falseDeclines: 0, falseReviews: 13 },
  'ordinary+dob+country': { correct: 21, falseDeclines: 0, falseReviews: 5 },
};

/** Commit the probes' baseline figures were measured on (the engine before issue 23's work). */
const PROBE_BASELINE_LABEL = '7cf3ea3';

/** Per probe group on commit 7cf3ea3: correct answers and wrong declines that are not namesakes (ProbeRow). */
export const PROBE_BASELINE: Readonly<Record<string, { correct: number; falseDeclines: number }>> = {
  'variant: surname-first': { correct: 150, falseDeclines: 9 },
  'variant: lower-case+diacritics': { correct: 150, falseDeclines: 9 },
  'variant: second-surname-dropped': { correct: 43, falseDeclines: 4 },
  'variant: hyphenated': { correct: 98, falseDeclines: 4 },
  'variant: romanisation': { correct: 142, falseDeclines: 6 },
  'variant: typo-one-word': { correct: 145, falseDeclines: 7 },
  'variant: middle-initial': { correct: 77, falseDeclines: 5 },
  'variant: middle-dropped': { correct: 72, falseDeclines: 9 },
  'variant: given-joined': { correct: 77, falseDeclines: 3 },
  'variant: particle-dropped-or-joined': { correct: 21, falseDeclines: 3 },
  'common names': { correct: 210, falseDeclines: 37 },
  'common names+dob': { correct: 246, falseDeclines: 4 },
  'watchman known fp': { correct: 3, falseDeclines: 0 },
};

/** Queries declined on another entity per group on commit 7cf3ea3, before issue 23's work (AccuracyRow.falseDeclines). */
export const BASELINE_7CF3EA3_FALSE_DECLINES: Readonly<Record<string, number>> = {
  'famous-exact': 2,
  'famous-listed-form': 2,
  'famous-reordered': 2,
  'famous-misspelt-1': 1,
  'famous-misspelt-every-word': 0,
  'famous-alt-romanisation': 1,
  'famous-partial(first+last)': 2,
  'famous-exact+dob+country': 0,
  'famous-exact+wrong-dob': 0,
  'famous-native-script': 1,
  watchman: 1,
  ordinary: 0,
  'ordinary+dob+country': 0,
};

/** The totals on commit 7cf3ea3 (see BASELINE_7F1DCB4_TOTALS). */
export const BASELINE_7CF3EA3_TOTALS = { listedCorrect: 255, ordinaryDeclined: 0, ordinaryReviewed: 16 } as const;

/** One query of queries.json. */
export interface AccuracyQuery {
  id: string;
  group: string;
  full_name: string;
  date_of_birth?: string;
  country?: string;
  expected_entity: string | null;
  expect_hit: boolean | null;
  watchman_expected?: number;
  note?: string;
}

/** One group's figures: `correct` of `items` queries, the false positives, and the mean screen time. */
export interface AccuracyRow {
  group: string;
  items: number;
  correct: number;
  /**
   * Queries declined on the wrong entity: for a listed subject, a hit at or above the threshold
   * on another entity of the expected entity's list (the UN list holds many of the SDN's people
   * under its own ids, so hits on other lists are not counted); for an unlisted name, any such hit.
   */
  falseDeclines: number;
  /** Queries for a name expected unlisted that got a hit below the threshold (sent to review). */
  falseReviews: number;
  msPerItem: number;
}

/** One query's outcome, for `--verbose` listings of the misses. */
interface Outcome {
  query: AccuracyQuery;
  correct: boolean;
  /** Score of the expected entity among the hits (0 when it is not a hit). */
  expectedScore: number;
  /** The best hit at or above the threshold on an entity other than the expected one (AccuracyRow.falseDeclines), if any. */
  falseDecline: { entityId: string; matchedName: string; score: number } | undefined;
  /** The name is expected unlisted and has a hit below the threshold. */
  falseReview: boolean;
  /** The best hit, whatever it is. */
  top: { entityId: string; name: string; matchedName: string; score: number } | undefined;
}

/** Whether `hit` is an entity other than the one `query` expects, on the expected entity's list (AccuracyRow.falseDeclines). */
function isOtherEntity(query: AccuracyQuery, hit: { entityId: string }): boolean {
  if (!query.expected_entity) return true;
  const list = query.expected_entity.split(':')[0]!;
  return hit.entityId !== query.expected_entity && hit.entityId.startsWith(`${list}:`);
}

/** Whether a screen's hits answer one query correctly (rules in the module comment); test/engines/aml/realdata.test.ts pins a sample with it. */
export function judge(query: AccuracyQuery, hits: { entityId: string; score: number }[]): { correct: boolean; expectedScore: number } {
  const expectedScore = hits.find((hit) => hit.entityId === query.expected_entity)?.score ?? 0;
  const declined = (hits[0]?.score ?? 0) >= DEFAULT_DECLINE_THRESHOLD;
  if (query.expect_hit === false) {
    return { correct: !declined, expectedScore };
  }
  if (query.group === 'famous-exact+wrong-dob') {
    return { correct: expectedScore > 0 && expectedScore < DEFAULT_DECLINE_THRESHOLD, expectedScore };
  }
  if (query.watchman_expected !== undefined && query.watchman_expected < WATCHMAN_WEAK_BELOW) {
    return { correct: expectedScore > 0, expectedScore };
  }
  return { correct: expectedScore >= DEFAULT_DECLINE_THRESHOLD, expectedScore };
}

/** One probe group's figures (aml-probes.ts). */
export interface ProbeRow {
  group: string;
  items: number;
  /** Listed variants: the expected entity is a hit at or above the threshold. Unlisted names: not declined. */
  correct: number;
  /** Unlisted names declined on a listed name they equal once normalised (a namesake: only a date of birth can tell them apart). */
  namesakes: number;
  /** Queries declined on an entity other than the expected one whose name is not the query's own. */
  falseDeclines: number;
}

/** One probe's outcome, for `--verbose`. */
interface ProbeOutcome {
  probe: Probe;
  correct: boolean;
  namesake: boolean;
  expectedScore: number;
  falseDecline: { entityId: string; matchedName: string; score: number } | undefined;
}

/** Screens the probes of aml-probes.ts through the same path as the queries. */
async function runProbes(
  screenOne: (query: AmlQuery) => Promise<{ entityId: string; matchedName: string; score: number }[]>,
  persons: SanctionedEntity[],
): Promise<{ rows: ProbeRow[]; outcomes: ProbeOutcome[] }> {
  const probes = [...listedProbes(persons), ...commonNameProbes(), ...WATCHMAN_KNOWN_FALSE_POSITIVES];
  const outcomes: ProbeOutcome[] = [];
  for (const probe of probes) {
    const hits = await screenOne({ fullName: probe.full_name, ...(probe.date_of_birth ? { dateOfBirth: probe.date_of_birth } : {}) });
    const expectedScore = hits.find((hit) => hit.entityId === probe.expected_entity)?.score ?? 0;
    // As for the queries, a listed subject's hits on other lists are not counted: the UN list holds many SDN persons under its own ids.
    const list = probe.expected_entity?.split(':')[0];
    const declines = hits.filter(
      (hit) =>
        hit.score >= DEFAULT_DECLINE_THRESHOLD && hit.entityId !== probe.expected_entity && (!list || hit.entityId.startsWith(`${list}:`)),
    );
    const namesakeOf = (hit: { matchedName: string }) => nameSimilarity(probe.full_name, hit.matchedName) >= 0.999;
    const falseDecline = declines.find((hit) => !namesakeOf(hit));
    const namesake = probe.expected_entity === null && declines.length > 0 && falseDecline === undefined;
    const correct = probe.expected_entity === null ? declines.length === 0 : expectedScore >= DEFAULT_DECLINE_THRESHOLD;
    outcomes.push({ probe, correct, namesake, expectedScore, falseDecline });
  }
  const groups = [...new Set(probes.map((p) => p.group))];
  const rows = groups.map((group) => {
    const mine = outcomes.filter((o) => o.probe.group === group);
    return {
      group,
      items: mine.length,
      correct: mine.filter((o) => o.correct).length,
      namesakes: mine.filter((o) => o.namesake).length,
      falseDeclines: mine.filter((o) => o.falseDecline !== undefined).length,
    };
  });
  return { rows, outcomes };
}

/** Runs the whole measurement; `outcomes` holds every query's result for listings. */
async function run(
  dataDir: string,
): Promise<{ rows: AccuracyRow[]; outcomes: Outcome[]; probes: { rows: ProbeRow[]; outcomes: ProbeOutcome[] } }> {
  const sdn = join(dataDir, 'sdn_bench2021_plus_ofactest.csv');
  const alt = join(dataDir, 'alt_bench2021_plus_ofactest.csv');
  const un = join(dataDir, 'UN_consolidated.xml');
  for (const file of [sdn, alt, un, join(dataDir, 'queries.json')]) {
    if (!existsSync(file)) throw new Error(`missing ${file}: pass --data <dir of the realdata aml set>`);
  }
  const queries = JSON.parse(readFileSync(join(dataDir, 'queries.json'), 'utf8')) as AccuracyQuery[];
  const config = loadConfig({ ...process.env, DATABASE_URL: '', PGLITE_DATA_DIR: 'memory', LOG_LEVEL: 'silent', MIGRATE_ON_START: 'true' });
  const database = await openDatabase(config, pino({ level: 'silent' }), { migrate: true });
  const index = new AmlNameIndex(database.orm.em.fork());
  try {
    const em = database.orm.em.fork();
    // As `npm run cli -- aml:import sdn.csv alt.csv` and `aml:import UN_consolidated.xml` do.
    await importListFile(em, sdn, { companions: [alt] });
    await importListFile(em, un);
    await index.refresh();
    if (!index.stats()) throw new Error('the AML name index did not build');
    const outcomes: Outcome[] = [];
    const times = new Map<string, number[]>();
    for (const query of queries) {
      const started = performance.now();
      const result = await screenStored(
        em.fork(),
        {
          fullName: query.full_name,
          ...(query.date_of_birth ? { dateOfBirth: query.date_of_birth } : {}),
          ...(query.country ? { country: query.country } : {}),
        },
        AML_LISTS,
        index,
      );
      const ms = performance.now() - started;
      times.set(query.group, [...(times.get(query.group) ?? []), ms]);
      const top = result.hits[0];
      const unlisted = query.expect_hit === false;
      outcomes.push({
        query,
        ...judge(query, result.hits),
        falseDecline: result.hits.find((hit) => hit.score >= DEFAULT_DECLINE_THRESHOLD && isOtherEntity(query, hit)),
        falseReview: unlisted && result.hits.length > 0 && result.hits[0]!.score < DEFAULT_DECLINE_THRESHOLD,
        top: top && { entityId: top.entityId, name: top.name, matchedName: top.matchedName, score: top.score },
      });
    }
    const groups = [...new Set(queries.filter((q) => q.expect_hit !== null).map((q) => q.group))];
    const rows = groups.map((group) => {
      const mine = outcomes.filter((o) => o.query.group === group && o.query.expect_hit !== null);
      const ms = times.get(group) ?? [];
      return {
        group,
        items: mine.length,
        correct: mine.filter((o) => o.correct).length,
        falseDeclines: mine.filter((o) => o.falseDecline !== undefined).length,
        falseReviews: mine.filter((o) => o.falseReview).length,
        msPerItem: ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length),
      };
    });
    const persons = await em.execute<SanctionedEntity[]>(
      `select source_list, source_id, kind, primary_name, aliases, dates_of_birth, countries, programs, topics
       from aml_entity where source_list = 'OFAC_SDN' and kind = 'person' order by id`,
      [],
      'all',
    );
    const probes = await runProbes(async (query) => (await screenStored(em.fork(), query, AML_LISTS, index)).hits, persons);
    return { rows, outcomes, probes };
  } finally {
    await index.stop();
    await database.close();
  }
}

/**
 * The accuracy of the AML engine on the development set, per group of queries.json; the shape a
 * combined `bench:accuracy` collects from every engine's benchmark.
 */
export async function measure(
  dataDir: string = process.env.AML_REALDATA_DIR ?? DEFAULT_DATA_DIR,
): Promise<{ engine: string; rows: AccuracyRow[] }> {
  const { rows } = await run(dataDir);
  return { engine: 'aml', rows };
}

const pct = (n: number, d: number) => (d === 0 ? '   -  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);

/** Prints the probes' table (aml-probes.ts) and, with `verbose`, the probes answered wrongly. */
function reportProbes(probes: { rows: ProbeRow[]; outcomes: ProbeOutcome[] }, verbose: boolean): void {
  console.log(
    "\nProbes not in queries.json (bench/accuracy/aml-probes.ts): rule-built variants of 150 listed OFAC persons, common names, Watchman's known false positives\n",
  );
  console.log(
    'probe group                          items  correct   now    ' +
      PROBE_BASELINE_LABEL +
      ' | namesakes declined  other wrong decl (' +
      PROBE_BASELINE_LABEL +
      ')',
  );
  for (const row of probes.rows) {
    const before = PROBE_BASELINE[row.group];
    console.log(
      `${row.group.padEnd(36)} ${String(row.items).padStart(5)} ${String(row.correct).padStart(8)} ${pct(row.correct, row.items)} ${before === undefined ? '    -  ' : pct(before.correct, row.items)} | ${String(row.namesakes).padStart(18)} ${String(row.falseDeclines).padStart(16)} ${before === undefined ? '  -' : String(before.falseDeclines).padStart(3)}`,
    );
  }
  console.log(
    'namesakes declined: unlisted names equal to a listed name once normalised (declined by name alone; a date of birth separates them).',
  );
  if (!verbose) return;
  console.log('\nprobes answered wrongly:');
  for (const o of probes.outcomes.filter((x) => !x.correct || x.falseDecline)) {
    const hit = o.falseDecline;
    console.log(
      `  [${o.probe.group}] ${JSON.stringify(o.probe.full_name)}${o.probe.date_of_birth ? ` ${o.probe.date_of_birth}` : ''} expected ${o.probe.expected_entity ?? 'none'} (score ${o.expectedScore})${hit ? `; declined ${hit.entityId} ${JSON.stringify(hit.matchedName)} ${hit.score}` : ''}${o.namesake ? ' (namesake)' : ''}`,
    );
  }
}

/** Prints the per-group table, the totals and (with `verbose`) every query answered wrongly. */
function report(rows: AccuracyRow[], outcomes: Outcome[], verbose: boolean): void {
  console.log('AML accuracy on the development set (OFAC SDN + alt.csv + UN), default threshold 80\n');
  console.log(
    'group                            items  correct   now    7f1dcb4  b37f4c6 | wrong decl (b37f4c6) (7cf3ea3) review (b37f4c6) | ms/query  watchman (expected → score now)',
  );
  for (const row of rows) {
    const before = BASELINE_7F1DCB4[row.group];
    const start = BASELINE_B37F4C6[row.group];
    const watchman = outcomes
      .filter((o) => o.query.group === row.group && o.query.watchman_expected !== undefined)
      .map((o) => `${o.query.watchman_expected!.toFixed(2)}→${o.query.expect_hit ? o.expectedScore : (o.top?.score ?? 0)}`)
      .join(' ');
    const was = (n: number | undefined) => (n === undefined ? '  -' : String(n).padStart(3));
    console.log(
      `${row.group.padEnd(32)} ${String(row.items).padStart(5)} ${String(row.correct).padStart(8)} ${pct(row.correct, row.items)} ${before === undefined ? '    -  ' : pct(before, row.items)} ${start === undefined ? '    -  ' : pct(start.correct, row.items)} | ${String(row.falseDeclines).padStart(10)} ${was(start?.falseDeclines).padStart(9)} ${was(BASELINE_7CF3EA3_FALSE_DECLINES[row.group]).padStart(9)} ${String(row.falseReviews).padStart(6)} ${was(start?.falseReviews).padStart(9)} | ${row.msPerItem.toFixed(1).padStart(8)}  ${watchman}`,
    );
  }
  const listed = outcomes.filter((o) => o.query.expect_hit === true);
  const ordinary = outcomes.filter((o) => o.query.expect_hit === false && o.query.group.startsWith('ordinary'));
  const listedCorrect = listed.filter((o) => o.correct).length;
  const ordinaryDeclined = ordinary.filter((o) => !o.correct).length;
  console.log(
    "\nwrong decl: queries with a hit at or above 80 on another entity of the expected entity's list (of any list for unlisted names); review: unlisted names with a hit below 80.",
  );
  console.log(
    `\nrecall (listed, expected outcome):   ${listedCorrect}/${listed.length} = ${pct(listedCorrect, listed.length)}   7f1dcb4: ${pct(BASELINE_7F1DCB4_TOTALS.listedCorrect, listed.length)}   b37f4c6: ${pct(BASELINE_B37F4C6_TOTALS.listedCorrect, listed.length)}   7cf3ea3: ${pct(BASELINE_7CF3EA3_TOTALS.listedCorrect, listed.length)}`,
  );
  console.log(
    `ordinary names declined:             ${ordinaryDeclined}/${ordinary.length} = ${pct(ordinaryDeclined, ordinary.length)}   7f1dcb4: ${pct(BASELINE_7F1DCB4_TOTALS.ordinaryDeclined, ordinary.length)}   b37f4c6: ${pct(BASELINE_B37F4C6_TOTALS.ordinaryDeclined, ordinary.length)}   7cf3ea3: ${pct(BASELINE_7CF3EA3_TOTALS.ordinaryDeclined, ordinary.length)}`,
  );
  const reviewed = ordinary.filter((o) => o.correct && o.top !== undefined).length;
  console.log(
    `ordinary names sent to review:       ${reviewed}/${ordinary.length} = ${pct(reviewed, ordinary.length)}   7f1dcb4: ${pct(BASELINE_7F1DCB4_TOTALS.ordinaryReviewed, ordinary.length)}   b37f4c6: ${pct(BASELINE_B37F4C6_TOTALS.ordinaryReviewed, ordinary.length)}   7cf3ea3: ${pct(BASELINE_7CF3EA3_TOTALS.ordinaryReviewed, ordinary.length)}`,
  );
  for (const o of outcomes.filter((x) => x.query.expect_hit === null)) {
    console.log(`not scored (${o.query.group}): ${o.query.full_name} → ${o.top ? `${o.top.name} ${o.top.score}` : 'no hit'}`);
  }
  if (!verbose) return;
  console.log('\nordinary names sent to review:');
  for (const o of ordinary.filter((x) => x.correct && x.top !== undefined)) {
    console.log(`  ${JSON.stringify(o.query.full_name)} → ${o.top!.entityId} ${JSON.stringify(o.top!.matchedName)} ${o.top!.score}`);
  }
  console.log('\ndeclined on another entity (wrong decl):');
  for (const o of outcomes.filter((x) => x.falseDecline && x.query.expect_hit !== null)) {
    const hit = o.falseDecline!;
    console.log(
      `  [${o.query.group}] ${JSON.stringify(o.query.full_name)} (expected ${o.query.expected_entity ?? 'none'}) → ${hit.entityId} ${JSON.stringify(hit.matchedName)} ${hit.score}`,
    );
  }
  console.log('\nwrong answers:');
  for (const o of outcomes.filter((x) => !x.correct && x.query.expect_hit !== null)) {
    console.log(
      `  [${o.query.group}] ${JSON.stringify(o.query.full_name)} expected ${o.query.expected_entity ?? 'none'} (score ${o.expectedScore}); top ${o.top ? `${o.top.entityId} ${JSON.stringify(o.top.matchedName)} ${o.top.score}` : 'none'}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { data: { type: 'string' }, verbose: { type: 'boolean', default: false } } });
  run(values.data ?? process.env.AML_REALDATA_DIR ?? DEFAULT_DATA_DIR).then(
    ({ rows, outcomes, probes }) => {
      report(rows, outcomes, values.verbose);
      reportProbes(probes, values.verbose);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
