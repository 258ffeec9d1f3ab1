import { consonantSkeleton } from './normalize.js';

/**
 * Small string metrics for name matching, written here because no string-similarity
 * library is a dependency (node_modules only has fast-levenshtein transitively through
 * eslint, which is a dev tool and not ours to rely on). All return a similarity in 0..1.
 */

/** Jaro similarity (0..1): shared characters within a sliding window, minus transpositions. */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aMatched = new Array<boolean>(a.length).fill(false);
  const bMatched = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(b.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (bMatched[j] || a[i] !== b[j]) continue;
      aMatched[i] = true;
      bMatched[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    if (!aMatched[i]) continue;
    while (!bMatched[k]) k++;
    if (a[i] !== b[k]) transpositions++;
    k++;
  }
  const m = matches;
  return (m / a.length + m / b.length + (m - transpositions / 2) / m) / 3;
}

/** Winkler's prefix scale: how much each shared leading character (up to 4) lifts a Jaro score. */
export const WINKLER_PREFIX_SCALE = 0.1;
/** Jaro score above which the prefix bonus applies (Winkler's original threshold). */
export const WINKLER_BOOST_THRESHOLD = 0.7;

/** Jaro-Winkler similarity (0..1): Jaro plus a bonus for a shared prefix of up to 4 characters. */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  if (j <= WINKLER_BOOST_THRESHOLD) return j;
  let prefix = 0;
  const limit = Math.min(4, a.length, b.length);
  while (prefix < limit && a[prefix] === b[prefix]) prefix++;
  return j + prefix * WINKLER_PREFIX_SCALE * (1 - j);
}

/** Per-token similarity below which two tokens count as unrelated (0 credit), so weak partial likenesses do not add up. */
export const TOKEN_MATCH_FLOOR = 0.8;
/** Credit (0..1) for an initial ("j") against a token starting with that letter ("john"). */
export const INITIAL_CREDIT = 0.6;

/**
 * Exponent applied to a fuzzy (non-identical) token's Jaro-Winkler score. Jaro-Winkler alone
 * does not separate spelling variants (osama/usama 0.87) from different names (john/joan 0.87,
 * garcia/garza 0.88), so a fuzzy token earns less than its raw score: 0.87³ ≈ 0.65. With it, one
 * fuzzy token next to an exact one lands around 0.8 (the default decline score) rather than 0.9.
 */
export const FUZZY_TOKEN_EXPONENT = 3;

/**
 * Credit (0..1) for two tokens of equal length (at least SKELETON_MIN_TOKEN_LENGTH letters) with
 * the same first letter and consonant skeleton: a vowel typed wrong or two letters swapped ("kym"/"kim",
 * "rynog"/"ryong", "secihn"/"sechin"). Jaro-Winkler undervalues those in short words (kym/kim
 * 0.80 → 0.51 after the exponent); this is about what it gives a one-vowel change in a longer
 * word (maria/mario 0.78).
 */
export const SKELETON_TOKEN_CREDIT = 0.8;
/** Shortest token (letters) that SKELETON_TOKEN_CREDIT applies to; shorter words have too few consonants to tell apart. */
export const SKELETON_MIN_TOKEN_LENGTH = 3;
/**
 * Fewest consonants the skeleton of a token longer than SHORT_TOKEN_LENGTH needs for
 * SKELETON_TOKEN_CREDIT: a long word with one consonant is mostly vowels, which are what differ
 * ("aisha" and "ayash" are both "s"); a short one ("nein"/"nain") has no more to give.
 */
export const SKELETON_MIN_CONSONANTS = 2;

/**
 * Longest token (letters) counted as short: a changed consonant in a syllable name is usually
 * another name, not a typo ("jing"/"jian", "chen"/"che": Chinese and Korean given names are such
 * syllables), so short tokens spelt differently earn at most SHORT_FUZZY_TOKEN_CREDIT: with one
 * exact token beside them, a two-word name lands in review (78), not a decline. A vowel typed
 * wrong keeps the consonants and earns SKELETON_TOKEN_CREDIT ("kym"/"kim").
 */
export const SHORT_TOKEN_LENGTH = 4;
/** Most credit (0..1) for two short tokens (SHORT_TOKEN_LENGTH) spelt differently. */
export const SHORT_FUZZY_TOKEN_CREDIT = 0.55;

/**
 * Most letters (at least 1) two tokens' lengths may differ by, per letter of the longer one, and
 * still be spellings of one name: a typo or a romanisation adds or drops a letter or two
 * ("mahmud"/"mahmoud", "abdoullah"/"abdullah"), while a short name inside a longer one is another
 * name ("fang"/"fangwei", "min"/"mingfu", "un"/"jung"), which Jaro-Winkler's prefix bonus and its
 * leniency with short words would credit at 0.7–0.9.
 */
export const MAX_LENGTH_DIFFERENCE_SHARE = 0.25;

/** Whether two tokens' lengths are close enough to be spellings of one name (MAX_LENGTH_DIFFERENCE_SHARE). */
export function similarLength(a: string, b: string): boolean {
  const longer = Math.max(a.length, b.length);
  return Math.abs(a.length - b.length) <= Math.max(1, Math.floor(longer * MAX_LENGTH_DIFFERENCE_SHARE));
}

/**
 * Credit (0..1) for a name with the Arabic article written onto it against the name alone
 * ("Alabsi"/"Absi", "Elbaradei"/"Baradei"): passports and forms often fuse it, and the article
 * alone is dropped on both sides (normalize.ts PARTICLES). Not quite 1: a Latin name may start
 * with the same letters ("Albert"/"Bert").
 */
