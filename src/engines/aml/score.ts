/**
 * Scoring of one screened person against listed entities, and the screen over a candidate
 * set. One algorithm, kept in one file past ~400 lines on purpose: the formula below and the
 * constants it names are read together. Pure functions over plain SanctionedEntity records: candidate retrieval (pg_trgm over
 * normalised names, or a full in-memory scan) is the caller's business.
 *
 * Score formula (every constant below is in score points, 0–100 scale):
 *
 *   score = clamp(round(100 × name_similarity + dob_adjustment + country_adjustment), 0, 100)
 *
 * - name_similarity (0..1): best over every (query variant × entity name or alias variant)
 *   pair of `pairSimilarity` (see there): a soft token alignment that ignores token order,
 *   plus a compact comparison that ignores spacing ("Abdulrahman" vs "Abdul Rahman").
 *   A whole-string token-sorted Jaro-Winkler was tried and rejected: its prefix bonus scores
 *   "john" vs "john smith" at 0.88, i.e. a decline for anyone sharing a first name.
 * - dob_adjustment, only when both sides have a date of birth: +DOB_EXACT_BONUS for the same
 *   full date, +DOB_YEAR_BONUS for the same year (the only thing known when the list has a year),
 *   −DOB_NEAR_PENALTY when the closest years are one apart (lists often hold approximate
 *   years), −DOB_CONFLICT_PENALTY otherwise. The conflict penalty takes an exact name match
 *   (100) below the default decline threshold (80) but keeps it as a hit for review.
 * - country_adjustment, only when both sides have a country: +COUNTRY_MATCH_BONUS when the
 *   query country is among the entity's countries, −COUNTRY_CONFLICT_PENALTY otherwise (small,
 *   because nationality, citizenship and residence legitimately differ).
 */
import { AML_LISTS, entityId, type AmlList, type EntityKind, type SanctionedEntity } from './entity.js';
import {
  FUSED_ARTICLE_CREDIT,
  jaroWinkler,
  softTokenScore,
  spelledTokenSimilarity,
  tokenAlignment,
  tokenSimilarity,
  TOKEN_MATCH_FLOOR,
  FUZZY_TOKEN_EXPONENT,
} from './similarity.js';
import { consonantSkeleton, isAbjad, nameVariants } from './normalize.js';

/** Points added when the query date of birth equals one of the entity's full dates. */
export const DOB_EXACT_BONUS = 10;
/** Points added when only the year agrees (or the list only knows the year). */
export const DOB_YEAR_BONUS = 5;
/** Points removed when the closest listed year is one year off the query's year. */
export const DOB_NEAR_PENALTY = 10;
/** Points removed when every listed date of birth is two or more years off the query's. */
export const DOB_CONFLICT_PENALTY = 30;
/** Points added when the query country is one of the entity's countries. */
export const COUNTRY_MATCH_BONUS = 5;
/** Points removed when the entity has countries and the query's is not among them. */
export const COUNTRY_CONFLICT_PENALTY = 5;
/** Minimum score (points) for a candidate to be reported as a hit; below it the name is considered unrelated. */
export const MIN_HIT_SCORE = 50;
/** Minimum name similarity (0..1) for `name` to be listed in matched_fields. */
export const NAME_FIELD_MIN_SIMILARITY = 0.5;
/** Shorter/longer length ratio below which compact (space-free) comparison is skipped, so "john" never matches "johnsmith". */
export const COMPACT_MIN_LENGTH_RATIO = 0.85;

/** The person being screened, as in the `POST /v1/aml` body. */
export interface AmlQuery {
  /** Name to screen, any script, any token order. */
  fullName: string;
  /** `YYYY-MM-DD` (a bare `YYYY` is accepted and compared by year). */
  dateOfBirth?: string;
  /** ISO-2 country (nationality or residence), any case. */
  country?: string;
}

/** Which parts of the query agreed with the entity. */
export type MatchedField = 'name' | 'date_of_birth' | 'country';

