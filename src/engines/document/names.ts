/**
 * Names in the MRZ carry no check digit, so a misread letter (`VZR` for `VZOR`, `CHEN` for
 * `CHIEN`) passes every check. The visual zone prints the same names, so the other text lines
 * read from the page are the second witness: a name word found there is confirmed; a word the
 * OCR read with one letter dropped, where the page shows exactly one word with that letter, is
 * restored from the page; anything else is left as read and, when the MRZ line was read with
 * low confidence, flagged for review by the engine.
 */
import anyAscii from 'any-ascii';

/**
 * Mean OCR confidence of the MRZ name line (0–1) below which a name the visual zone does not
 * confirm is flagged. Measured on the real specimen set: lines read right score 0.85–0.99,
 * lines with a misread or dropped letter 0.6–0.9, so this flags most misreads and few good reads.
 */
export const NAME_MIN_CONFIDENCE = 0.9;

/** ICAO 9303 Part 3 transliterations that differ from a plain ASCII fold (Ä → AE, not A). */
const ICAO_TRANSLITERATION: Record<string, string> = {
  Ä: 'AE',
  Ö: 'OE',
  Ü: 'UE',
  Å: 'AA',
  Ø: 'OE',
  Æ: 'AE',
  ß: 'SS',
  Þ: 'TH',
};

/** Upper-case ASCII words of a text line, each spelling a reader could have printed in the MRZ (ICAO 9303 Part 3 transliteration and a plain ASCII fold). */
export function vizWords(line: string): string[] {
  const upper = line.toUpperCase();
  const icao = [...upper].map((char) => ICAO_TRANSLITERATION[char] ?? char).join('');
  const words = new Set<string>();
  for (const variant of [upper, icao]) {
    for (const word of anyAscii(variant)
      .toUpperCase()
      .split(/[^A-Z]+/)) {
      if (word.length > 0) words.add(word);
    }
  }
  return [...words];
}

/** `shorter` is `longer` with exactly one character left out. */
function missesOneLetter(shorter: string, longer: string): boolean {
  if (longer.length !== shorter.length + 1) return false;
  for (let at = 0; at < longer.length; at++) {
    if (longer.slice(0, at) + longer.slice(at + 1) === shorter) return true;
  }
  return false;
}

/** Shortest page word a joined MRZ word may be split into (single letters are too common to prove anything). */
const MIN_SPLIT_WORD_CHARS = 2;

/**
 * Ways `word` reads as page words in a row, each pair joined by one misread filler or by none
 * (a dropped filler): `KOWALSKAKKWIATKOWSKA` → `KOWALSKA<KWIATKOWSKA`. Stops after two outcomes,
 * since only a single outcome is used.
 */
function splitIntoPageWords(word: string, known: ReadonlySet<string>): string[] {
  const outcomes: string[] = [];
  const walk = (rest: string, parts: string[]): void => {
    if (outcomes.length > 1) return;
    if (known.has(rest) && parts.length > 0) outcomes.push([...parts, rest].join('<'));
    for (let at = MIN_SPLIT_WORD_CHARS; at <= rest.length - MIN_SPLIT_WORD_CHARS; at++) {
      const head = rest.slice(0, at);
      if (!known.has(head)) continue;
      walk(rest.slice(at), [...parts, head]);
      if (at + 1 <= rest.length - MIN_SPLIT_WORD_CHARS) walk(rest.slice(at + 1), [...parts, head]);
    }
  };
  walk(word, []);
  return [...new Set(outcomes)];
}

/**
 * The repair of one MRZ name word that the page justifies, or null: the page prints it with one
 * more letter (a dropped letter: `VZR` → `VZOR`); it is page words joined by misread or dropped
 * fillers (`TESTKVOID` → `TEST<VOID`, `KOWALSKAKKWIATKOWSKA` → `KOWALSKA<KWIATKOWSKA`); or,
 * where its last or first letter touches fillers and can be a misread one (`fillerAt`: half of the
 * `<<` after the family name, or the first of the trailing fillers), the rest is such a word (`ULYSSEK<` → `ULYSSE<<`, `KOWALSKAKKWIATKOWSKAK<` → `KOWALSKA<KWIATKOWSKA<<`). Only a
 * repair with a single outcome counts.
 */
function repairWord(word: string, known: ReadonlySet<string>, fillerAt: { end: boolean; start: boolean }): string | null {
  const outcomes = new Set<string>();
  for (const candidate of known) if (missesOneLetter(word, candidate)) outcomes.add(candidate);
  if (outcomes.size === 0) for (const split of splitIntoPageWords(word, known)) outcomes.add(split);
  if (outcomes.size === 0 && word.length >= 3) {
    const wholeOrSplit = (part: string) => (known.has(part) ? [part] : splitIntoPageWords(part, known));
    if (fillerAt.end) for (const repair of wholeOrSplit(word.slice(0, -1))) outcomes.add(`${repair}<`);
    if (fillerAt.start) for (const repair of wholeOrSplit(word.slice(1))) outcomes.add(`<${repair}`);
  }
  return outcomes.size === 1 ? [...outcomes][0] : null;
}

/** How the names of an MRZ compare with the visual zone. */
export interface NameCheck {
  /** Family name (before the first `<<`), words separated by spaces; null when empty. */
  lastName: string | null;
  /** Given names (after it), likewise. */
  firstName: string | null;
  /** Every name word of two or more letters was found on the page (after any repair). */
  confirmed: boolean;
  /** Words repaired from the page, as `READ → PRINTED`. */
  restored: string[];
}

/** Words of a name part: `<` separates them. */
function nameWords(part: string): string | null {
  return part.replace(/</g, ' ').replace(/\s+/g, ' ').trim() || null;
}

/**
 * Compares an MRZ name field (`SURNAME<<GIVEN<NAMES<<<…`) with the other text read from the same
 * document, repairs what the page justifies (see `repairWord`), and splits the field into family
 * and given names at the first `<<` as ICAO 9303 does. Words of one letter are not judged
 * (initials are too common to confirm anything). A word is confirmed when a page word equals it
 * or starts with it (the MRZ truncates long names; the OCR may glue words).
 */
export function checkNamesAgainstViz(nameField: string, vizLines: readonly string[]): NameCheck {
  const words = vizLines.flatMap(vizWords);
  const known = new Set(words);
  const restored: string[] = [];
  let confirmed = true;
  const field = nameField.replace(/<+$/, '');
  // Only a field that lacks the family/given separator may have had half of it read as a letter.
  const separated = /[A-Z]<<[A-Z]/.test(field);
  const repaired = field.replace(/[A-Z]+/g, (word, offset: number) => {
    if (word.length < 2 || words.some((candidate) => candidate.startsWith(word))) return word;
    // The last word's last letter may be the first of the trailing fillers, separator or not.
    const last = offset + word.length === field.length;
    const fillerAt = {
      end: (!separated || last) && nameField[offset + word.length] === '<',
      start: !separated && field[offset - 1] === '<',
    };
    const repair = repairWord(word, known, fillerAt);
    if (repair !== null) {
      restored.push(`${word} → ${repair}`);
      return repair;
    }
    confirmed = false;
    return word;
  });
  const separator = repaired.indexOf('<<');
  const lastName = nameWords(separator < 0 ? repaired : repaired.slice(0, separator));
  const firstName = separator < 0 ? null : nameWords(repaired.slice(separator + 2));
  return { lastName, firstName, confirmed, restored };
}
