/**
 * Turns raw OCR text lines into ICAO 9303 MRZ candidates and parses them with `mrz`. Pure: no
 * image work, so the repairs are testable on strings.
 *
 * Repairs are limited to what check digits or the MRZ grammar make safe: look-alike characters
 * in fields of one kind (`mrz`'s autocorrect, then re-validated by check digits), and the count of
 * `<` fillers, which OCR engines read as a run and often miscount by one or two.
 */
import { parse, type ParseResult } from 'mrz';
import { repairByCheckDigits } from './mrz-check-digits.js';

/** MRZ layouts we read: line count and characters per line (TD1 cards, TD2 cards, TD3 passports). */
export const MRZ_LAYOUTS = [
  { format: 'TD1', lines: 3, length: 30 },
  { format: 'TD2', lines: 2, length: 36 },
  { format: 'TD3', lines: 2, length: 44 },
] as const;

/** How far a read line's length may be from the layout's before we give up repairing it, in characters. */
const MAX_LENGTH_SLACK_CHARS = 3;

/** Share of a layout's line length a line ending in fillers must have to be completed with fillers (see `fitFillers`). */
const MIN_TRUNCATED_LINE_SHARE = 0.5;

/** Characters OCR engines emit for MRZ glyphs, mapped to the MRZ alphabet. */
const LOOKALIKES: Record<string, string> = { '×': 'X', '«': '<', '‹': '<', '＜': '<', '〈': '<', К: 'K', О: 'O', ']': 'J' };

/**
 * Upper-cases, drops spaces and maps look-alike glyphs. In a line that already has a `<<` filler
 * run, any other glyph outside `[A-Z0-9<]` is a misread filler (PaddleOCR's Chinese dictionary
 * reads blurred `<<<` runs as `人人人`); elsewhere it stays and fails the grammar.
 */
export function cleanOcrLine(text: string): string {
  const mapped = [...text.toUpperCase().replace(/\s+/g, '')].map((char) => LOOKALIKES[char] ?? char).join('');
  return mapped.includes('<<') ? mapped.replace(/[^A-Z0-9<]/g, '<') : mapped;
}

/**
 * Brings a line to `length` by growing or shrinking its longest run of `<` (the one most likely
 * miscounted), or by padding/trimming trailing fillers. Returns null when the line is too far off.
 * A name line (`nameStart` = where its names begin) whose names are complete, surname `<<` given
 * names and then fillers, may be off by any count: only fillers follow, and OCR drops or splits
 * long filler runs. So may any line ending in fillers, down to half its length: it is completed
 * with fillers and left to the check digits.
 */
