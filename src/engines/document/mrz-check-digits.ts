/**
 * Check-digit-guided repair of a misread MRZ. ICAO 9303 fixes the character class of every
 * position (dates and check digits are digits; document numbers and optional data letters, digits
 * or fillers), and OCR confuses glyphs across classes (`0`/`O`/`D`, `8`/`B`, `1`/`I`, a filler
 * read as `K`) and, more rarely, digits with digits (`8`/`6`/`3`). When check digits fail, the
 * reads one or two such confusions away are tried and one is kept only when it is the single
 * cheapest way to make every check digit hold (each field's own and the composite): a forger's
 * broken MRZ is not "repaired" into a valid one by guessing.
 */

/** A range of one MRZ line: `[start, end)`. */
interface Span {
  line: number;
  start: number;
  end: number;
}

/** A field under a check digit: its characters and where the digit is. */
interface CheckedField {
  field: string;
  span: Span;
  digit: { line: number; at: number };
  /** Digits only (dates), else letters, digits and fillers. */
  numeric: boolean;
  /** The check digit may be `<` when the field is all fillers (TD3 personal number). */
  fillerDigitAllowed?: boolean;
}

/** A layout's checked fields and composite check digit (null for visas, which have none). */
interface CheckLayout {
  fields: CheckedField[];
  composite: { spans: Span[]; digit: { line: number; at: number } } | null;
  /** Positions covered only by the composite (optional data), repairable when only it fails. */
  optional: Span[];
}

const span = (line: number, start: number, end: number): Span => ({ line, start, end });

/** Check-digit layouts by line count and length (ICAO 9303 Parts 4–7). */
function layoutOf(lines: readonly string[]): CheckLayout | null {
  const visa = lines[0]?.startsWith('V') ?? false;
  const twoLine = (length: number): CheckLayout => {
    const optionalEnd = length === 44 ? 42 : 35;
    const fields: CheckedField[] = [
      { field: 'documentNumber', span: span(1, 0, 9), digit: { line: 1, at: 9 }, numeric: false },
      { field: 'birthDate', span: span(1, 13, 19), digit: { line: 1, at: 19 }, numeric: true },
      { field: 'expirationDate', span: span(1, 21, 27), digit: { line: 1, at: 27 }, numeric: true },
    ];
    if (visa) return { fields, composite: null, optional: [] };
    if (length === 44)
      fields.push({ field: 'personalNumber', span: span(1, 28, 42), digit: { line: 1, at: 42 }, numeric: false, fillerDigitAllowed: true });
    return {
      fields,
      composite: {
        spans: [span(1, 0, 10), span(1, 13, 20), span(1, 21, optionalEnd + (length === 44 ? 1 : 0))],
        digit: { line: 1, at: length - 1 },
      },
      optional: length === 44 ? [] : [span(1, 28, 35)],
    };
  };
  if (lines.length === 3 && lines.every((line) => line.length === 30)) {
    return {
      fields: [
        { field: 'documentNumber', span: span(0, 5, 14), digit: { line: 0, at: 14 }, numeric: false },
        { field: 'birthDate', span: span(1, 0, 6), digit: { line: 1, at: 6 }, numeric: true },
        { field: 'expirationDate', span: span(1, 8, 14), digit: { line: 1, at: 14 }, numeric: true },
      ],
      composite: { spans: [span(0, 5, 30), span(1, 0, 7), span(1, 8, 15), span(1, 18, 29)], digit: { line: 1, at: 29 } },
      optional: [span(0, 15, 30), span(1, 18, 29)],
    };
  }
  if (lines.length === 2 && lines.every((line) => line.length === 44)) return twoLine(44);
  if (lines.length === 2 && lines.every((line) => line.length === 36)) return twoLine(36);
  return null;
}

const WEIGHTS = [7, 3, 1];

/** ICAO 9303 check digit of `value` (weights 7-3-1; `<` = 0, A = 10 … Z = 35); null on a character outside the alphabet. */
export function icaoCheckDigit(value: string): number | null {
  let sum = 0;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    const code = char === '<' ? 0 : char >= '0' && char <= '9' ? Number(char) : char >= 'A' && char <= 'Z' ? char.charCodeAt(0) - 55 : -1;
    if (code < 0) return null;
    sum += code * WEIGHTS[index % 3];
  }
  return sum % 10;
}

/**
 * Letters and fillers OCR reads for a digit, and the digit meant (OCR-B glyphs; PaddleOCR on the
 * real specimen set): a numeric position holding one of these is that digit at no cost.
 */