/** Result of scoring one query against one entity. */
export interface EntityScore {
  /** 0–100 integer; see the module comment for the formula. */
  score: number;
  /** The entity's name or alias (as listed) that matched best; shown to reviewers. */
  matchedName: string;
  /** Query fields that agreed with the entity, in the order name, date_of_birth, country. */
  matchedFields: MatchedField[];
  /** Best name similarity, 0..1, before date-of-birth and country adjustments. */
  nameSimilarity: number;
  /** How the score came about, for a reviewer (HitExplanation). */
  explanation: HitExplanation;
}

/**
 * How one pair of tokens was credited: the same word, an initial, the Arabic article written
 * onto the word, another spelling, the same consonants with a vowel changed, or (a side written
 * in Arabic, Persian or Hebrew script) the same consonant skeleton.
 */
export type TokenMatchKind = 'exact' | 'initial' | 'fused_article' | 'spelling' | 'same_consonants' | 'consonant_skeleton';

/** One query token paired with one listed token. */
export interface TokenMatch {
  /** The query's token, normalised (or its consonant skeleton, for `consonant_skeleton`). */
  queryToken: string;
  /** The listed name's token, likewise. */
  listedToken: string;
  /** Credit of the pair, 0..1 (1: the same word). */
  credit: number;
  /** Weight of the pair in the name similarity (1, or GENERIC_TOKEN_WEIGHT for an organisation's generic word). */
  weight: number;
  kind: TokenMatchKind;
}

/**
 * How two name forms were compared: token by token in any order, as one string with the spaces
 * removed ("Abdulrahman" / "Abdul Rahman"), or by consonant skeletons (a side in Arabic script).
 */
export type NameMethod = 'tokens' | 'compact' | 'consonant_skeleton';

/** A factor applied to the name similarity, and why. */
export interface NameFactor {
  /** `one_word_name`: ONE_WORD_NAME_FACTOR; `person_query_vs_organization`: PERSON_QUERY_ORGANIZATION_FACTOR. */
  reason: 'one_word_name' | 'person_query_vs_organization';
  factor: number;
}

/** What the date of birth did: `exact` +10, `same_year` +5, `one_year_off` −10, `conflict` −30, `not_compared` 0 (a side has none). */
export type DobOutcome = 'not_compared' | 'exact' | 'same_year' | 'one_year_off' | 'conflict';
/** What the country did: `match` +5, `conflict` −5, `not_compared` 0 (a side has none). */
export type CountryOutcome = 'not_compared' | 'match' | 'conflict';

/**
 * Why a hit scored what it did, so a reviewer can dismiss a false positive in seconds: which
 * listed form matched, which tokens matched which with what credit and weight, what was left
 * unmatched, and how the date of birth and the country moved the score.
 * score = clamp(name_points + date_of_birth.points + country.points).
 */
export interface HitExplanation {
  /** Whether the listed form that matched best is the entity's primary name or one of its aliases. */
  matchedNameKind: 'primary_name' | 'alias';
  /** The query as compared (normalised variant). */
  queryForm: string;
  /** The listed name as compared (normalised variant). */
  listedForm: string;
  method: NameMethod;
  /** Token pairs, in query order (empty for `compact`). */
  tokenMatches: TokenMatch[];
  /** Query tokens paired with nothing. */
  unmatchedQueryTokens: string[];
  /** Listed tokens paired with nothing: a middle name, a second surname the query left out. */
  unmatchedListedTokens: string[];
  /** Factors applied to the similarity of the forms (a one-word listed name, a person against an organisation). */
  nameFactors: NameFactor[];
  /** Name similarity 0..1 (3 decimals), after the factors. */
  nameSimilarity: number;
  /** 100 × name_similarity, rounded: the score before date of birth and country. */
  namePoints: number;
  dateOfBirth: { outcome: DobOutcome; points: number; listed: string[] };
  country: { outcome: CountryOutcome; points: number; listed: string[] };
  /** The above in one sentence. */
  summary: string;
}