export function fitFillers(line: string, length: number, nameStart?: number): string | null {
  if (line.length === length) return line;
  if (nameStart !== undefined && /<<$/.test(line) && line.slice(nameStart).replace(/<+$/, '').includes('<<')) {
    const names = line.replace(/<+$/, '');
    if (names.length < length) return names.padEnd(length, '<');
  }
  if (line.length < length - MAX_LENGTH_SLACK_CHARS && line.length >= length * MIN_TRUNCATED_LINE_SHARE && /<<$/.test(line)) {
    // OCR drops much of a long trailing filler run (a German card's first line read as 21 of its
    // 30 characters). Only optional data ends a line with fillers, under the composite check digit
    // where the layout has one, so a wrong completion does not pass.
    return line.padEnd(length, '<');
  }
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
 * Letters PaddleOCR reads a `<` filler as (`K`, `S`, `C` on the real specimen set, where the
 * reverse, a letter read as `<`, was not seen): a filler in one read of a name line outweighs
 * one of these letters at the same place in another.
 */
export const FILLER_MISREADS: ReadonlySet<string> = new Set(['K', 'S', 'C']);

/**
 * Name fields are `SURNAME<<GIVEN<NAMES<<<…`: after the given names end with `<<`, only fillers may
 * follow. OCR sometimes reads a stray letter inside the filler run (`<<K<<`); names carry no check
 * digit, so this grammar rule is the only protection. Where such strays show the reader misread
 * this run of fillers, a one-letter word of `FILLER_MISREADS` that ends the given names is taken
 * for one more (`LOES<ALBERTINE<S<<S<K` → `LOES<ALBERTINE`); a real initial is kept when the
 * fillers after it were read clean.
 */
export function cleanNameFiller(nameField: string): string {
  const separator = nameField.indexOf('<<');
  if (separator < 0) return nameField;
  const end = nameField.indexOf('<<', separator + 2);
  if (end < 0) return nameField;
  let names = nameField.slice(0, end);
  if (/[A-Z]/.test(nameField.slice(end))) {
    for (let stray = /<([A-Z])$/.exec(names); stray && FILLER_MISREADS.has(stray[1]); stray = /<([A-Z])$/.exec(names)) {
      if (names.length - 2 <= separator + 2) break;
      names = names.slice(0, -2);
    }
  }
  return names.padEnd(nameField.length, '<');
}

/** Applies `cleanNameFiller` to the name field of a layout (TD3/TD2/MRV line 1 from col 5, TD1 line 3). */
function cleanNames(lines: string[], layoutFormat: string): string[] {
  if (layoutFormat === 'TD1') return [lines[0], lines[1], cleanNameFiller(lines[2])];
  return [lines[0].slice(0, 5) + cleanNameFiller(lines[0].slice(5)), ...lines.slice(1)];
}

/** ICAO 9303 layouts we tell apart: the three travel documents and the two machine-readable visas. */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB';

/**
 * Fields `mrz` checks that do not decide validity here: state codes are judged by the engine
 * (specimen, historic and unknown codes are results of their own, not a broken MRZ).
 */
const STATE_FIELDS: ReadonlySet<string> = new Set(['issuingState', 'nationality']);

/**
 * `mrz` has no visa layouts and parses an MRV-A as TD3 and an MRV-B as TD2 (same line lengths).
 * Visas have no personal-number or composite check digit (those positions are optional data)
 * and their document code is `V`, so these TD3/TD2 fields do not apply to them.
 */
const NOT_ON_VISAS: ReadonlySet<string> = new Set([
  'documentCode',
  'personalNumber',
  'personalNumberCheckDigit',
  'compositeCheckDigit',
  'optional',
  'optional1',
  'optional2',
]);

/** State codes are letters (or `<`); OCR digits for look-alike letters (`UT0`). All-digit codes stay (old Romanian cards print `132`). */
const STATE_DIGIT_LOOKALIKES: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '8': 'B' };

/** A state code as printed, fillers dropped and look-alike digits mapped to letters. */
function stateCode(raw: string | undefined): string | null {
  const code = (raw ?? '').replace(/<+$/, '').replace(/^<+/, '');
  if (!code) return null;
  if (/^\d+$/.test(code)) return code;
  return [...code].map((char) => STATE_DIGIT_LOOKALIKES[char] ?? char).join('');
}

/** Names in the MRZ use `<` between words. */
function mrzWords(value: string | null | undefined): string | null {
  if (!value) return null;
  return value.replace(/</g, ' ').replace(/\s+/g, ' ').trim() || null;
}

/** The fields of a read MRZ, as printed (dates still `YYMMDD`). */
export interface MrzFields {
  /** `P`, `I`, `ID`, `V`, `VC`, … (fillers dropped). */
  documentCode: string;
  /** Issuing state or organisation code as printed (`FRA`, `D`, `UTO`, …). */
  issuingState: string | null;
  /** Nationality code as printed. */
  nationality: string | null;
  /** Primary identifier, words separated by spaces. */
  lastName: string | null;
  /** Secondary identifier, words separated by spaces. */
  firstName: string | null;
  /** Document number (long TD1 numbers joined by `mrz`). */
  documentNumber: string | null;
  /** `YYMMDD`. */
  birthDate: string | null;
  /** `YYMMDD`. */
  expirationDate: string | null;
  /** `M`, `F` or `X` (`<` unspecified is null). */
  sex: string | null;
}

/** A text line of the page as the OCR found it: text, mean confidence, box corners (clockwise from top-left, pixels). */
export interface PageLine {
  text: string;
  mean?: number;
  box?: number[][];
}

/** The outcome of reading an MRZ out of OCR lines. */
export interface MrzRead {
  /** The MRZ lines as repaired and parsed. */
  lines: string[];
  /** Layout, visas told apart from TD2/TD3. */
  format: MrzFormat;
  /** Every check digit and field grammar that applies to the layout holds (state codes are judged by the engine). */
  valid: boolean;
  /** Parsed fields. */
  fields: MrzFields;
  /** The name field as read: `SURNAME<<GIVEN<NAMES<<<…` (TD1 line 3, else line 1 from column 6). */
  nameField: string;
  /** OCR confidence (0–1) of the line that holds the names; 1 when the lines came without one. */
  nameConfidence: number;
  /** The `mrz` parse result (with autocorrect), for the detail of which check failed. */
  result: ParseResult;
  /** The page's other text lines (the visual zone), which confirm the names; absent when only MRZ lines were given. */
  pageText?: string[];
  /** The page's text lines with their boxes, in the coordinates of the page read (locates the visual zone's fields). */
  pageLines?: PageLine[];
  /** Look-alike confusions the check digits resolved (`repairByCheckDigits`), 0 when read as is. */
  repairCost?: number;
}

