import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { judge, type AccuracyQuery } from '../../../bench/accuracy/aml.js';
import type { SanctionedEntity } from '../../../src/engines/aml/entity.js';
import { importFile, toArray } from '../../../src/engines/aml/importers/index.js';
import { screen, type AmlQuery } from '../../../src/engines/aml/score.js';

// The real lists and queries of the development set (../shared/realdata/aml, QUERIES.md there),
// screened with the scorer over every listed entity: a pinned sample of bench:accuracy:aml, so a
// change that loses a listed person, declines an ordinary name or stops explaining a hit fails
// here. Only present on machines that have the shared data set; elsewhere the file is skipped.

const DATA_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../../../shared/realdata/aml');
const present = existsSync(path.join(DATA_DIR, 'queries.json'));
if (!present) console.warn(`test/engines/aml/realdata.test.ts skipped: ${DATA_DIR} is absent (the shared real-data set).`);

/**
 * The sample's queries the engine is known to answer wrongly (docs/aml.md "Known misses"), left
 * out so that any other wrong answer fails; one that starts passing is fine.
 */
const KNOWN_MISSES: Record<string, string> = {
  'famous-partial(first+last)-420': 'Delcy Gomez: given name and second surname, 2 of the 4 listed words (67, review)',
  'watchman-500': 'nick maduro: a nickname, no spelling of Nicolas',
};

/** Every fifth query of queries.json (ids end in a number), across every group: 60-odd real queries. */
function sample(): AccuracyQuery[] {
  const queries = JSON.parse(readFileSync(path.join(DATA_DIR, 'queries.json'), 'utf8')) as AccuracyQuery[];
  return queries.filter((q) => q.expect_hit !== null && Number(/(\d+)$/.exec(q.id)?.[1]) % 5 === 0 && !(q.id in KNOWN_MISSES));
}

describe.runIf(present)('AML on the real lists (OFAC SDN + alt.csv + UN)', () => {
  let entities: SanctionedEntity[] = [];

  beforeAll(async () => {
    entities = [
      ...(await toArray(
        importFile(path.join(DATA_DIR, 'sdn_bench2021_plus_ofactest.csv'), undefined, {
          ofacAltCsvPath: path.join(DATA_DIR, 'alt_bench2021_plus_ofactest.csv'),
        }),
      )),
      ...(await toArray(importFile(path.join(DATA_DIR, 'UN_consolidated.xml')))),
    ];
  }, 120_000);

  const screenOne = (query: AmlQuery) => screen(query, entities);

  it.each(present ? sample().map((q) => [q.id, q] as const) : [])(
    'given the real query %s, when screened, then it is answered as expected',
    (_id, query) => {
      const result = screenOne({
        fullName: query.full_name,
        ...(query.date_of_birth ? { dateOfBirth: query.date_of_birth } : {}),
        ...(query.country ? { country: query.country } : {}),
      });
      const top = result.hits[0];
      expect(judge(query, result.hits).correct, `${query.full_name} → ${top ? `${top.entityId} ${top.score}` : 'no hit'}`).toBe(true);
      // Every hit explains its score: name points, then the date of birth and country points.
      for (const hit of result.hits) {
        const e = hit.explanation!;
        expect(Math.max(0, Math.min(100, e.namePoints + e.dateOfBirth.points + e.country.points))).toBe(hit.score);
      }
    },
  );

  it('given Maduro with the listed date of birth and country, when screened, then the hit says which form and tokens matched and what the date and country added', () => {
    const hit = screenOne({ fullName: 'Nicolas Maduro', dateOfBirth: '1962-11-23', country: 'VE' }).hits.find(
      (h) => h.entityId === 'OFAC_SDN:22790',
    )!;
    expect(hit.score).toBe(95);
    expect(hit.explanation).toMatchObject({
      matchedNameKind: 'primary_name',
      method: 'tokens',
      tokenMatches: [
        { queryToken: 'nicolas', listedToken: 'nicolas', kind: 'exact', credit: 1 },
        { queryToken: 'maduro', listedToken: 'maduro', kind: 'exact', credit: 1 },
      ],
      unmatchedListedTokens: ['moros'],
      namePoints: 80,
      dateOfBirth: { outcome: 'exact', points: 10 },
      country: { outcome: 'match', points: 5 },
    });
    expect(hit.explanation!.summary).toContain('listed moros not in the query');
  });

  it('given a namesake with another date of birth, when screened, then the hit is kept for review below the decline threshold', () => {
    const hit = screenOne({ fullName: 'Nicolas Maduro Moros', dateOfBirth: '1990-05-05' }).hits[0]!;
    expect(hit.entityId).toBe('OFAC_SDN:22790');
    expect(hit.score).toBe(70);
    expect(hit.explanation).toMatchObject({ namePoints: 100, dateOfBirth: { outcome: 'conflict', points: -30 } });
  });

  it.each([
    // Watchman's known false positives (moov-io/watchman#115, #338, #483).
    ['George Bush'],
    ['emma daniels'],
    ['BELLETECH CORP'],
    // Common names that shared a syllable or a prefix with a listed name (jing/jian, fang/fangwei, min/mingfu).
    ['Jing Zhang'],
    ['Fang Li'],
    ['Min Chen'],
    ['Jun Wang'],
    // Latin names whose consonants equal an entity's Arabic-script alias (امیر عبد الله, ولی جان).
    ['Omar Abdullah'],
    ['Jun Li'],
    // A long name whose consonants are one letter (aisha/ayash).
    ['Aisha Hassan'],
  ])('given the unlisted name %s, when screened, then it is not declined', (fullName) => {
    const top = screenOne({ fullName }).hits[0];
    expect(top?.score ?? 0, `${fullName} → ${top?.entityId} ${top?.matchedName}`).toBeLessThan(80);
  });

  it.each([
    // Rule-built variants of listed names (bench/accuracy/aml-probes.ts): the article written onto the name.
    ['Amru ALABSI', 'OFAC_SDN:17282'],
    ['Ahmad ALHAMIDAWI', 'OFAC_SDN:28571'],
  ])('given the listed name variant %s, when screened, then its entity declines', (fullName, entityId) => {
    const hit = screenOne({ fullName }).hits.find((h) => h.entityId === entityId);
    expect(hit?.score ?? 0).toBeGreaterThanOrEqual(80);
    expect(hit!.explanation!.tokenMatches.some((m) => m.kind === 'fused_article')).toBe(true);
  });
});
