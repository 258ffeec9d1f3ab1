/**
 * Probes for `bench:accuracy:aml` that are not in queries.json, so the engine is measured on
 * more than the development queries it was tuned on:
 *
 * - Rule-built variants of listed names, per cause of a miss (name order, initials, a dropped
 *   middle name or second surname, hyphenation, compound given names, particles, diacritics,
 *   romanisation, typos): every listed OFAC person of a seeded sample is screened under each rule
 *   that applies to its name. The rules only use what the list itself says (OFAC writes surnames
 *   in capitals, so "Delcy Eloina RODRIGUEZ GOMEZ" has two given names and two surnames); none
 *   looks at queries.json.
 * - Common names that are nobody in particular: the commonest given names and surnames of ten
 *   naming traditions, crossed within each tradition, screened without and with a date of birth
 *   (a made-up one, so any listed namesake's dates disagree).
 * - Watchman's known false positives, from its issue tracker: "George Bush" (moov-io/watchman#115:
 *   89 % on George HABBASH), "emma daniels" (#338: EMMA LLC at 100 %), "BELLETECH CORP" (#483:
 *   "11420 CORP." at 100 %).
 */
import type { SanctionedEntity } from '../../src/engines/aml/entity.js';
import { prng } from '../../test/support/prng.js';

/** One probe query and what it should find. */
export interface Probe {
  group: string;
  full_name: string;
  date_of_birth?: string;
  /** `OFAC_SDN:<id>` that must be a hit at or above the threshold, or null when nothing should be declined. */
  expected_entity: string | null;
}

/** Words OFAC writes in capitals that are particles, not surnames of their own (kept with the surname). */
const PARTICLE_WORDS = new Set(['al', 'el', 'bin', 'ben', 'ibn', 'bint', 'abu', 'de', 'da', 'del', 'van', 'von', 'la', 'le', 'du']);