/** One reported hit of a screen. */
export interface AmlHit {
  /** `SOURCE_LIST:source_id`, stable across imports. */
  entityId: string;
  /** List the entity is on. */
  sourceList: AmlList;
  /** The publisher's id of the entity. */
  sourceId: string;
  /** The entity's primary name. */
  name: string;
  /** The listed name or alias that matched best. */
  matchedName: string;
  /** 0–100 integer score of this hit. */
  score: number;
  /** Query fields that agreed. */
  matchedFields: MatchedField[];
  /** Sanctions programmes of the entity. */
  programs: string[];
  /** Risk topics of the entity. */
  topics: string[];
  /** Why it scored so (HitExplanation); absent for sandbox hits, which come from magic names, not from matching. */
  explanation?: HitExplanation;
}

/** The AML result minus `aml_id` (which the persistence layer assigns). */
export interface AmlScreening {
  /** Highest hit score, 0 when there is no hit; at or above the workflow threshold declines. */
  score: number;
  /** 1 (low) to 5 (high), from `riskBand(score)`. */
  riskBand: number;
  /** Hits with score ≥ MIN_HIT_SCORE, best first. */
  hits: AmlHit[];
  /** Exactly the lists screened. */
  checkedLists: AmlList[];
}

/**
 * Share (0..1) of a consonant-skeleton match credited as name similarity when one side is written
 * in Arabic, Persian or Hebrew script: its transliteration has no vowels, so only skeletons can
 * be compared, token by token and only when equal ("قاسم سليماني" vs "Qasem Soleimani"), and equal skeletons say less than equal
 * spellings ("mhmd" is Mohammed and Mahmoud). An exact skeleton match scores 90: a decline.
 */
export const ABJAD_SKELETON_CREDIT = 0.9;

/**
 * Factor (0..1) on the similarity to a listed one-word name or alias ("Hussein", "Abu Ali"
 * written as one word, a vessel "AMINA"): one word names nobody in particular, so it alone never
 * declines a person (exact: 70, review) and a longer ordinary name sharing it is no hit
 * (2/3 × 0.7 < 0.5). An organisation's, vessel's or aircraft's one-word name is weighted only
 * when the query has more words: screened alone, "Hamas" is that organisation's name (90, see
 * PERSON_QUERY_ORGANIZATION_FACTOR).
 */
export const ONE_WORD_NAME_FACTOR = 0.7;

/**
 * Factor (0..1) on the similarity of a person's name (a query without any
 * ORGANIZATION_GENERIC_TOKENS) to an organisation's, vessel's or aircraft's name: a person is not
 * the company named after them ("Dawood Ibrahim" vs "DAWOOD IBRAHIM ORGANIZATION": 87 → 78,
 * review), so only the whole name of an organisation declines a person query (exact: 90).
 * Persons are scored first in that sense; organisation names count on their own terms.
 */
export const PERSON_QUERY_ORGANIZATION_FACTOR = 0.9;

/**
 * Weight (0..1) of an organisation's generic words (ORGANIZATION_GENERIC_TOKENS) in the token
 * alignment against it, so that sharing "Shipping Limited" with a listed company is not the
 * company's name: organisation names are matched on their distinctive words.
 */
export const GENERIC_TOKEN_WEIGHT = 0.6;

/** Legal forms and trade words that many organisation names share; weighted GENERIC_TOKEN_WEIGHT when matching organisations. */
export const ORGANIZATION_GENERIC_TOKENS: ReadonlySet<string> = new Set([
  'the',
  'and',
  'of',
  'for',
  'co',
  'company',
  'companies',
  'corp',
  'corporation',
  'inc',
  'incorporated',
  'ltd',
  'limited',
  'llc',
  'llp',
  'plc',
  'pte',
  'pvt',
  'private',
  'sa',
  'sarl',
  'ag',
  'gmbh',
  'bv',
  'jsc',
  'ojsc',
  'cjsc',
  'pjsc',
  'ooo',
  'oao',
  'zao',
  'fze',
  'fzco',
  'group',
  'holding',
  'holdings',
  'trading',
  'trade',
  'shipping',
  'international',
  'general',
  'industries',
  'industrial',
  'enterprise',
  'enterprises',
  'services',
  'investment',
  'investments',
  'organization',
  'organisation',
  'establishment',
  'foundation',
]);

