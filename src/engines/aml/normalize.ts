/**
 * Name normalisation for AML matching. Both the screened name and every listed name go
 * through the same function, so the rules only need to be symmetric, not linguistically
 * perfect. The output is lower-case ASCII tokens separated by single spaces, which is also
 * what a pg_trgm index over listed names should be built on.
 *
 * Pipeline of `normalizeName`:
 * 1. NFKC, so full-width and compatibility letters fold to their plain forms.
 * 2. Han and Hangul characters are transliterated one character (= one syllable) at a time
 *    with spaces between them, because any-ascii joins them into one camel-cased word
 *    ("金正恩" → "JinZhengEn") that could never align with a spaced Latin spelling.
 * 3. any-ascii for everything else: strips diacritics ("José" → "Jose", "Müller" → "Muller",
 *    "ß" → "ss") and transliterates Cyrillic, Greek, Arabic… ("Владимир" → "Vladimir").
 *    Arabic script is unvocalised, so "محمد" becomes "mhmd", not "mohammed": lists carry Latin
 *    aliases for that reason, and the fuzzy metrics in score.ts do the rest.
 * 4. Apostrophes (and the ` / ' that any-ascii emits for ayn and soft signs) are removed
 *    without a space ("O'Brien" → "obrien"); every other non-alphanumeric becomes a space
 *    ("Al-Tikriti" → "al tikriti", "J.R." → "j r").
 * 5. Lower case, split on whitespace.
 * 6. Honorifics and generational suffixes (NOISE_TOKENS) are dropped wherever they stand,
 *    unless that would leave no token.
 * 7. Arabic/Semitic connective particles (CONNECTIVE_PARTICLES: al, el, bin, ibn…) are dropped
 *    only *between* two other tokens ("Saddam Hussein al-Tikriti" → "saddam hussein tikriti",
 *    "Mohammed bin Salman" → "mohammed salman"). At the start or end they are kept, because
 *    there they are usually a real name ("Al Smith", "Wang Bin", "Al-Qaida").
 *
 * German umlauts: any-ascii folds ü to u, so "Müller" ≈ "Muller" exactly, while the German
 * spelling "Mueller" only matches fuzzily. `nameVariants` adds a second normalisation with
 * ä/ö/ü → ae/oe/ue when the input has an umlaut; score.ts compares every variant pair, so
 * "José Müller" matches both "Jose Muller" and "Jose Mueller" exactly.
 */
import anyAscii from 'any-ascii';

/**
 * Titles and suffixes that say nothing about identity; dropped anywhere in a name.
 * Deliberately small: "sheikh", "haji", "abu", "van", "de" are omitted because they are
 * family names or name parts often enough that dropping them would merge different people.
 */
export const NOISE_TOKENS: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'sir',
  'dame',
  'madam',
  'madame',
  'mme',
  'mlle',
  'herr',
  'frau',
  'rev',
  'hon',
  'jr',
  'jnr',
  'sr',
  'snr',
  'ii',
  'iii',
]);

/**
 * Article/patronymic particles whose presence varies between spellings of the same Arabic
 * name; dropped only when they stand between two other tokens (see module comment, step 7).
 * "bn" is how any-ascii renders Arabic-script "بن".
 */
export const CONNECTIVE_PARTICLES: ReadonlySet<string> = new Set(['al', 'el', 'bin', 'bn', 'ibn', 'bint', 'binti', 'ould']);

/** Scripts written one syllable per character; transliterated per character (step 2). */
const SYLLABIC_CHAR = /[\p{Script=Han}\p{Script=Hangul}]/gu;
/** Apostrophe-like characters, before and after transliteration (step 4). */
const APOSTROPHES = /['’‘ʼʻʿʾ`´]/g;
/** German umlauts and their two-letter spellings, for the umlaut-aware variant. */
const UMLAUTS: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };

/** Tokens after steps 1–5, before noise and particle removal. */
function rawTokens(input: string): string[] {
  const nfkc = input.normalize('NFKC').replace(SYLLABIC_CHAR, (ch) => ` ${anyAscii(ch)} `);
  const ascii = anyAscii(nfkc).replace(APOSTROPHES, '').toLowerCase();
  return ascii.split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/** Steps 6–7 over raw tokens. */
function dropNoise(tokens: string[]): string[] {
  const withoutTitles = tokens.filter((t) => !NOISE_TOKENS.has(t));
  // A name made only of noise ("Mr") keeps its tokens rather than vanishing.
  const kept = withoutTitles.length > 0 ? withoutTitles : tokens;
  return kept.filter((t, i) => !(CONNECTIVE_PARTICLES.has(t) && i > 0 && i < kept.length - 1));
}

/** Normalised tokens of a name, in their original order; the unit of token-level matching. */
export function nameTokens(name: string): string[] {
  return dropNoise(rawTokens(name));
}

/** Normalised name: lower-case ASCII tokens joined by one space (see module comment). */
export function normalizeName(name: string): string {
  return nameTokens(name).join(' ');
}

/** Normalised tokens sorted alphabetically and joined, so "Smith John" and "John Smith" share one key. */
export function sortedTokenKey(name: string): string {
  return [...nameTokens(name)].sort().join(' ');
}

/**
 * Every normalisation of a name worth comparing: the plain one, plus the German spelling
 * (ä/ö/ü → ae/oe/ue) when the name has an umlaut. Distinct values, plain one first.
 */
export function nameVariants(name: string): string[] {
  const plain = normalizeName(name);
  // NFC so a decomposed "u + combining diaeresis" is seen as ü too.
  const composed = name.normalize('NFC');
  if (!/[äöüÄÖÜ]/.test(composed)) return [plain];
  const german = normalizeName(composed.replace(/[äöüÄÖÜ]/g, (ch) => UMLAUTS[ch] ?? ch));
  return german === plain ? [plain] : [plain, german];
}
