/**
 * Turns raw OCR text lines into ICAO 9303 MRZ candidates and parses them with `mrz`. Pure: no
 * image work, so the repairs are testable on strings.
 *
 * Repairs are limited to what check digits or the MRZ grammar make safe: look-alike characters
 * in fields of one kind (`mrz`'s autocorrect, then re-validated by check digits), and the count of
 * `<` fillers, which OCR engines read as a run and often miscount by one or two.
 */
import { parse, type ParseResult } from 'mrz';

/** MRZ layouts we read: line count and characters per line (TD1 cards, TD2 cards, TD3 passports). */
export const MRZ_LAYOUTS = [
  { format: 'TD1', lines: 3, length: 30 },
  { format: 'TD2', lines: 2, length: 36 },
  { format: 'TD3', lines: 2, length: 44 },
] as const;

/** How far a read line's length may be from the layout's before we give up repairing it, in characters. */
const MAX_LENGTH_SLACK_CHARS = 3;

/** Characters OCR engines emit for MRZ glyphs, mapped to the MRZ alphabet. */
const LOOKALIKES: Record<string, string> = { '×': 'X', '«': '<', '‹': '<', '＜': '<', '〈': '<', К: 'K', О: 'O' };

/** Upper-cases, drops spaces and maps look-alike glyphs; what remains outside `[A-Z0-9<]` stays and fails the grammar. */
export function cleanOcrLine(text: string): string {
  return [...text.toUpperCase().replace(/\s+/g, '')].map((char) => LOOKALIKES[char] ?? char).join('');
}

/**
 * Brings a line to `length` by growing or shrinking its longest run of `<` (the one most likely
 * miscounted), or by padding/trimming trailing fillers. Returns null when the line is too far off.
 */
export function fitFillers(line: string, length: number): string | null {
  if (line.length === length) return line;
  if (Math.abs(line.length - length) > MAX_LENGTH_SLACK_CHARS) return null;
  const runs = [...line.matchAll(/<+/g)];
  if (runs.length === 0) return null;
  const longest = runs.reduce((best, run) => (run[0].length > best[0].length ? run : best));
  const delta = length - line.length;
  const newRunLength = longest[0].length + delta;
  if (newRunLength < 1) return null;
  const start = longest.index ?? 0;
  return line.slice(0, start) + '<'.repeat(newRunLength) + line.slice(start + longest[0].length);
}

/**
 * Name fields are `SURNAME<<GIVEN<NAMES<<<…`: after the given names end with `<<`, only fillers may
 * follow. OCR sometimes reads a stray letter inside the filler run (`<<K<<`); names carry no check
 * digit, so this grammar rule is the only protection.
 */
export function cleanNameFiller(nameField: string): string {
  const separator = nameField.indexOf('<<');
  if (separator < 0) return nameField;
  const end = nameField.indexOf('<<', separator + 2);
  if (end < 0) return nameField;
  return nameField.slice(0, end).padEnd(nameField.length, '<');
}

/** Applies `cleanNameFiller` to the name field of a layout (TD3/TD2 line 1 from col 5, TD1 line 3). */
function cleanNames(lines: string[], format: string): string[] {
  if (format === 'TD1') return [lines[0], lines[1], cleanNameFiller(lines[2])];
  return [lines[0].slice(0, 5) + cleanNameFiller(lines[0].slice(5)), ...lines.slice(1)];
}

/** The outcome of reading an MRZ out of OCR lines. */
export interface MrzRead {
  /** The MRZ lines as repaired and parsed. */
  lines: string[];
  /** The `mrz` parse result (with autocorrect); `valid` is true when every check digit holds. */
  result: ParseResult;
}

/**
 * Finds the best MRZ among OCR lines: every run of consecutive candidate lines that fits a
 * layout is repaired and parsed; the first whose check digits all hold wins, else the parse with
 * the fewest invalid fields (so the caller can say which check failed). Null when no run of lines
 * looks like an MRZ at all.
 */
export function findMrz(ocrLines: readonly string[]): MrzRead | null {
  const cleaned = ocrLines.map(cleanOcrLine).filter((line) => /^[A-Z0-9<]+$/.test(line) && line.includes('<'));
  let best: MrzRead | null = null;
  let bestInvalid = Infinity;
  for (const layout of MRZ_LAYOUTS) {
    for (let start = 0; start + layout.lines <= cleaned.length; start++) {
      const fitted = cleaned.slice(start, start + layout.lines).map((line) => fitFillers(line, layout.length));
      if (fitted.some((line) => line === null)) continue;
      const lines = cleanNames(fitted as string[], layout.format);
      let result: ParseResult;
      try {
        result = parse(lines, { autocorrect: true });
      } catch {
        continue;
      }
      if (result.valid) return { lines, result };
      const invalid = result.details.filter((detail) => !detail.valid).length;
      if (invalid < bestInvalid) {
        best = { lines, result };
        bestInvalid = invalid;
      }
    }
  }
  return best;
}