/** One normalised variant of a name, in the forms pairSimilarity compares. */
interface PreparedVariant {
  tokens: string[];
  compact: string;
  /** Consonant skeletons of the tokens (empty ones left out), compared when a side is abjad. */
  skeleton: string[];
}

/** Normalised forms of one name, computed once per entity. */
interface PreparedName {
  original: string;
  variants: PreparedVariant[];
  /** Written in Arabic, Persian or Hebrew script: compared by consonant skeletons too. */
  abjad: boolean;
  /** Holds a legal form or trade word (ORGANIZATION_GENERIC_TOKENS): read as an organisation's name, not a person's. */
  organizationWords: boolean;
}

/** Cache of prepared names per entity object; entities are treated as immutable once imported. */
const prepared = new WeakMap<SanctionedEntity, PreparedName[]>();

/** Normalises a name once into the forms pairSimilarity compares. */
function prepareName(original: string): PreparedName {
  const variants = nameVariants(original)
    .map((v) => v.split(' ').filter((t) => t.length > 0))
    .filter((tokens) => tokens.length > 0)
    .map((tokens) => ({ tokens, compact: tokens.join(''), skeleton: tokens.map(consonantSkeleton).filter((t) => t.length > 0) }));
  const organizationWords = variants.some((v) => v.tokens.some((t) => ORGANIZATION_GENERIC_TOKENS.has(t)));
  return { original, variants, abjad: isAbjad(original), organizationWords };
}

/** Primary name and aliases of an entity, prepared and cached. */
function entityNames(entity: SanctionedEntity): PreparedName[] {
  const cached = prepared.get(entity);
  if (cached) return cached;
  const names = [entity.primary_name, ...entity.aliases].filter((n) => n.trim().length > 0).map(prepareName);
  prepared.set(entity, names);
  return names;
}

/** Similarity of two compact (space-free) forms, or 0 when their lengths differ too much; same credit curve as tokens. */
function compactSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
  if (ratio < COMPACT_MIN_LENGTH_RATIO) return 0;
  const s = jaroWinkler(a, b);
  return s < TOKEN_MATCH_FLOOR ? 0 : s ** FUZZY_TOKEN_EXPONENT;
}

/**
 * `tokens` with each pair of neighbours joined whose concatenation is one token of `other`: a
 * compound name written as one word on one side and two on the other ("Abdallah" and "عبد الله",
 * skeletons "bdl" and "bd l"; "Noureddine" and "نور الدين", "nrdn" and "nr dn").
 */
function joinCompounds(tokens: readonly string[], other: readonly string[]): readonly string[] {
  if (tokens.length < 2) return tokens;
  const wanted = new Set(other);
  const joined: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const pair = i + 1 < tokens.length ? tokens[i]! + tokens[i + 1]! : undefined;
    if (pair !== undefined && wanted.has(pair) && !wanted.has(tokens[i]!)) {
      joined.push(pair);
      i += 1;
    } else joined.push(tokens[i]!);
  }
  return joined;
}

/**
 * Credit (0..1) of two equal skeleton tokens of one letter: "b" and "d" are what is left of "Abu
 * Du'a", "D-Boy" and "Abou Daoud" alike, so they say little, but "l" (Ali) still says something.
 */
export const ONE_LETTER_SKELETON_CREDIT = 0.8;

/** Credit of two skeleton tokens: 1 when equal, ONE_LETTER_SKELETON_CREDIT when equal and one letter long, else 0. */
function exactly(a: string, b: string): number {
  if (a !== b) return 0;
  return a.length === 1 ? ONE_LETTER_SKELETON_CREDIT : 1;
}

/** Token weight in an alignment against an organisation: its generic words count GENERIC_TOKEN_WEIGHT. */
function organizationWeight(token: string): number {
  return ORGANIZATION_GENERIC_TOKENS.has(token) ? GENERIC_TOKEN_WEIGHT : 1;
}

/**
 * Similarity (0..1) of two prepared name variants: soft token alignment, or compact comparison
 * when spacing differs; against an organisation, generic words weigh GENERIC_TOKEN_WEIGHT; when
 * either name is abjad, consonant skeletons too (ABJAD_SKELETON_CREDIT).
 */
