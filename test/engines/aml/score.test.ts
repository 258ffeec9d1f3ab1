import { beforeAll, describe, expect, it } from 'vitest';
import { AML_LISTS, type SanctionedEntity } from '../../../src/engines/aml/entity.js';
import { importFile, toArray } from '../../../src/engines/aml/importers/index.js';
import {
  DOB_CONFLICT_PENALTY,
  MIN_HIT_SCORE,
  ONE_WORD_NAME_FACTOR,
  PERSON_QUERY_ORGANIZATION_FACTOR,
  nameSimilarity,
  riskBand,
  scoreEntity,
  screen,
} from '../../../src/engines/aml/score.js';

const DECLINE = 80;

function entity(overrides: Partial<SanctionedEntity>): SanctionedEntity {
  return {
    source_list: 'OFAC_SDN',
    source_id: '1',
    kind: 'person',
    primary_name: 'Borislav KRAVETSKY',
    aliases: ['Boris KRAVETSKI', 'Борислав Кравецкий'],
    dates_of_birth: ['1968-03-12'],
    countries: ['RU'],
    programs: ['SDGT'],
    topics: ['sanction'],
    ...overrides,
  };
}

describe('scoreEntity', () => {
  const kravetsky = entity({});

  it.each([
    // [query, expected score range, matched name]
    [{ fullName: 'Borislav Kravetsky' }, [100, 100], 'Borislav KRAVETSKY'],
    [{ fullName: 'KRAVETSKY Borislav' }, [100, 100], 'Borislav KRAVETSKY'],
    [{ fullName: 'Mr. Borislav Kravetsky' }, [100, 100], 'Borislav KRAVETSKY'],
    [{ fullName: 'Борислав Кравецкий' }, [100, 100], 'Борислав Кравецкий'],
    [{ fullName: 'Boris Kravetski' }, [100, 100], 'Boris KRAVETSKI'],
    [{ fullName: 'Borislav Kravetzky' }, [85, 99], 'Borislav KRAVETSKY'],
    [{ fullName: 'Borislav Kravetskiy' }, [100, 100], 'Борислав Кравецкий'],
    [{ fullName: 'Kravetsky' }, [60, 70], 'Borislav KRAVETSKY'],
    [{ fullName: 'Emma Thompson' }, [0, 10], 'Borislav KRAVETSKY'],
  ] as const)('%o scores in %o', (query, [lo, hi], matched) => {
    const s = scoreEntity(query, kravetsky);
    expect(s.score).toBeGreaterThanOrEqual(lo);
    expect(s.score).toBeLessThanOrEqual(hi);
    expect(Number.isInteger(s.score)).toBe(true);
    expect(s.matchedName).toBe(matched);
  });

  it('boosts a matching DOB and country, and lists them as matched fields', () => {
    const s = scoreEntity({ fullName: 'Boris Kravetsky', dateOfBirth: '1968-03-12', country: 'ru' }, kravetsky);
    const plain = scoreEntity({ fullName: 'Boris Kravetsky' }, kravetsky);
    expect(s.score).toBe(Math.min(100, plain.score + 15));
    expect(s.matchedFields).toEqual(['name', 'date_of_birth', 'country']);
  });

  it('gives the same-year boost when only the year matches', () => {
    const exact = scoreEntity(
      { fullName: 'Borislav Kravetsky', dateOfBirth: '1968-03-12' },
      entity({ aliases: [], primary_name: 'Borislav Kravetsky Ivanovich' }),
    );
    const year = scoreEntity(
      { fullName: 'Borislav Kravetsky', dateOfBirth: '1968-11-01' },
      entity({ aliases: [], primary_name: 'Borislav Kravetsky Ivanovich' }),
    );
    expect(exact.score - year.score).toBe(5);
    expect(year.matchedFields).toContain('date_of_birth');
  });

  it('a conflicting DOB takes an exact name match below the decline threshold', () => {
    const s = scoreEntity({ fullName: 'Borislav Kravetsky', dateOfBirth: '1990-01-01' }, kravetsky);
    expect(s.score).toBe(100 - DOB_CONFLICT_PENALTY);
    expect(s.score).toBeLessThan(DECLINE);
    expect(s.score).toBeGreaterThanOrEqual(MIN_HIT_SCORE);
    expect(s.matchedFields).toEqual(['name']);
  });

  it('an off-by-one year costs less than a real conflict', () => {
    const near = scoreEntity({ fullName: 'Borislav Kravetsky', dateOfBirth: '1969-03-12' }, kravetsky);
    expect(near.score).toBe(90);
  });

  it('a conflicting country costs a little', () => {
    expect(scoreEntity({ fullName: 'Borislav Kravetsky', country: 'FR' }, kravetsky).score).toBe(95);
  });

  it('ignores DOB and country when the entity has none', () => {
    const bare = entity({ dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Borislav Kravetsky', dateOfBirth: '1990-01-01', country: 'FR' }, bare).score).toBe(100);
  });
});

describe('scoreEntity explanation', () => {
  const kravetsky = entity({});

  it('given an alias with a typo, when scored, then the explanation names the alias, each token pair and its credit, and the points', () => {
    const s = scoreEntity({ fullName: 'Boris Kravetzki', dateOfBirth: '1969-05-01', country: 'FR' }, kravetsky);
    expect(s.explanation).toMatchObject({
      matchedNameKind: 'alias',
      queryForm: 'boris kravetzki',
      listedForm: 'boris kravetski',
      method: 'tokens',
      tokenMatches: [
        { queryToken: 'boris', listedToken: 'boris', credit: 1, weight: 1, kind: 'exact' },
        { queryToken: 'kravetzki', listedToken: 'kravetski', kind: 'spelling' },
      ],
      unmatchedQueryTokens: [],
      unmatchedListedTokens: [],
      dateOfBirth: { outcome: 'one_year_off', points: -10, listed: ['1968-03-12'] },
      country: { outcome: 'conflict', points: -5, listed: ['RU'] },
    });
    const e = s.explanation;
    expect(e.namePoints + e.dateOfBirth.points + e.country.points).toBe(s.score);
    expect(e.summary).toMatch(
      /^alias "Boris KRAVETSKI": matched boris, kravetzki~kravetski \(spelling 0\.\d+\) → name \d+; date of birth one year off −10; country conflict −5 = \d+$/,
    );
  });

  it('given a middle name left out and an initial, when scored, then the listed tokens not in the query and the initial are named', () => {
    const s = scoreEntity({ fullName: 'B. Kravetsky' }, entity({ primary_name: 'Borislav Petrovich KRAVETSKY', aliases: [] }));
    expect(s.explanation.tokenMatches.map((m) => m.kind)).toEqual(['initial', 'exact']);
    expect(s.explanation.unmatchedListedTokens).toEqual(['petrovich']);
  });

  it('given the name written as one word, when scored, then the method is the compact comparison', () => {
    const s = scoreEntity({ fullName: 'Abdulrahman Yusuf' }, entity({ primary_name: 'Abdul Rahman Yusuf', aliases: [] }));
    expect(s.score).toBe(100);
    expect(s.explanation.method).toBe('compact');
  });

  it('given the name in Arabic script, when scored, then the consonant skeletons matched are named', () => {
    const s = scoreEntity({ fullName: 'قاسم سليماني' }, entity({ primary_name: 'Qasem SOLEIMANI', aliases: [] }));
    expect(s.explanation).toMatchObject({
      method: 'consonant_skeleton',
      tokenMatches: [
        { queryToken: 'ksm', listedToken: 'ksm', kind: 'consonant_skeleton' },
        { queryToken: 'slmn', listedToken: 'slmn', kind: 'consonant_skeleton' },
      ],
    });
  });

  it('given a person screened against an organisation named after them, when scored, then the factor is explained', () => {
    const org = entity({
      kind: 'organization',
      primary_name: 'DAWOOD IBRAHIM ORGANIZATION',
      aliases: [],
      dates_of_birth: [],
      countries: [],
    });
    const s = scoreEntity({ fullName: 'Dawood Ibrahim' }, org);
    expect(s.explanation.nameFactors).toEqual([{ reason: 'person_query_vs_organization', factor: PERSON_QUERY_ORGANIZATION_FACTOR }]);
    expect(s.explanation.unmatchedListedTokens).toEqual(['organization']);
  });

  it('given a Latin name and an entity with Latin names and an Arabic-script alias, when scored, then the alias is not compared by consonants alone', () => {
    // "Ahmed Mahmoud" and "محمد احمدی" (Mohammad Ahmadi) share their consonants, hmd mhmd.
    const ahmadi = entity({ primary_name: 'Mohammad AHMADI', aliases: ['محمد احمدی'], dates_of_birth: [], countries: [] });
    const latin = scoreEntity({ fullName: 'Ahmed Mahmoud' }, ahmadi);
    expect(latin.score).toBeLessThan(DECLINE);
    expect(latin.matchedName).toBe('Mohammad AHMADI');
    expect(latin.explanation.method).toBe('tokens');
    // Written in Arabic script, the query still finds the listed spelling.
    expect(scoreEntity({ fullName: 'محمد احمدی' }, ahmadi).score).toBe(100);
  });
});

describe('nameSimilarity', () => {
  it.each([
    ['José Müller', 'Jose Mueller', 1],
    ['Jose Mueller', 'José Müller', 1],
    ['Jose Muller', 'José Müller', 1],
    ['Abdulrahman Yusuf', 'Abdul Rahman Yusuf', 1],
    ['Wang Xiaoming', '王小明', 1],
    ['Ioannis Karamolegkos', 'Ιωάννης Καραμολέγκος', 1],
  ])('%s ≈ %s', (a, b, expected) => {
    expect(nameSimilarity(a, b)).toBeCloseTo(expected, 5);
  });

  it.each([
    ['משה כהן', 'Moshe Cohen'],
    ['יוסף מזרחי', 'Yosef Mizrahi'],
    ['Алексей Навальный', 'Aleksei Navalny'],
    ['Евгений Пригожин', 'Yevgeniy Prigozhin'],
    ['Γεώργιος Παπαδόπουλος', 'Georgios Papadopoulos'],
  ])('given %s (Hebrew, Cyrillic, Greek) and the Latin spelling %s, then they are one name at the decline level', (native, latin) => {
    expect(nameSimilarity(native, latin)).toBeGreaterThanOrEqual(0.8);
  });

  it('keeps lone shared first names or surnames below the decline threshold', () => {
    expect(nameSimilarity('John', 'John Smith')).toBeLessThan(0.8);
    expect(nameSimilarity('Smith', 'John Smith')).toBeLessThan(0.8);
    expect(nameSimilarity('Maria Garcia', 'Mario Garza')).toBeLessThan(0.8);
  });

  it('a missing middle name costs partial credit', () => {
    expect(nameSimilarity('John Smith', 'John Paul Smith')).toBeCloseTo(0.8, 5);
  });
});

describe('names as people read them', () => {
  const zarembin = entity({ primary_name: 'Anatoliy ZAREMBIN', aliases: [], dates_of_birth: [], countries: [] });

  it.each([
    ['U+3164 inside a word', 'Anatoliy Zare\u3164mbin'],
    ['U+2800 inside a word', 'Ana\u2800toliy Zarembin'],
    ['NUL inside a word', 'Anatoliy Zar\u0000embin'],
    ['U+3164 between every letter', [...'Anatoliy Zarembin'].join('\u3164')],
    ['tag characters', 'Anatoliy\u{E0020} Zarembin\u{E0041}'],
    ['U+FFF9 and U+115F', 'Anat\uFFF9oliy Zare\u115Fmbin'],
  ])('given %s, when scored, then the score is that of the plain name (audit M2)', (_, name) => {
    expect(scoreEntity({ fullName: name }, zarembin).score).toBe(scoreEntity({ fullName: 'Anatoliy Zarembin' }, zarembin).score);
  });

  it('given a name in Arabic or Persian script, when scored against its listed Latin spelling, then it declines', () => {
    const soleimani = entity({ primary_name: 'Qasem SOLEIMANI', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'قاسم سليماني' }, soleimani).score).toBeGreaterThanOrEqual(DECLINE);
    expect(scoreEntity({ fullName: 'محمد علي' }, soleimani).score).toBeLessThan(MIN_HIT_SCORE);
  });

  it('given an Arabic-script name and the Latin spelling a list holds, when scored, then the usual spelling differences do not keep it from declining', () => {
    const cases: [string, string][] = [
      ['محمد حمزة زبيدي', 'Muhammad Hamza ZUBAIDI'], // ة after z
      ['طه ياسين رمضان الجزراوي', 'Taha Yassin Ramadan AL-JIZRAWI'], // Taha is "th"
      ['عمر محمود عثمان', 'Omar Mahmoud UTHMAN'], // Omar is "mr", not a title
      ['عبد الرحمن ياسين', 'Abdul Rahman YASIN'], // Abdul is Abd al-
      ['عادل عبد الله مهدي', 'Adil Abdallah MAHDI'], // one word on one side, two on the other
      ['المهدي بن محمد بن محمد كمون', 'Mehdi Ben Mohamed Ben Mohamed KAMMOUN'], // Maghreb "ben"
      ['جمال لونيسي', 'Djamel LOUNICI'], // French dj and soft c
      ['جمال عكاشة', 'Djamel AKKACHA'], // French ch
    ];
    for (const [query, listed] of cases) {
      expect(
        scoreEntity({ fullName: query }, entity({ primary_name: listed, aliases: [], dates_of_birth: [], countries: [] })).score,
        query,
      ).toBeGreaterThanOrEqual(DECLINE);
    }
    // One-letter skeletons ("b", "d") say little: Abu Du'a is not D-Boy.
    expect(
      scoreEntity({ fullName: 'أبو دعاء' }, entity({ primary_name: 'D-BOY', aliases: [], dates_of_birth: [], countries: [] })).score,
    ).toBeLessThan(DECLINE);
  });

  it('given a Korean name in Revised Romanization, when the list writes it the McCune–Reischauer way, then it declines', () => {
    const kimYoJong = entity({ primary_name: 'Yo Jong KIM', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Kim Yeo-jong' }, kimYoJong).score).toBe(100);
    const kimYongChol = entity({ primary_name: 'Yong Chol KIM', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Kim Yeong-cheol' }, kimYongChol).score).toBe(100);
    expect(scoreEntity({ fullName: 'Kim Yeo-jong' }, kimYongChol).score).toBeLessThan(DECLINE);
  });

  it('given a typo in every word, when scored, then it still declines; a different name does not', () => {
    const kim = entity({ primary_name: 'Jong Un KIM', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Kym Jung Un' }, kim).score).toBeGreaterThanOrEqual(DECLINE);
    expect(scoreEntity({ fullName: 'Kim Jae Won' }, kim).score).toBeLessThan(DECLINE);
  });

  it('given a particle on one side only or elsewhere, when scored, then it does not matter', () => {
    const saddam = entity({ primary_name: 'Saddam Hussein AL-TIKRITI', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'al-Tikriti Saddam Hussein' }, saddam).score).toBe(100);
    expect(scoreEntity({ fullName: 'Saddam Hussein Tikriti' }, saddam).score).toBe(100);
    const uday = entity({ source_id: '2', primary_name: 'Uday Saddam Hussein AL-TIKRITI', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Saddam Hussein al-Tikriti' }, saddam).score).toBeGreaterThan(
      scoreEntity({ fullName: 'Saddam Hussein al-Tikriti' }, uday).score,
    );
  });

  it("given a person's one-word alias, when an ordinary longer name shares it, then it is no hit, and the word alone is review, not a decline", () => {
    const hussein = entity({ primary_name: 'Abdul Karim MAJID', aliases: ['HUSSEIN'], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Ali Hussein' }, hussein).score).toBeLessThan(MIN_HIT_SCORE);
    expect(scoreEntity({ fullName: 'Hussein' }, hussein).score).toBe(Math.round(100 * ONE_WORD_NAME_FACTOR));
  });

  it("given a vessel's or organisation's one-word name, when a longer personal name shares it, then it is no hit; the name screened alone still is", () => {
    const amina = entity({ kind: 'vessel', primary_name: 'AMINA', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Amina Yusuf' }, amina).score).toBeLessThan(MIN_HIT_SCORE);
    const hamas = entity({ kind: 'organization', primary_name: 'HAMAS', aliases: [], dates_of_birth: [], countries: [] });
    expect(scoreEntity({ fullName: 'Hamas' }, hamas).score).toBe(Math.round(100 * PERSON_QUERY_ORGANIZATION_FACTOR));
    expect(scoreEntity({ fullName: 'Saidullah Hamas' }, hamas).score).toBeLessThan(MIN_HIT_SCORE);
  });

  it('given an organisation, when a name shares only its generic words, then it does not decline; its distinctive name does', () => {
    const impire = entity({
      kind: 'organization',
      primary_name: 'IMPIRE SHIPPING LIMITED',
      aliases: [],
      dates_of_birth: [],
      countries: [],
    });
    expect(scoreEntity({ fullName: 'SHIPPING LIMITED' }, impire).score).toBeLessThan(DECLINE);
    expect(scoreEntity({ fullName: 'Impire Shipping Limited' }, impire).score).toBe(100);
    expect(scoreEntity({ fullName: 'Impire Shipping' }, impire).score).toBeGreaterThanOrEqual(MIN_HIT_SCORE);
    expect(nameSimilarity('Impire Shipping Limited', 'IMPIRE SHIPPING LIMITED', 'organization')).toBe(1);
  });

  it("given a person's name, when an organisation is named after them, then it is a hit for review, not a decline; its own name still declines", () => {
    const organization = entity({
      kind: 'organization',
      primary_name: 'DAWOOD IBRAHIM ORGANIZATION',
      aliases: [],
      dates_of_birth: [],
      countries: [],
    });
    expect(scoreEntity({ fullName: 'Dawood Ibrahim' }, organization).score).toBeGreaterThanOrEqual(MIN_HIT_SCORE);
    expect(scoreEntity({ fullName: 'Dawood Ibrahim' }, organization).score).toBeLessThan(DECLINE);
    expect(scoreEntity({ fullName: 'Dawood Ibrahim Organization' }, organization).score).toBe(100);
  });

  it('given a person and an organisation scoring the same, when screened, then the person comes first', () => {
    const company = entity({ source_id: '1', kind: 'organization', primary_name: 'John SMITH', aliases: [] });
    const person = entity({ source_id: '2', kind: 'person', primary_name: 'John SMITH', aliases: [] });
    expect(screen({ fullName: 'John Smith' }, [company, person]).hits.map((hit) => hit.sourceId)).toEqual(['2', '1']);
  });
});

describe('riskBand', () => {
  it.each([
    [0, 1],
    [49, 1],
    [50, 2],
    [64, 2],
    [65, 3],
    [79, 3],
    [80, 4],
    [89, 4],
    [90, 5],
    [100, 5],
  ])('score %i → band %i', (score, band) => {
    expect(riskBand(score)).toBe(band);
  });
});

describe('screen over the fixtures', () => {
  const all: SanctionedEntity[] = [];
  beforeAll(async () => {
    const files = ['ofac-sdn.xml', 'eu-consolidated.xml', 'un-consolidated.xml', 'opensanctions.jsonl'];
    for (const f of files) all.push(...(await toArray(importFile(new URL(`../../fixtures/aml/${f}`, import.meta.url).pathname))));
  });

  it('finds a person on several lists, best first, with hit details', () => {
    const r = screen({ fullName: 'Anatoliy Zarembin', dateOfBirth: '1961-07-04', country: 'RU' }, all);
    expect(r.checkedLists).toEqual([...AML_LISTS]);
    expect(r.hits.map((h) => h.entityId)).toEqual([
      'EU_CONSOLIDATED:700001',
      'EU_CONSOLIDATED:os-fict-003',
      'PEP:os-fict-003',
      'UN_SC:os-fict-003',
    ]);
    expect(r.score).toBe(r.hits[0].score);
    expect(r.score).toBeGreaterThanOrEqual(DECLINE);
    expect(r.riskBand).toBe(riskBand(r.score));
    expect(r.hits[0]).toMatchObject({
      sourceList: 'EU_CONSOLIDATED',
      sourceId: '700001',
      name: 'Anatoliy Petrovich Zarembin',
      matchedFields: ['name', 'date_of_birth', 'country'],
      programs: ['RUS'],
      topics: ['sanction'],
    });
    for (let i = 1; i < r.hits.length; i++) expect(r.hits[i - 1].score).toBeGreaterThanOrEqual(r.hits[i].score);
  });

  it('screens only the requested lists and reports exactly those', () => {
    const r = screen({ fullName: 'Anatoliy Zarembin' }, all, ['PEP', 'PEP']);
    expect(r.checkedLists).toEqual(['PEP']);
    expect(r.hits.map((h) => h.sourceList)).toEqual(['PEP']);
  });

  it('matches a transliterated query against an original-script alias', () => {
    const r = screen({ fullName: 'Dmitriy Sablin' }, all, ['ADVERSE_MEDIA']);
    expect(r.hits[0]?.sourceId).toBe('os-fict-005');
  });

  it('an unrelated name yields score 0, band 1 and no hits', () => {
    const r = screen({ fullName: 'Penelope Featherstonehaugh', dateOfBirth: '1990-01-01' }, all);
    expect(r).toEqual({ score: 0, riskBand: 1, hits: [], checkedLists: [...AML_LISTS] });
  });

  it('a DOB conflict keeps the hit but below the decline threshold', () => {
    const r = screen({ fullName: 'Pak Chol Min', dateOfBirth: '1990-05-05' }, all, ['UN_SC']);
    expect(r.hits[0]?.sourceId).toBe('6900001');
    expect(r.score).toBeLessThan(DECLINE);
    expect(r.score).toBeGreaterThanOrEqual(MIN_HIT_SCORE);
  });

  it('drops hits below the minimum score', () => {
    const r = screen({ fullName: 'Kravetsky' }, all, ['OFAC_SDN'], { minScore: 90 });
    expect(r.hits).toEqual([]);
    expect(r.score).toBe(0);
  });
});