export const FUSED_ARTICLE_CREDIT = 0.95;

/** Whether `fused` is `bare` with "al" or "el" written before it (bare of at least three letters). */
function fusedArticle(fused: string, bare: string): boolean {
  return bare.length >= 3 && fused.length === bare.length + 2 && (fused.startsWith('al') || fused.startsWith('el')) && fused.endsWith(bare);
}

/**
 * Credit (0..1) for two tokens as spelt: 1 if identical, INITIAL_CREDIT for an initial,
 * FUSED_ARTICLE_CREDIT for an article written onto the name, 0 for
 * lengths too far apart (similarLength), otherwise Jaro-Winkler^FUZZY_TOKEN_EXPONENT, or 0 when
 * Jaro-Winkler is below TOKEN_MATCH_FLOOR. Used alone for unvocalised (Arabic-script)
 * transliterations, whose skeletons are compared apart.
 */
export function spelledTokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if ((a.length === 1 || b.length === 1) && a[0] === b[0]) return INITIAL_CREDIT;
  if (fusedArticle(a, b) || fusedArticle(b, a)) return FUSED_ARTICLE_CREDIT;
  if (!similarLength(a, b)) return 0;
  const jw = jaroWinkler(a, b);
  if (jw < TOKEN_MATCH_FLOOR) return 0;
  const credit = jw ** FUZZY_TOKEN_EXPONENT;
  return Math.max(a.length, b.length) <= SHORT_TOKEN_LENGTH ? Math.min(credit, SHORT_FUZZY_TOKEN_CREDIT) : credit;
}

/**
 * Credit (0..1) for two tokens: spelledTokenSimilarity, raised to SKELETON_TOKEN_CREDIT
 * for equal-length tokens with the same first letter
 * and the same consonant skeleton (of at least SKELETON_MIN_CONSONANTS letters for long tokens).
 * The first letter, because typing slips rarely hit it (Winkler's observation too), while
 * different names with one skeleton often differ there ("obrien"/"brawny", "nguyen"/"yangon").
 */
export function tokenSimilarity(a: string, b: string): number {
  const spelled = spelledTokenSimilarity(a, b);
  if (spelled >= SKELETON_TOKEN_CREDIT || a.length !== b.length || a.length < SKELETON_MIN_TOKEN_LENGTH || a[0] !== b[0]) return spelled;
  const skeleton = consonantSkeleton(a);
  const fewest = a.length > SHORT_TOKEN_LENGTH ? SKELETON_MIN_CONSONANTS : 1;
  return skeleton.length >= fewest && skeleton === consonantSkeleton(b) ? SKELETON_TOKEN_CREDIT : spelled;
}

/**
 * Order-independent token alignment score (0..1), a "soft Dice" coefficient: tokens are
 * paired one-to-one greedily by descending tokenSimilarity, and the score is
 * 2 × Σ(pair similarities) / (|a| + |b|). A missing middle name therefore costs partial
 * credit ("john smith" vs "john paul smith" = 0.8) and a lone surname stays low
 * ("smith" vs "john smith" ≈ 0.67), unlike fuzzywuzzy's token-set ratio which gives 1.0 to any
 * subset and would make every "Smith" a decline-level hit. `weight` (1 for every token unless
 * given) lets words that many names share count less: each pair counts its similarity times the
 * two tokens' weights, over the total weight of both sides. `similarity` (tokenSimilarity unless
 * given) credits one pair of tokens.
 */
export function softTokenScore(
  a: readonly string[],
  b: readonly string[],
  weight: (token: string) => number = () => 1,
  similarity: (a: string, b: string) => number = tokenSimilarity,
): number {
  return tokenAlignment(a, b, weight, similarity).score;
}

/** One pair of tokens of an alignment (tokenAlignment): positions in both lists, credit and the two tokens' weights. */
export interface AlignedPair {
  /** Position of the token in the first list. */
  i: number;
  /** Position of the token in the second list. */
  j: number;
  /** Credit of the pair (0..1). */
  s: number;
  /** Weights of the two tokens (1 unless the caller weighs them). */
  weightA: number;
  weightB: number;
}

/**
 * softTokenScore with the pairs it made, so a hit can say which tokens matched which and with
 * what weight (score.ts `explanation`).
 */
export function tokenAlignment(
  a: readonly string[],
  b: readonly string[],
  weight: (token: string) => number = () => 1,
  similarity: (a: string, b: string) => number = tokenSimilarity,
): { score: number; pairs: AlignedPair[] } {
  if (a.length === 0 || b.length === 0) return { score: 0, pairs: [] };
  const candidates: Array<{ i: number; j: number; s: number }> = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const s = similarity(a[i], b[j]);
      if (s > 0) candidates.push({ i, j, s });
    }
  }
  candidates.sort((x, y) => y.s - x.s);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const pairs: AlignedPair[] = [];
  let sum = 0;
  for (const { i, j, s } of candidates) {
    if (usedA.has(i) || usedB.has(j)) continue;
    usedA.add(i);
    usedB.add(j);
    const [weightA, weightB] = [weight(a[i]), weight(b[j])];
    pairs.push({ i, j, s, weightA, weightB });
    sum += s * (weightA + weightB);
  }
  // With unit weights this is 2 × Σ s / (|a| + |b|), the plain soft Dice.
  return { score: sum / (a.reduce((t, x) => t + weight(x), 0) + b.reduce((t, x) => t + weight(x), 0)), pairs };
}