function pairSimilarity(a: PreparedVariant, b: PreparedVariant, options: { organization: boolean; abjad: boolean }): number {
  // An unvocalised transliteration ("wly") has no vowels to mistype: its skeleton is compared below.
  const similarity = options.abjad ? spelledTokenSimilarity : tokenSimilarity;
  let score = softTokenScore(a.tokens, b.tokens, options.organization ? organizationWeight : undefined, similarity);
  // Compact comparison only matters when the spacing differs; with equal token counts the
  // token alignment already sees everything, and the compact string would add prefix bias.
  if (a.tokens.length !== b.tokens.length) score = Math.max(score, compactSimilarity(a.compact, b.compact));
  // Skeletons only count when equal: they are short, so near ones ("mrn"/"mr") mean little.
  if (options.abjad) {
    const [sa, sb] = [joinCompounds(a.skeleton, b.skeleton), joinCompounds(b.skeleton, a.skeleton)];
    score = Math.max(score, ABJAD_SKELETON_CREDIT * softTokenScore(sa, sb, undefined, exactly));
  }
  return score;
}

/** The best pair of forms of a query and an entity's names, and the factors applied to it. */
interface BestMatch {
  similarity: number;
  name: PreparedName | undefined;
  query: PreparedVariant | undefined;
  listed: PreparedVariant | undefined;
  abjad: boolean;
  organization: boolean;
  factors: NameFactor[];
}

/** Best similarity (0..1) of a name against the names of one entity, with the forms that gave it. */
function bestNameMatch(query: PreparedName, names: PreparedName[], kind: EntityKind = 'person'): BestMatch {
  const organization = kind !== 'person';
  let best: BestMatch = { similarity: 0, name: names[0], query: undefined, listed: undefined, abjad: false, organization, factors: [] };
  // A name in Latin letters is compared with the entity's names in Latin letters when it has
  // any: its names in Arabic or Persian script can only be compared by consonants, and a Latin
  // spelling whose vowels already disagree with the Latin names ("Ahmed Mahmoud" and the listed
  // "محمد احمدی", Mohammad Ahmadi, both "hmd mhmd") would match them on the consonants alone.
  const latinNames = !query.abjad && names.some((name) => !name.abjad);
  for (const name of names) {
    if (latinNames && name.abjad) continue;
    const abjad = query.abjad || name.abjad;
    for (const qv of query.variants) {
      for (const cv of name.variants) {
        let s = pairSimilarity(qv, cv, { organization, abjad });
        // A person's one word names nobody; an organisation's or vessel's one word ("HAMAS") is its
        // name when screened alone, but only a shared word inside a longer name ("Amina Yusuf").
        const oneWord = cv.tokens.length === 1 && (!organization || qv.tokens.length > 1);
        const personVsOrganization = organization && !query.organizationWords;
        if (oneWord) s *= ONE_WORD_NAME_FACTOR;
        if (personVsOrganization) s *= PERSON_QUERY_ORGANIZATION_FACTOR;
        if (s > best.similarity) {
          const factors: NameFactor[] = [];
          if (oneWord) factors.push({ reason: 'one_word_name', factor: ONE_WORD_NAME_FACTOR });
          if (personVsOrganization) factors.push({ reason: 'person_query_vs_organization', factor: PERSON_QUERY_ORGANIZATION_FACTOR });
          best = { similarity: s, name, query: qv, listed: cv, abjad, organization, factors };
        }
      }
    }
  }
  return best;
}

/** How a pair of tokens credited `credit` was matched (TokenMatchKind). */
function tokenMatchKind(a: string, b: string, credit: number, method: NameMethod): TokenMatchKind {
  if (method === 'consonant_skeleton') return 'consonant_skeleton';
  if (a === b) return 'exact';
  if (a.length === 1 || b.length === 1) return 'initial';
  if (credit === FUSED_ARTICLE_CREDIT && (a.endsWith(b) || b.endsWith(a))) return 'fused_article';
  if (consonantSkeleton(a) === consonantSkeleton(b) && a.length === b.length) return 'same_consonants';
  return 'spelling';
}

