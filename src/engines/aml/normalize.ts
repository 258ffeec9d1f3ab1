/**
 * Name normalisation for AML matching and for the fingerprints of name and document list entries.
 * Both sides of every comparison (the screened name and every listed name; a session's name or
 * document number and a list entry's) go through the same functions, so the rules only need to
 * be symmetric, not linguistically perfect.
 *
 * `cleanText` is the one Unicode clean-up every name and document number goes through first
 * (security audit M2: invisible characters must not split or hide a name):
 * 1. Characters that render as nothing are removed: Default_Ignorable_Code_Point (zero-width
 *    joiners, soft hyphen, Hangul fillers U+115F/U+1160/U+3164/U+FFA0, variation selectors, tag
 *    characters U+E0000–E007F), format characters (Cf: U+FFF9 interlinear annotations, bidi
 *    marks), the braille blank U+2800 and control characters other than whitespace (NUL…). A
 *    zero-width non-joiner between two Arabic-script letters is a Persian morpheme break and
 *    becomes a space instead ("خامنه‌ای" → "خامنه ای").
 * 2. NFKC: full-width, mathematical and compatibility letters fold to their plain forms.
 * 3. Decimal digits of every script become ASCII digits ("٣٤" → "34").
 * 4. Inside a word that mixes Latin letters with letters of another script, every non-Latin
 *    letter that Unicode's confusables data (UTS #39, through the `unhomoglyph` package) says
 *    looks like a Latin letter becomes that letter ("Vlаdimir" with a Cyrillic а → "Vladimir").
 *    Words written wholly in another script are left to transliteration: "Владимир" is a
 *    Russian name, not a spoof. Document numbers fold every confusable (`documentNumberKey`).
 *
 * `nameTokens` / `nameVariants` (AML screening) then:
 * 5. Transliterate: Hangul syllable by syllable (Revised Romanization, and a second variant in
 *    the romanisation sanctions lists use for Korean names: "김정은" → "gim jeong eun" and
 *    "kim jong un"), Han one character at a time, everything else with `any-ascii` ("José" →
 *    "jose", "Владимир" → "vladimir"). The Arabic article written onto a word ("التكريتي") is
 *    split off first, as Latin spellings write it ("al-Tikriti"). Arabic and Hebrew script are
 *    unvocalised ("محمد" → "mhmd"); score.ts compares those through consonant skeletons.
 * 6. Apostrophes removed ("O'Brien" → "obrien"), other punctuation a space, lower case.
 * 7. Honorifics and generational suffixes (NOISE_TOKENS) dropped wherever they stand, unless that
 *    would leave no token; not in a name written in Arabic, Persian or Hebrew script, where "mr"
 *    is Omar (عمر) unvocalised.
 * 8. "Abd" with a fused article ("Abdul", "Abdel", "Abdulrahman") loses it, as "Abd al-" does;
 *    then particles (PARTICLES: al, el, bin, ibn, van, von, de…) dropped wherever they stand when at
 *    least two other tokens remain, so "al-Tikriti Saddam Hussein", "Saddam Hussein al-Tikriti"
 *    and "Saddam Hussein Tikriti" are one name on both sides. With fewer they are kept, because
 *    then they are usually a real name ("Al Smith", "Wang Bin", "Al-Qaida").
 * 9. German umlauts: a second variant with ä/ö/ü spelt ae/oe/ue when the name has one.
 * 10. Korean names in Latin letters: South Korea's Revised Romanization writes the vowels ㅓ and ㅡ
 *    "eo" and "eu", where the lists write McCune–Reischauer without its breves, "o" and "u"
 *    ("Kim Yeo-jong" is listed "KIM, Yo Jong"; "Kim Yeong-cheol" "KIM, Yong Chol"): a Latin name
 *    with "eo" or "eu" gets a variant with them spelt so. Other names with those letters
 *    ("Leon", "Eugene") only gain a spelling nobody is listed under.
 *
 * `sortedTokenKey` (name list fingerprints) is steps 1–4, then the token rules of the first
 * version of this module, frozen: fingerprints of list entries are stored as hashes only, so a
 * rule change there would silently stop every stored entry from matching (see LEGACY_PARTICLES).
 */