const LETTER_FOR_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  Z: '2',
  S: '5',
  G: '6',
  B: '8',
  A: '4',
  T: '7',
};

/** Look-alikes across classes, both ways (cost 1 each): which characters a read one may have been. */
const CROSS_CLASS: Record<string, string> = {
  '0': 'OD',
  O: '0D',
  D: '0O',
  Q: 'O0',
  '1': 'I',
  I: '1',
  '2': 'Z',
  Z: '2',
  '5': 'S',
  S: '5<',
  '6': 'G',
  G: '6',
  '8': 'B',
  B: '8',
  '4': 'A',
  A: '4',
  K: '<',
  C: '<',
};

/** Digits OCR reads for other digits (cost 2 each: rarer than a cross-class confusion). */
const DIGIT_FOR_DIGIT: Record<string, string> = {
  '0': '896',
  '1': '74',
  '3': '8',
  '4': '1',
  '5': '6',
  '6': '58',
  '7': '1',
  '8': '0369',
  '9': '80',
};

/** Most confusions tried per field: each multiplies the candidates, and with them the chance that one fits a check digit by accident. */
const MAX_EDITS_PER_FIELD = 2;

/** Highest total cost of a repair (two cross-class confusions, or one digit-for-digit). */
const MAX_REPAIR_COST = 2;

/** One way to read a field and its check digit: the characters and what the change cost. */
interface Variant {
  chars: string;
  digit: string;
  cost: number;
}

/** Alternatives for one character of a field of the given class, with their costs. */
function alternatives(char: string, numeric: boolean, isDigit: boolean): { to: string; cost: number }[] {
  const out: { to: string; cost: number }[] = [];
  if (numeric || isDigit) {
    for (const digit of DIGIT_FOR_DIGIT[char] ?? '') out.push({ to: digit, cost: 2 });
    if (isDigit) for (const other of CROSS_CLASS[char] ?? '') if (/\d/.test(other)) out.push({ to: other, cost: 1 });
    return out;
  }
  for (const other of CROSS_CLASS[char] ?? '') out.push({ to: other, cost: 1 });
  for (const digit of /\d/.test(char) ? (DIGIT_FOR_DIGIT[char] ?? '') : '') out.push({ to: digit, cost: 2 });
  return out;
}