/** The name half of a hit's explanation: which method gave the best pair's similarity, and its token pairs. */
function explainName(
  best: BestMatch,
): Pick<HitExplanation, 'queryForm' | 'listedForm' | 'method' | 'tokenMatches' | 'unmatchedQueryTokens' | 'unmatchedListedTokens'> {
  const [q, c] = [best.query, best.listed];
  if (!q || !c)
    return {
      queryForm: '',
      listedForm: '',
      method: 'tokens',
      tokenMatches: [],
      unmatchedQueryTokens: [],
      unmatchedListedTokens: [],
    };
  const weight = best.organization ? organizationWeight : () => 1;
  const tokens = tokenAlignment(q.tokens, c.tokens, weight, best.abjad ? spelledTokenSimilarity : tokenSimilarity);
  const compact = q.tokens.length !== c.tokens.length ? compactSimilarity(q.compact, c.compact) : 0;
  const [sq, sc] = [joinCompounds(q.skeleton, c.skeleton), joinCompounds(c.skeleton, q.skeleton)];
  const skeleton = best.abjad ? tokenAlignment(sq, sc, undefined, exactly) : { score: 0, pairs: [] };
  let method: NameMethod = 'tokens';
  if (compact > tokens.score) method = 'compact';
  if (ABJAD_SKELETON_CREDIT * skeleton.score > Math.max(tokens.score, compact)) method = 'consonant_skeleton';
  const form = { queryForm: q.tokens.join(' '), listedForm: c.tokens.join(' '), method };
  if (method === 'compact') return { ...form, tokenMatches: [], unmatchedQueryTokens: [], unmatchedListedTokens: [] };
  const [a, b, alignment] = method === 'tokens' ? [q.tokens, c.tokens, tokens] : [sq, sc, skeleton];
  const pairs = [...alignment.pairs].sort((x, y) => x.i - y.i);
  return {
    ...form,
    tokenMatches: pairs.map((p) => ({
      queryToken: a[p.i]!,
      listedToken: b[p.j]!,
      credit: round3(method === 'consonant_skeleton' ? ABJAD_SKELETON_CREDIT * p.s : p.s),
      weight: p.weightB,
      kind: tokenMatchKind(a[p.i]!, b[p.j]!, p.s, method),
    })),
    unmatchedQueryTokens: a.filter((_, i) => !pairs.some((p) => p.i === i)),
    unmatchedListedTokens: b.filter((_, j) => !pairs.some((p) => p.j === j)),
  };
}

/** A number rounded to three decimals, as explanations show credits and similarities. */
function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Signed points as a reviewer reads them ("+5", "−30"). */
function signed(points: number): string {
  return points >= 0 ? `+${points}` : `−${-points}`;
}

/** The one-sentence summary of an explanation. */
function summarise(e: Omit<HitExplanation, 'summary'>, matchedName: string, score: number): string {
  const pairs = e.tokenMatches.map((m) => (m.kind === 'exact' ? m.queryToken : `${m.queryToken}~${m.listedToken} (${m.kind} ${m.credit})`));
  const how =
    e.method === 'compact'
      ? `"${e.queryForm}" compared without spaces with "${e.listedForm}"`
      : `${e.method === 'consonant_skeleton' ? 'consonants ' : ''}matched ${pairs.join(', ') || 'nothing'}` +
        (e.unmatchedListedTokens.length > 0 ? `; listed ${e.unmatchedListedTokens.join(', ')} not in the query` : '') +
        (e.unmatchedQueryTokens.length > 0 ? `; query ${e.unmatchedQueryTokens.join(', ')} not in the listed name` : '');
  const factors = e.nameFactors.map((f) => ` × ${f.factor} (${f.reason.replaceAll('_', ' ')})`).join('');
  const dob =
    e.dateOfBirth.outcome === 'not_compared'
      ? ''
      : `; date of birth ${e.dateOfBirth.outcome.replaceAll('_', ' ')} ${signed(e.dateOfBirth.points)}`;
  const country = e.country.outcome === 'not_compared' ? '' : `; country ${e.country.outcome} ${signed(e.country.points)}`;
  return `${e.matchedNameKind === 'alias' ? 'alias' : 'primary name'} "${matchedName}": ${how}${factors} → name ${e.namePoints}${dob}${country} = ${score}`;
}