import anyAscii from 'any-ascii';
import unhomoglyph from 'unhomoglyph';

/**
 * Titles and suffixes that say nothing about identity; dropped anywhere in a name.
 * Deliberately small: "sheikh", "haji", "abu" are omitted because they are family names or name
 * parts often enough that dropping them would merge different people.
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
 * Article and patronymic particles whose presence varies between spellings of one name (Arabic
 * al/bin/ibn, Maghreb ben, Dutch van, German von, Romance de/da/di/del…); dropped on both sides
 * wherever they stand when two other tokens remain (module comment, step 8). "bn" and "wld" are
 * any-ascii's "بن" and "ولد" (ould).
 */
export const PARTICLES: ReadonlySet<string> = new Set([
  'al',
  'el',
  'bin',
  'ben',
  'bn',
  'ibn',
  'bint',
  'binti',
  'ould',
  'wld',
  'van',
  'von',
  'der',
  'den',
  'de',
  'da',
  'di',
  'du',
  'del',
  'della',
  'dos',
  'das',
  'la',
  'le',
]);

/**
 * The particles of the first normaliser, dropped only between two other tokens: frozen for name
 * list fingerprints, whose stored hashes were computed with them.
 */
export const LEGACY_PARTICLES: ReadonlySet<string> = new Set(['al', 'el', 'bin', 'bn', 'ibn', 'bint', 'binti', 'ould']);

/** Characters that render as nothing (step 1); the braille blank is a visible blank, not ignorable, but hides the same way. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]|[\0-\x08\x0E-\x1F\x7F-\x84\x86-\x9F]/gu;
/** A zero-width non-joiner between two Arabic-script letters: a Persian morpheme break (step 1). */
const PERSIAN_ZWNJ = /(?<=\p{Script=Arabic})\u200C(?=\p{Script=Arabic})/gu;
/** A decimal digit that is not ASCII (step 3). */
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;
/** A word: letters, marks and digits (step 4). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** Scripts written one syllable per character; transliterated per character (step 5). */
const SYLLABIC_CHAR = /[\p{Script=Han}\p{Script=Hangul}]/gu;
/** The Arabic definite article written onto a name (step 5): "ال" at the start of a word of at least two more letters. */
const ARABIC_ARTICLE = /(?<![\p{L}\p{M}])\u0627\u0644(?=\p{Script=Arabic}{2})/gu;
/** Apostrophe-like characters, before and after transliteration (step 6). */
const APOSTROPHES = /['’‘ʼʻʿʾ`´]/g;
/** Revised Romanization's "eo" (ㅓ) and "eu" (ㅡ), which the lists' romanisation writes "o" and "u" (step 10). */
const REVISED_ROMANIZATION_VOWELS = /e([ou])/g;
/**
 * Printable ASCII only: steps 1–5 leave such text as it is (nothing invisible, NFKC and any-ascii
 * are the identity on it, no other script), so they are skipped for it; most listed names are
 * (issue 29.5: the candidate forms dominated a large import).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** German umlauts and their two-letter spellings, for the umlaut-aware variant. */
const UMLAUTS: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };

/** Value (0–9) of a decimal digit of any script: Unicode keeps every script's digits as one run of ten, zero first. */
function digitValue(digit: string): string {
  let code = digit.codePointAt(0)!;
  let value = 0;
  while (/\p{Nd}/u.test(String.fromCodePoint(code - 1)) && value < 9) {
    code -= 1;
    value += 1;
  }
  return String(value);
}

/**
 * The Latin letter a character is confusable with (UTS #39 prototype), or the character itself
 * when its prototype is not one ASCII letter or digit. An upper-case character whose prototype
 * is `l` (Greek Ι, Cyrillic І) stands for `I`: the data maps I, l and 1 to one prototype.
 */