/** A `YYMMDD` date with a possible month and day. */
function plausibleDate(value: string): boolean {
  if (!/^\d{6}$/.test(value)) return false;
  const month = Number(value.slice(2, 4));
  const day = Number(value.slice(4, 6));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** The check digit holds (a `<` digit only over an all-filler field where that is allowed). */
function holds(field: CheckedField, chars: string, digit: string): boolean {
  if (digit === '<') return field.fillerDigitAllowed === true && /^<*$/.test(chars);
  if (field.numeric && !plausibleDate(chars)) return false;
  return String(icaoCheckDigit(chars)) === digit;
}

/**
 * Every way to read `field` within `MAX_REPAIR_COST` whose check digit holds, cheapest first. A
 * confusion is a glyph misread the same way wherever it occurs in the field (`S0002068` read
 * `SOOO2068` is one confusion, `0`→`O`, not three): replacing only some of the `O`s would make a
 * number the page does not print pass by the chance of the 7-3-1 weights.
 */
function fieldVariants(lines: readonly string[], field: CheckedField, maxCost: number): Variant[] {
  const raw = lines[field.span.line].slice(field.span.start, field.span.end);
  // Letters in a digit-only field are digits at no cost (`mrz`'s autocorrect does the same).
  const chars = field.numeric ? [...raw].map((char) => LETTER_FOR_DIGIT[char] ?? char).join('') : raw;
  const rawDigit = lines[field.digit.line][field.digit.at];
  const digit = LETTER_FOR_DIGIT[rawDigit] ?? rawDigit;
  const rules = [...new Set(chars)].flatMap((from) => alternatives(from, field.numeric, false).map((to) => ({ from, ...to })));
  const digitOptions = [{ to: digit, cost: 0 }, ...alternatives(digit, true, true)].filter((option) => option.cost <= maxCost);
  const variants: Variant[] = [];
  const visit = (from: number, text: string, cost: number, edits: number, used: ReadonlySet<string>) => {
    for (const option of digitOptions) {
      if (cost + option.cost <= maxCost && edits + (option.cost > 0 ? 1 : 0) <= MAX_EDITS_PER_FIELD && holds(field, text, option.to))
        variants.push({ chars: text, digit: option.to, cost: cost + option.cost });
    }
    if (edits === MAX_EDITS_PER_FIELD) return;
    for (let at = from; at < rules.length; at++) {
      const rule = rules[at];
      if (used.has(rule.from) || cost + rule.cost > maxCost) continue;
      visit(at + 1, text.split(rule.from).join(rule.to), cost + rule.cost, edits + 1, new Set([...used, rule.from]));
    }
  };
  visit(0, chars, 0, 0, new Set());
  return variants.sort((left, right) => left.cost - right.cost);
}

/** Writes `text` into `lines` at `span`. */
function put(lines: string[], where: Span, text: string): void {
  const line = lines[where.line];
  lines[where.line] = line.slice(0, where.start) + text + line.slice(where.end);
}

/** The composite check digit holds (true for layouts without one). */
function compositeHolds(layout: CheckLayout, lines: readonly string[]): boolean {
  if (!layout.composite) return true;
  const text = layout.composite.spans.map((part) => lines[part.line].slice(part.start, part.end)).join('');
  return String(icaoCheckDigit(text)) === lines[layout.composite.digit.line][layout.composite.digit.at];
}

/** The outcome of a repair: the lines and how many characters were changed. */
export interface CheckDigitRepair {
  lines: string[];
  /** Total cost of the confusions assumed (1 per cross-class look-alike, 2 per digit read as another). */
  cost: number;
}

/**
 * The single cheapest reading of `lines`, within `MAX_REPAIR_COST` look-alike confusions, under
 * which every check digit holds (each checked field's and the composite); null when there is
 * none, or more than one at that cost (the check digits cannot tell which, so none is guessed).
 * Lines whose check digits already hold are returned unchanged at cost 0.
 */
export function repairByCheckDigits(input: readonly string[]): CheckDigitRepair | null {
  const layout = layoutOf(input);
  if (!layout) return null;
  // Without a composite check digit (visas) each field has one witness only: a digit read as
  // another digit, which that one digit cannot tell from a broken document, is not assumed.
  const maxCost = layout.composite ? MAX_REPAIR_COST : 1;
  const perField = layout.fields.map((field) => fieldVariants(input, field, maxCost));
  if (perField.some((variants) => variants.length === 0)) return null;
  const solutions: CheckDigitRepair[] = [];
  const combine = (index: number, lines: string[], cost: number) => {
    if (cost > maxCost) return;
    if (index === layout.fields.length) {
      if (compositeHolds(layout, lines)) solutions.push({ lines, cost });
      else for (const repaired of optionalRepairs(layout, lines, cost)) solutions.push(repaired);
      return;
    }
    const field = layout.fields[index];
    for (const variant of perField[index]) {
      const next = [...lines];
      put(next, field.span, variant.chars);
      put(next, { line: field.digit.line, start: field.digit.at, end: field.digit.at + 1 }, variant.digit);
      combine(index + 1, next, cost + variant.cost);
    }
  };
  combine(0, [...input], 0);
  if (solutions.length === 0) return null;
  const cheapest = Math.min(...solutions.map((solution) => solution.cost));
  const best = solutions.filter((solution) => solution.cost === cheapest);
  const distinct = new Set(best.map((solution) => solution.lines.join('\n')));
  return distinct.size === 1 ? best[0] : null;
}

/** Readings with one confusion in the optional data or the composite digit that make the composite hold. */
function optionalRepairs(layout: CheckLayout, lines: string[], cost: number): CheckDigitRepair[] {
  if (!layout.composite || cost + 1 > MAX_REPAIR_COST) return [];
  const out: CheckDigitRepair[] = [];
  const places = [
    ...layout.optional.flatMap((part) =>
      Array.from({ length: part.end - part.start }, (_, offset) => ({ line: part.line, at: part.start + offset, isDigit: false })),
    ),
    { ...layout.composite.digit, isDigit: true },
  ];
  for (const place of places) {
    for (const option of alternatives(lines[place.line][place.at], false, place.isDigit)) {
      if (cost + option.cost > MAX_REPAIR_COST) continue;
      const next = [...lines];
      put(next, { line: place.line, start: place.at, end: place.at + 1 }, option.to);
      if (compositeHolds(layout, next)) out.push({ lines: next, cost: cost + option.cost });
    }
  }
  return out;
}