/** Name similarity (0..1) of a free-form name to a listed name of an entity of `kind`, as used in scoring; exposed for tests and tuning. */
export function nameSimilarity(a: string, b: string, kind: EntityKind = 'person'): number {
  return bestNameMatch(prepareName(a), [prepareName(b)], kind).similarity;
}

/** Year of a `YYYY` or `YYYY-MM-DD` string, or undefined when it is neither. */
function yearOf(date: string): number | undefined {
  const m = /^(\d{4})(?:-\d{2}-\d{2})?$/.exec(date.trim());
  return m ? Number(m[1]) : undefined;
}

/** Date-of-birth adjustment in points, whether the DOB counts as matched, and why (DobOutcome). */
function dobAdjustment(queryDob: string | undefined, listed: string[]): { points: number; matched: boolean; outcome: DobOutcome } {
  const none = { points: 0, matched: false, outcome: 'not_compared' as const };
  if (!queryDob) return none;
  const queryYear = yearOf(queryDob);
  const years = listed.map(yearOf).filter((y): y is number => y !== undefined);
  if (queryYear === undefined || years.length === 0) return none;
  const isFullDate = queryDob.trim().length === 10;
  if (isFullDate && listed.some((d) => d.trim() === queryDob.trim())) return { points: DOB_EXACT_BONUS, matched: true, outcome: 'exact' };
  // Same year: the list or the query only knows the year, or the full dates differ within the
  // year (kept as a partial match: day/month swaps are common data-entry slips).
  if (years.includes(queryYear)) return { points: DOB_YEAR_BONUS, matched: true, outcome: 'same_year' };
  const closest = Math.min(...years.map((y) => Math.abs(y - queryYear)));
  if (closest <= 1) return { points: -DOB_NEAR_PENALTY, matched: false, outcome: 'one_year_off' };
  return { points: -DOB_CONFLICT_PENALTY, matched: false, outcome: 'conflict' };
}

/** Country adjustment in points, whether the country counts as matched, and why (CountryOutcome). */
function countryAdjustment(
  queryCountry: string | undefined,
  listed: string[],
): { points: number; matched: boolean; outcome: CountryOutcome } {
  if (!queryCountry || listed.length === 0) return { points: 0, matched: false, outcome: 'not_compared' };
  const wanted = queryCountry.trim().toUpperCase();
  if (listed.some((c) => c.toUpperCase() === wanted)) return { points: COUNTRY_MATCH_BONUS, matched: true, outcome: 'match' };
  return { points: -COUNTRY_CONFLICT_PENALTY, matched: false, outcome: 'conflict' };
}

/** Scores one query against one entity (formula in the module comment). */
export function scoreEntity(query: AmlQuery, entity: SanctionedEntity): EntityScore {
  return scorePrepared(prepareName(query.fullName), query, entity);
}

/** The parts of one entity's score, before its explanation is written (only hits get one). */
interface ScoreParts {
  best: BestMatch;
  dob: ReturnType<typeof dobAdjustment>;
  country: ReturnType<typeof countryAdjustment>;
  score: number;
  matched_fields: MatchedField[];
}

/** scoreEntity's figures with the query name already prepared, so screen() normalises it once. */
function scoreParts(queryName: PreparedName, query: AmlQuery, entity: SanctionedEntity): ScoreParts {
  const best = bestNameMatch(queryName, entityNames(entity), entity.kind);
  const dob = dobAdjustment(query.dateOfBirth, entity.dates_of_birth);
  const country = countryAdjustment(query.country, entity.countries);
  const raw = 100 * best.similarity + dob.points + country.points;
  const matched_fields: MatchedField[] = [];
  if (best.similarity >= NAME_FIELD_MIN_SIMILARITY) matched_fields.push('name');
  if (dob.matched) matched_fields.push('date_of_birth');
  if (country.matched) matched_fields.push('country');
  return { best, dob, country, score: Math.max(0, Math.min(100, Math.round(raw))), matched_fields };
}