function latinLookalike(ch: string): string {
  if (ch.charCodeAt(0) < 128) return ch;
  const prototype = unhomoglyph(ch);
  if (!/^[A-Za-z0-9]$/.test(prototype)) return ch;
  return prototype === 'l' && ch !== ch.toLowerCase() ? 'I' : prototype;
}

/** True when a word holds Latin letters and letters of another script: a lookalike spoof, not a foreign name. */
function mixesLatin(word: string): boolean {
  return /\p{Script=Latin}/u.test(word) && /(?!\p{Script=Latin})\p{L}/u.test(word);
}

/**
 * The Unicode clean-up every name and document number goes through before any comparison
 * (module comment, steps 1–4), so invisible and lookalike characters cannot split or hide one.
 */
export function cleanText(input: string): string {
  if (PRINTABLE_ASCII.test(input)) return input;
  const visible = input.replace(PERSIAN_ZWNJ, ' ').replace(INVISIBLE, '').normalize('NFKC');
  return visible
    .replace(NON_ASCII_DIGIT, digitValue)
    .replace(WORD, (word) => (mixesLatin(word) ? [...word].map(latinLookalike).join('') : word));
}

/**
 * Canonical form of a document number for list fingerprints: cleaned, every lookalike folded to
 * its Latin letter (document numbers are Latin and digits), accents dropped, only letters and
 * digits kept, upper case ("AB 12-345" = "ab12345"; Cyrillic "Х1234567" = "X1234567").
 */
export function documentNumberKey(number: string): string {
  return [...cleanText(number)]
    .map(latinLookalike)
    .join('')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase();
}

/** Hangul jamo in syllable order (initial × medial × final), romanised as sanctions lists write Korean names (McCune–Reischauer without diacritics). */
const HANGUL_INITIALS = ['k', 'kk', 'n', 't', 'tt', 'r', 'm', 'p', 'pp', 's', 'ss', '', 'j', 'jj', 'ch', 'k', 't', 'p', 'h'];
const HANGUL_MEDIALS = [
  'a',
  'ae',
  'ya',
  'yae',
  'o',
  'e',
  'yo',
  'ye',
  'o',
  'wa',
  'wae',
  'oe',
  'yo',
  'u',
  'wo',
  'we',
  'wi',
  'yu',
  'u',
  'ui',
  'i',
];
const HANGUL_FINALS = [
  '',
  'k',
  'k',
  'k',
  'n',
  'n',
  'n',
  't',
  'l',
  'k',
  'm',
  'l',
  'l',
  'l',
  'p',
  'l',
  'm',
  'p',
  'p',
  't',
  't',
  'ng',
  't',
  't',
  'k',
  't',
  'p',
  't',
];
/** First precomposed Hangul syllable (가). */
const HANGUL_BASE = 0xac00;

/** One Hangul syllable in the lists' romanisation ("정" → "jong"), or undefined for another character. */
function hangulListStyle(ch: string): string | undefined {
  const index = ch.charCodeAt(0) - HANGUL_BASE;
  if (index < 0 || index >= 19 * 21 * 28) return undefined;
  const initial = HANGUL_INITIALS[Math.floor(index / (21 * 28))];
  const medial = HANGUL_MEDIALS[Math.floor(index / 28) % 21];
  return `${initial}${medial}${HANGUL_FINALS[index % 28]}`;
}

/**
 * How step 5 transliterates: `screening` as AML does, `korean-lists` the same with the lists'
 * Hangul romanisation instead of Revised Romanization, `fingerprint` as the first version did
 * (no Arabic article split), for the frozen fingerprint key.
 */
type Transliteration = 'screening' | 'korean-lists' | 'fingerprint';

/** Latin text of a cleaned name (step 5). */
function transliterate(cleaned: string, style: Transliteration): string {
  if (PRINTABLE_ASCII.test(cleaned)) return cleaned;
  const articled = style === 'fingerprint' ? cleaned : cleaned.replace(ARABIC_ARTICLE, 'al-');
  const spaced = articled.replace(
    SYLLABIC_CHAR,
    (ch) => ` ${(style === 'korean-lists' ? hangulListStyle(ch) : undefined) ?? anyAscii(ch)} `,
  );
  return anyAscii(spaced);
}