/** A listed person's primary name split as OFAC writes it: mixed-case given names, upper-case surnames. */
function parts(name: string): { given: string[]; surnames: string[] } | undefined {
  const words = name.split(/\s+/).filter((w) => w.length > 0);
  const isUpper = (w: string) => w === w.toUpperCase() && /\p{Lu}/u.test(w);
  const given = words.filter((w) => !isUpper(w));
  const surnames = words.filter(isUpper);
  // Only names in the "Given SURNAME" shape, with plain Latin words (one-letter words are already initials).
  if (given.length === 0 || surnames.length === 0 || words.some((w) => !/^[A-Za-z][A-Za-z'-]+$/.test(w))) return undefined;
  if (words.findIndex(isUpper) !== given.length) return undefined;
  return { given, surnames };
}

/** Accents a Latin word the way diacritics are typed in (first vowel acute). */
function accent(word: string): string {
  const marks: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú' };
  return word.replace(/[aeiou]/, (v) => marks[v] ?? v);
}

/** Romanisation alternations seen between list spellings and passports (one applied per probe). */
const ROMANISATIONS: Array<[RegExp, string]> = [
  [/ou/, 'u'],
  [/(?<!o)u/, 'ou'],
  [/ee/, 'i'],
  [/y/, 'i'],
  [/(?<=[^aeiou])i(?=[aeiou])/, 'y'],
  [/kh/, 'h'],
  [/sh/, 'ch'],
  [/q/, 'k'],
  [/ph/, 'f'],
  [/w/, 'v'],
  [/([bcdfgklmnprstz])\1/, '$1'],
  [/(?<=[aeiou])([lmnrst])(?=[aeiou])/, '$1$1'],
  [/j/, 'dj'],
  [/(?<=[^aeiou])e(?=[^aeiou]|$)/, 'a'],
  [/ev$/, 'yev'],
  [/ov$/, 'off'],
];

/** One typing slip at a seeded place of a word: a letter replaced, dropped, doubled or two swapped. */
function typo(word: string, random: () => number): string {
  const at = 1 + Math.floor(random() * (word.length - 2));
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, at) + (word[at] === 'e' ? 'a' : 'e') + word.slice(at + 1);
    case 1:
      return word.slice(0, at) + word.slice(at + 1);
    case 2:
      return word.slice(0, at) + word[at] + word.slice(at);
    default:
      return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  }
}

/** The rules: each turns a split listed name into a query, or undefined when it does not apply. */
const RULES: Record<string, (p: { given: string[]; surnames: string[] }, random: () => number) => string | undefined> = {
  'surname-first': ({ given, surnames }) => [...surnames, ...given].join(' '),
  'lower-case+diacritics': ({ given, surnames }) => [...given, ...surnames].map((w) => accent(w.toLowerCase())).join(' '),
  'middle-initial': ({ given, surnames }) =>
    given.length >= 2 ? [given[0], ...given.slice(1).map((g) => `${g[0]}.`), ...surnames].join(' ') : undefined,
  'middle-dropped': ({ given, surnames }) => (given.length >= 2 ? [given[0], ...surnames].join(' ') : undefined),
  'second-surname-dropped': ({ given, surnames }) => {
    const real = surnames.filter((s) => !PARTICLE_WORDS.has(s.toLowerCase()));
    return real.length >= 2 && surnames.length === real.length ? [...given, surnames[0]].join(' ') : undefined;
  },
  hyphenated: ({ given, surnames }) =>
    surnames.length >= 2
      ? [...given, surnames.join('-')].join(' ')
      : given.length >= 2
        ? [given.join('-'), ...surnames].join(' ')
        : undefined,
  'given-joined': ({ given, surnames }) =>
    given.length >= 2 && !given.slice(0, 2).some((g) => PARTICLE_WORDS.has(g.toLowerCase()))
      ? [given.slice(0, 2).join(''), ...given.slice(2), ...surnames].join(' ')
      : undefined,
  'particle-dropped-or-joined': ({ given, surnames }, random) => {
    const words = [...given, ...surnames];
    const joinedParticle = words.findIndex((w) => /^(AL|EL)-./i.test(w));
    if (joinedParticle >= 0) {
      const w = words[joinedParticle]!;
      words[joinedParticle] = random() < 0.5 ? w.slice(3) : w.replace('-', '');
      return words.join(' ');
    }
    const particle = words.findIndex((w) => PARTICLE_WORDS.has(w.toLowerCase()));
    if (particle < 0 || words.length < 3) return undefined;
    return words.filter((_, i) => i !== particle).join(' ');
  },
  romanisation: ({ given, surnames }, random) => {
    const words = [...given, ...surnames].map((w) => w.toLowerCase());
    const start = Math.floor(random() * ROMANISATIONS.length);
    for (let k = 0; k < ROMANISATIONS.length; k += 1) {
      const [pattern, replacement] = ROMANISATIONS[(start + k) % ROMANISATIONS.length]!;
      const at = words.findIndex((w) => w.length >= 4 && pattern.test(w));
      if (at >= 0) {
        words[at] = words[at]!.replace(pattern, replacement);
        return words.join(' ');
      }
    }
    return undefined;
  },
  'typo-one-word': ({ given, surnames }, random) => {
    const words = [...given, ...surnames];
    const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5);
    if (long.length === 0) return undefined;
    const [word, at] = long[Math.floor(random() * long.length)]!;
    words[at] = typo(word.toLowerCase(), random);
    return words.join(' ');
  },
};

/** Listed persons sampled per run: enough for ±3 % per rule, few enough for a shared machine. */
export const LISTED_SAMPLE = 150;

