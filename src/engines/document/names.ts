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

/** Upper-case ASCII words of a text line, each spelling a reader could have printed in the MRZ. */
function vizWords(line: string): string[] {
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

/**
 * The repair of one MRZ name word that the page justifies, or null: the page prints it with one
 * more letter (a dropped letter: `VZR` → `VZOR`); the page prints it without its last or first
 * letter, where that letter can be the missing half of the `<<` between family and given names
 * (`fillerAt`: `ULYSSEK<` → `ULYSSE<<`); or it is two page words joined by
 * a misread or dropped filler (`TESTKVOID` → `TEST<VOID`). Only a repair with a single outcome
 * counts.
 */
function repairWord(word: string, known: ReadonlySet<string>, fillerAt: { end: boolean; start: boolean }): string | null {
  const outcomes = new Set<string>();
  for (const candidate of known) if (missesOneLetter(word, candidate)) outcomes.add(candidate);
  if (outcomes.size === 0 && word.length >= 3) {
    if (fillerAt.end && known.has(word.slice(0, -1))) outcomes.add(`${word.slice(0, -1)}<`);
    if (fillerAt.start && known.has(word.slice(1))) outcomes.add(`<${word.slice(1)}`);
  }
  if (outcomes.size === 0) {
    for (let at = 2; at <= word.length - 2; at++) {
      const head = word.slice(0, at);
      for (const tail of [word.slice(at), word.slice(at + 1)]) {
        if (tail.length >= 2 && known.has(head) && known.has(tail)) outcomes.add(`${head}<${tail}`);
      }
    }
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
    const fillerAt = { end: !separated && field[offset + word.length] === '<', start: !separated && field[offset - 1] === '<' };
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