/** Lower-case ASCII tokens of transliterated text (step 6). */
function splitTokens(latin: string): string[] {
  return latin
    .replace(APOSTROPHES, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

/** Step 7: titles and suffixes out, unless nothing else is left. */
function dropTitles(tokens: string[]): string[] {
  const withoutTitles = tokens.filter((t) => !NOISE_TOKENS.has(t));
  return withoutTitles.length > 0 ? withoutTitles : tokens;
}

/**
 * Step 7 for screening: as dropTitles, except in a name written in Arabic, Persian or Hebrew
 * script, whose unvocalised transliterations are names that look like Latin titles ("عمر", Omar,
 * is "mr"); titles in those scripts are words of their own, not "mr" or "dr".
 */
function dropScreeningTitles(tokens: string[], cleaned: string): string[] {
  return isAbjad(cleaned) ? tokens : dropTitles(tokens);
}

/**
 * "Abd" with the article fused on, as Latin spellings write "Abd al-" ("Abdul Rahman", "Abdel
 * Aziz", "Abdulrahman"): the article alone is dropped (step 8), so the fused one goes too
 * ("abd rahman", "abdrahman"). Not before an "l" or fewer than three letters: "Abdullah",
 * "Abdallah" and "Abdolah" are Abd Allah, a name of its own.
 */
const ABD_WITH_ARTICLE = /^abd[aeiou]l(?!l)(?=$|[a-z]{3})/;

/** Step 8, first half: the article fused to "abd" dropped (ABD_WITH_ARTICLE). */
function foldAbdArticle(tokens: string[]): string[] {
  return tokens.map((t) => t.replace(ABD_WITH_ARTICLE, 'abd'));
}

/** Step 8, second half: particles out wherever they stand, when at least two other tokens remain. */
function dropParticles(tokens: string[]): string[] {
  const others = tokens.filter((t) => !PARTICLES.has(t));
  return others.length >= 2 ? others : tokens;
}

/** Normalised AML tokens of a name, in their original order; the unit of token-level matching. */
export function nameTokens(name: string): string[] {
  const cleaned = cleanText(name);
  return dropParticles(foldAbdArticle(dropScreeningTitles(splitTokens(transliterate(cleaned, 'screening')), cleaned)));
}

/** Normalised name: lower-case ASCII tokens joined by one space (see module comment). */
export function normalizeName(name: string): string {
  return nameTokens(name).join(' ');
}

/**
 * Key of a name list fingerprint: tokens sorted and joined, so "Smith John" and "John Smith" share
 * one. Steps 1–4 as everywhere, then the first version's token rules, frozen (module comment).
 */
export function sortedTokenKey(name: string): string {
  const tokens = dropTitles(splitTokens(transliterate(cleanText(name), 'fingerprint')));
  return tokens
    .filter((t, i) => !(LEGACY_PARTICLES.has(t) && i > 0 && i < tokens.length - 1))
    .sort()
    .join(' ');
}

/**
 * Every normalisation of a name worth comparing, distinct, plain one first: plus the German
 * spelling (ä/ö/ü → ae/oe/ue) when the name has an umlaut, the lists' romanisation of Korean
 * when it is written in Hangul, and the lists' vowels for Revised Romanization's "eo"/"eu" when
 * it is written in Latin letters (step 10).
 */
export function nameVariants(name: string): string[] {
  const plain = normalizeName(name);
  const variants = new Set([plain]);
  // NFC so a decomposed "u + combining diaeresis" is seen as ü too.
  const composed = name.normalize('NFC');
  if (/[äöüÄÖÜ]/.test(composed)) variants.add(normalizeName(composed.replace(/[äöüÄÖÜ]/g, (ch) => UMLAUTS[ch] ?? ch)));
  if (/\p{Script=Hangul}/u.test(composed))
    variants.add(dropParticles(foldAbdArticle(dropTitles(splitTokens(transliterate(cleanText(name), 'korean-lists'))))).join(' '));
  // Hangul is romanised the lists' way above; a Latin spelling may be Revised Romanization (step 10).
  else if (/e[ou]/.test(plain)) variants.add(plain.replace(REVISED_ROMANIZATION_VOWELS, '$1'));
  return [...variants];
}

/** True when a name is written in a script without written vowels (Arabic, Persian, Hebrew, Syriac), whose transliteration is consonants only. */
export function isAbjad(name: string): boolean {
  return /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}]/u.test(name);
}