/** One OCR line: its text and, when the reader gives one, its mean character confidence (0–1). */
export type OcrText = string | { text: string; mean?: number };

/** Interprets a parse of repaired lines for the layout; invalid = fields that apply and fail. */
function interpret(lines: string[], result: ParseResult, nameConfidence: number): { read: MrzRead; invalid: number } {
  const visa = lines[0].startsWith('V');
  const format: MrzFormat = visa ? (lines[0].length === 44 ? 'MRVA' : 'MRVB') : (result.format as MrzFormat);
  const applies = (field: string | null) => field !== null && !STATE_FIELDS.has(field) && !(visa && NOT_ON_VISAS.has(field));
  const raw = (field: string) => {
    const range = result.details.find((detail) => detail.field === field)?.ranges[0];
    return range ? lines[range.line].slice(range.start, range.end) : undefined;
  };
  const sex = raw('sex');
  // ICAO 9303 (8th edition) allows X for unspecified sex; `mrz` knows only M, F and <.
  const failed = (detail: ParseResult['details'][number]) => !detail.valid && !(detail.field === 'sex' && sex === 'X');
  const invalid = result.details.filter((detail) => applies(detail.field) && failed(detail)).length;
  const fields = result.fields;
  return {
    invalid,
    read: {
      lines,
      format,
      valid: invalid === 0,
      fields: {
        documentCode: lines[0].slice(0, 2).replace(/<+$/, ''),
        issuingState: stateCode(raw('issuingState')),
        nationality: stateCode(raw('nationality')),
        lastName: mrzWords(fields.lastName),
        firstName: mrzWords(fields.firstName),
        documentNumber: result.documentNumber ?? fields.documentNumber ?? null,
        birthDate: fields.birthDate ?? null,
        expirationDate: fields.expirationDate ?? null,
        sex: sex === 'M' || sex === 'F' || sex === 'X' ? sex : null,
      },
      nameField: format === 'TD1' ? lines[2] : lines[0].slice(5),
      nameConfidence,
      result,
    },
  };
}

/** Shortest chunk of an OCR line taken for a whole MRZ line when the reader joined two (TD1 lines are 30). */
const MIN_JOINED_LINE_CHARS = 25;

/**
 * PaddleOCR groups boxes into lines by their midlines, and on some pages puts both MRZ lines into
 * one, separated by a space and in either order. Two or more MRZ-like chunks (long, with a `<`)
 * are split apart, the one that starts like a first line (document code, then a state code) first.
 */
function splitJoinedLines(text: string): string[] {
  const chunks = text.trim().split(/\s+/);
  const mrzLike = chunks.filter((chunk) => chunk.length >= MIN_JOINED_LINE_CHARS && chunk.includes('<'));
  if (mrzLike.length < 2) return [text];
  const firstLine = (chunk: string) => (/^[ACIPV][A-Z<][A-Z<]{3}/.test(chunk.toUpperCase()) ? 0 : 1);
  return [...mrzLike].sort((left, right) => firstLine(left) - firstLine(right));
}

/**
 * Finds the best MRZ among OCR lines: every run of consecutive candidate lines that fits a
 * layout is repaired and parsed; the first whose check digits all hold wins, else the parse with
 * the fewest invalid fields (so the caller can say which check failed). Null when no run of lines
 * looks like an MRZ at all.
 */