/** Rule-built variants of a seeded sample of listed persons' primary names (module comment). */
export function listedProbes(persons: readonly SanctionedEntity[], seed = 23): Probe[] {
  const random = prng(seed);
  const usable = persons.filter((p) => p.kind === 'person' && p.source_list === 'OFAC_SDN' && parts(p.primary_name));
  const sample: SanctionedEntity[] = [];
  const taken = new Set<number>();
  while (sample.length < Math.min(LISTED_SAMPLE, usable.length)) {
    const i = Math.floor(random() * usable.length);
    if (taken.has(i)) continue;
    taken.add(i);
    sample.push(usable[i]!);
  }
  const probes: Probe[] = [];
  for (const person of sample) {
    const split = parts(person.primary_name)!;
    for (const [rule, make] of Object.entries(RULES)) {
      const full_name = make(split, random);
      if (full_name) probes.push({ group: `variant: ${rule}`, full_name, expected_entity: `OFAC_SDN:${person.source_id}` });
    }
  }
  return probes;
}

/** The commonest given names and surnames of ten naming traditions (national statistics' top lists). */
const COMMON_NAMES: Array<[string[], string[]]> = [
  [
    ['James', 'Mary', 'John', 'Patricia', 'Robert'],
    ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones'],
  ],
  [
    ['José', 'María', 'Juan', 'Carmen', 'Luis'],
    ['García', 'Rodríguez', 'Martínez', 'López', 'González'],
  ],
  [
    ['Mohammed', 'Ahmed', 'Fatima', 'Omar', 'Aisha'],
    ['Hassan', 'Mahmoud', 'Ibrahim', 'Abdullah', 'Saleh'],
  ],
  [
    ['Wei', 'Fang', 'Jing', 'Min', 'Jun'],
    ['Wang', 'Li', 'Zhang', 'Liu', 'Chen'],
  ],
  [
    ['Alexander', 'Sergei', 'Elena', 'Olga', 'Dmitry'],
    ['Ivanov', 'Smirnov', 'Kuznetsov', 'Popov', 'Petrova'],
  ],
  [
    ['Min-jun', 'Seo-yeon', 'Ji-ho', 'Ha-eun', 'Do-yun'],
    ['Kim', 'Lee', 'Park', 'Choi', 'Jung'],
  ],
  [
    ['Reza', 'Zahra', 'Hossein', 'Maryam', 'Mehdi'],
    ['Hosseini', 'Ahmadi', 'Mohammadi', 'Rezaei', 'Moradi'],
  ],
  [
    ['Rahul', 'Priya', 'Amit', 'Sunita', 'Vijay'],
    ['Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta'],
  ],
  [
    ['Mehmet', 'Ayşe', 'Mustafa', 'Emine', 'Ahmet'],
    ['Yılmaz', 'Kaya', 'Demir', 'Şahin', 'Çelik'],
  ],
  [
    ['Nguyen Van', 'Tran Thi', 'Le Van', 'Pham Thi', 'Hoang Van'],
    ['Anh', 'Hung', 'Lan', 'Minh', 'Thu'],
  ],
];

/** A date of birth no listed namesake is likely to share: the probes only test that a disagreeing one lowers the score. */
export const PROBE_DATE_OF_BIRTH = '1993-06-17';

/** Common names crossed within each tradition, each once without and once with PROBE_DATE_OF_BIRTH. */
export function commonNameProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const [given, surnames] of COMMON_NAMES) {
    for (const g of given) {
      for (const s of surnames) {
        probes.push({ group: 'common names', full_name: `${g} ${s}`, expected_entity: null });
        probes.push({ group: 'common names+dob', full_name: `${g} ${s}`, date_of_birth: PROBE_DATE_OF_BIRTH, expected_entity: null });
      }
    }
  }
  return probes;
}

/** Watchman's known false positives (module comment): none of them is a listed subject. */
export const WATCHMAN_KNOWN_FALSE_POSITIVES: readonly Probe[] = [
  { group: 'watchman known fp', full_name: 'George Bush', expected_entity: null },
  { group: 'watchman known fp', full_name: 'emma daniels', expected_entity: null },
  { group: 'watchman known fp', full_name: 'BELLETECH CORP', expected_entity: null },
];