/**
 * Consonant skeleton of a normalised token: what is left of a name when vowels and the letters
 * that stand for them are unwritten, as in Arabic, Persian and Hebrew script ("soleimani" and
 * "slymny" → "slmn"). The French "ch" for ش → sh ("Akkacha", عكاشة); c before e, i, y → s
 * ("Lounici", لونيسي), other c and q → k; the French "dj" for ج → j; vowels and y/w/v out; then a
 * word's final h's after another letter out (ta marbuta, also after "sh" as in عكاشة "kshh" and
 * "Akkacha" "kksh", both "ks"; Persian final -e, and "Taha" as "طه" is written: "th" → "t"
 * either way); only then zh → j, so the z and ta marbuta of حمزة ("hmzh") stay "hmz"; doubled
 * letters once. Also what a typo in every word of a name usually leaves intact
 * ("Nicloas Madruo" and "Nicolas Maduro" → "nkls mdr"). Can be empty.
 */
export function consonantSkeleton(token: string): string {
  // The rules above in two passes over the characters (issue 29.5: the regular expressions were most of a
  // large import's time); consonantSkeletonByRules states them and is the answer for anything but [a-z0-9].
  let kept = '';
  for (let i = 0; i < token.length; i += 1) {
    const ch = token[i]!;
    const next = token[i + 1];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))) return consonantSkeletonByRules(token);
    if (ch === 'c' && next === 'h') {
      kept += 'sh';
      i += 1;
    } else if (ch === 'c') kept += next === 'e' || next === 'i' || next === 'y' ? 's' : 'k';
    else if (ch === 'q') kept += 'k';
    else if (ch === 'd' && next === 'j') {
      kept += 'j';
      i += 1;
    } else if (!SKELETON_VOWELS.has(ch)) kept += ch;
  }
  let end = kept.length;
  while (end > 1 && kept[end - 1] === 'h') end -= 1;
  let skeleton = '';
  for (let i = 0; i < end; i += 1) {
    const ch = kept[i] === 'z' && kept[i + 1] === 'h' && i + 1 < end ? 'j' : kept[i]!;
    if (ch === 'j' && kept[i] === 'z') i += 1;
    if (ch !== skeleton[skeleton.length - 1]) skeleton += ch;
  }
  return skeleton;
}

/** Letters consonantSkeleton drops: vowels, and y, w and v, which stand for them. */
const SKELETON_VOWELS: ReadonlySet<string> = new Set(['a', 'e', 'i', 'o', 'u', 'y', 'w', 'v']);

/** consonantSkeleton as a sequence of rewriting rules: its definition, and its answer for tokens outside [a-z0-9]. */
export function consonantSkeletonByRules(token: string): string {
  return token
    .replace(/ch/g, 'sh')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/[qc]/g, 'k')
    .replace(/dj/g, 'j')
    .replace(/[aeiouywv]/g, '')
    .replace(/(?<=.)h+$/, '')
    .replace(/zh/g, 'j')
    .replace(/(.)\1+/g, '$1');
}

/** The skeleton form of a normalised name: each token's consonant skeleton, empty ones left out. */
export function skeletonName(normalized: string): string {
  return normalized
    .split(' ')
    .map(consonantSkeleton)
    .filter((t) => t.length > 0)
    .join(' ');
}