export function findMrz(ocrLines: readonly OcrText[]): MrzRead | null {
  const cleaned = ocrLines
    .flatMap((line) => {
      const { text, mean = 1 } = typeof line === 'string' ? { text: line } : line;
      return splitJoinedLines(text).map((part) => ({ text: cleanOcrLine(part), mean }));
    })
    // A line with fillers, or a long run with digits: a visa's second line may use every optional position.
    .filter(
      (line) =>
        /^[A-Z0-9<]+$/.test(line.text) && (line.text.includes('<') || (/\d/.test(line.text) && line.text.length >= MIN_JOINED_LINE_CHARS)),
    );
  let best: MrzRead | null = null;
  let bestInvalid = Infinity;
  for (const layout of MRZ_LAYOUTS) {
    for (let start = 0; start + layout.lines <= cleaned.length; start++) {
      const group = cleaned.slice(start, start + layout.lines);
      const nameLine = layout.format === 'TD1' ? 2 : 0;
      const fitted = group.map((line, index) =>
        fitFillers(line.text, layout.length, index === nameLine ? (nameLine === 2 ? 0 : 5) : undefined),
      );
      if (fitted.some((line) => line === null)) continue;
      const lines = cleanNames(fitted as string[], layout.format);
      let result: ParseResult;
      try {
        result = parse(lines, { autocorrect: true });
      } catch {
        continue;
      }
      const { read, invalid } = interpret(lines, result, group[nameLine].mean);
      if (read.valid) return read;
      const repaired = repairedRead(lines, group[nameLine].mean);
      if (repaired) return repaired;
      if (invalid < bestInvalid) {
        best = read;
        bestInvalid = invalid;
      }
    }
  }
  return best;
}

/**
 * The read of `lines` that the check digits single out among its look-alike readings (a `0` read
 * as `O` in a document number, an `8` as `B` in a date, a filler as `K` in optional data), when
 * it parses valid; null otherwise. Names and state codes are under no check digit and untouched.
 */
function repairedRead(lines: string[], nameConfidence: number): MrzRead | null {
  const repair = repairByCheckDigits(lines);
  if (!repair || repair.cost === 0) return null;
  try {
    const { read } = interpret(repair.lines, parse(repair.lines, { autocorrect: true }), nameConfidence);
    return read.valid ? { ...read, repairCost: repair.cost } : null;
  } catch {
    return null;
  }
}

/**
 * For each character of `primary`, the character of `other` aligned with it (fewest edits,
 * Levenshtein), or null where `other` has none; reads of one line differ by dropped and extra
 * characters as well as by misread ones, so positions alone do not line up.
 */
export function alignTo(primary: string, other: string): (string | null)[] {
  const rows = primary.length + 1;
  const columns = other.length + 1;
  const cost: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const substitution = cost[row - 1][column - 1] + (primary[row - 1] === other[column - 1] ? 0 : 1);
      cost[row][column] = Math.min(substitution, cost[row - 1][column] + 1, cost[row][column - 1] + 1);
    }
  }
  const aligned: (string | null)[] = Array.from({ length: primary.length }, () => null);
  let row = primary.length;
  let column = other.length;
  while (row > 0 && column > 0) {
    const substitution = cost[row - 1][column - 1] + (primary[row - 1] === other[column - 1] ? 0 : 1);
    if (cost[row][column] === substitution) {
      aligned[row - 1] = other[column - 1];
      row--;
      column--;
    } else if (cost[row][column] === cost[row - 1][column] + 1) row--;
    else column--;
  }
  return aligned;
}

/**
 * The name field `nameField` with each letter of `FILLER_MISREADS` that another read of the same
 * line (`otherReads`, e.g. the MRZ zone at another scale) saw as `<` turned back into a filler:
 * `SPECIMEN<<TESTKVOID` and `SPECIMEN<<TEST<VOID` give `SPECIMEN<<TEST<VOID`. Letters outside
 * that set are never changed, so a name word can lose a misread filler but not gain a letter.
 */
export function withFillerEvidence(nameField: string, otherReads: readonly string[]): string {
  const chars = [...nameField];
  for (const other of otherReads) {
    alignTo(nameField, other).forEach((seen, at) => {
      if (seen === '<' && FILLER_MISREADS.has(chars[at])) chars[at] = '<';
    });
  }
  return chars.join('');
}

/**
 * `read` with its name field replaced (same length), re-parsed; the check digits are untouched
 * (no name field is under one), so validity stays. `read` itself when the new lines do not parse.
 */
export function withNameField(read: MrzRead, nameField: string): MrzRead {
  const lines =
    read.format === 'TD1' ? [read.lines[0], read.lines[1], nameField] : [read.lines[0].slice(0, 5) + nameField, ...read.lines.slice(1)];
  const repaired = cleanNames(lines, read.format === 'TD1' ? 'TD1' : read.format);
  try {
    const { read: reparsed } = interpret(repaired, parse(repaired, { autocorrect: true }), read.nameConfidence);
    return reparsed.valid === read.valid ? { ...reparsed, pageText: read.pageText, pageLines: read.pageLines } : read;
  } catch {
    return read;
  }
}