/** The explanation of a scored entity (HitExplanation). */
function explain(parts: ScoreParts, entity: SanctionedEntity): HitExplanation {
  const matchedName = parts.best.name?.original ?? entity.primary_name;
  const explanation: Omit<HitExplanation, 'summary'> = {
    matchedNameKind: matchedName === entity.primary_name ? 'primary_name' : 'alias',
    ...explainName(parts.best),
    nameFactors: parts.best.factors,
    nameSimilarity: round3(parts.best.similarity),
    namePoints: Math.round(100 * parts.best.similarity),
    dateOfBirth: { outcome: parts.dob.outcome, points: parts.dob.points, listed: [...entity.dates_of_birth] },
    country: { outcome: parts.country.outcome, points: parts.country.points, listed: [...entity.countries] },
  };
  return { ...explanation, summary: summarise(explanation, matchedName, parts.score) };
}

/** scoreEntity with the query name already prepared. */
function scorePrepared(queryName: PreparedName, query: AmlQuery, entity: SanctionedEntity): EntityScore {
  const parts = scoreParts(queryName, query, entity);
  return {
    score: parts.score,
    matchedName: parts.best.name?.original ?? entity.primary_name,
    matchedFields: parts.matched_fields,
    nameSimilarity: parts.best.similarity,
    explanation: explain(parts, entity),
  };
}

/**
 * Lower score bounds (points) of risk bands 2..5: band 1 is below 50 (no reportable hit),
 * 2 is 50–64 (weak), 3 is 65–79 (review), 4 is 80–89 (declines by default), 5 is 90–100.
 */
export const RISK_BAND_FLOORS = [MIN_HIT_SCORE, 65, 80, 90] as const;

/** Maps a 0–100 score to the spec's 1 (low) to 5 (high) `risk_band`. */
export function riskBand(score: number): 1 | 2 | 3 | 4 | 5 {
  if (score >= RISK_BAND_FLOORS[3]) return 5;
  if (score >= RISK_BAND_FLOORS[2]) return 4;
  if (score >= RISK_BAND_FLOORS[1]) return 3;
  if (score >= RISK_BAND_FLOORS[0]) return 2;
  return 1;
}

/** Options of screen(). */
export interface ScreenOptions {
  /** Minimum score (points) of a reported hit; defaults to MIN_HIT_SCORE. */
  minScore?: number;
}

/**
 * Screens a query against candidate entities restricted to `lists` (default: every list).
 * Candidates on other lists are ignored; `checked_lists` echoes `lists` (deduplicated, in the
 * given order) because the spec says it is exactly the lists screened.
 */
export function screen(
  query: AmlQuery,
  candidates: Iterable<SanctionedEntity>,
  lists: readonly AmlList[] = AML_LISTS,
  options: ScreenOptions = {},
): AmlScreening {
  const checked = [...new Set(lists)];
  const wanted = new Set<AmlList>(checked);
  const minScore = options.minScore ?? MIN_HIT_SCORE;
  const queryName = prepareName(query.fullName);
  const hits: AmlHit[] = [];
  for (const entity of candidates) {
    if (!wanted.has(entity.source_list)) continue;
    const parts = scoreParts(queryName, query, entity);
    if (parts.score < minScore) continue;
    hits.push({
      entityId: entityId(entity),
      sourceList: entity.source_list,
      sourceId: entity.source_id,
      name: entity.primary_name,
      matchedName: parts.best.name?.original ?? entity.primary_name,
      score: parts.score,
      matchedFields: parts.matched_fields,
      programs: [...entity.programs],
      topics: [...entity.topics],
      explanation: explain(parts, entity),
    });
  }
  // The screened subject is a person: at equal scores listed persons come before organisations,
  // vessels and aircraft; then ties broken by id so the same data always yields the same order.
  const isPerson = new Map([...candidates].map((e) => [entityId(e), e.kind === 'person']));
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      Number(isPerson.get(b.entityId) ?? false) - Number(isPerson.get(a.entityId) ?? false) ||
      a.entityId.localeCompare(b.entityId),
  );
  const score = hits[0]?.score ?? 0;
  return { score, riskBand: riskBand(score), hits, checkedLists: checked };
}
