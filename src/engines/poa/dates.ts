/**
 * Dates printed on proof-of-address documents, and which one is the issue date.
 *
 * Accepted forms (case-insensitive, English month names and 3-letter abbreviations, optional
 * ordinal suffix "12th"):
 * - year first: `2026-03-12`, `2026/03/12`, `2026.03.12` (always year-month-day);
 * - day then month name: `12 March 2026`, `12 Mar 2026`, `12-Mar-2026`, `12th of March, 2026`;
 * - month name then day: `March 12, 2026`, `Mar 12 2026`;
 * - numeric `12/03/2026`, `12.03.2026`, `12-03-2026` (also with a 2-digit year, read as 20yy):
 *   day first, except for `MONTH_FIRST_COUNTRIES` where month comes first. When the country's
 *   order gives an impossible date (a month above 12) the other order is used, so `03/25/2026`
 *   reads as 25 March even for a day-first country.
 * Month names are read in English, French, German, Dutch, Spanish and Italian (`7. Mai 2014`,
 * `29 maart 2014`, `02 Juillet 2015`).
 */
import type { LayoutCell } from './layout.js';

/** Countries that write numeric dates month first (MM/DD/YYYY): the US and its territories, the Philippines, Micronesia, the Marshall Islands, Palau. */
export const MONTH_FIRST_COUNTRIES: ReadonlySet<string> = new Set(['US', 'AS', 'GU', 'MP', 'PR', 'VI', 'UM', 'PH', 'FM', 'MH', 'PW']);

/**
 * Labels that name the issue date itself (English, French, German, Dutch, Spanish, Italian): a date
 * beside or below one of them wins over any other.
 */
const ISSUE_LABELS =
  /(?<![\p{L}])(?:statement date|issue date|date of issue|issued(?: on)?|bill(?:ing)? date|invoice date|letter date|date of statement|document date|date mailed|mailing date|dated|date de (?:la )?facture|date d'émission|rechnungsdatum|ausstellungsdatum|factuurdatum|factuur datum|fecha de (?:la )?factura|fecha de emisión|data (?:della )?fattura)(?![\p{L}])/iu;
/** Weaker labels: a bare "Date", "as of", an invoice or statement number dated with "du" / "of" / "vom" / "van". */
const GENERIC_ISSUE_LABELS =
  /(?<![\p{L}])(?:date|datum|fecha|data|as of|(?:facture|invoice|rechnung|factuur|statement)(?![\p{L}]).*(?<![\p{L}])(?:du|of|vom|van|del))(?![\p{L}])/iu;
/**
 * Labels of dates that are not the issue date: due dates, periods, orders, birth, expiry, readings,
 * automatic payments, check-in (English, French, German, Dutch, Spanish, Italian).
 */
const OTHER_DATE_LABELS =
  /(?<![\p{L}])(?:due|pay(?:ment)? by|period|from|to|until|through|birth|dob|expir\p{L}*|valid\p{L}*|next (?:bill\p{L}*|reading)|reading date|meter|order\p{L}*|draft on|deducted|limite|paiement|échéance|fällig\p{L}*|verval\p{L}*|lever\p{L}*|liefer\p{L}*|check[ -]?(?:in|out)|vencimiento|scadenza)(?![\p{L}])/iu;

/** Month names (English, French, German, Dutch, Spanish, Italian) and their usual abbreviations, lower case. */
const MONTH_NAMES: Readonly<Record<string, number>> = Object.fromEntries(
  [
    ['jan', 'january', 'janvier', 'janv', 'januar', 'januari', 'enero', 'ene', 'gennaio', 'gen'],
    ['feb', 'february', 'février', 'fevrier', 'févr', 'fevr', 'februar', 'februari', 'febrero', 'febbraio'],
    ['mar', 'march', 'mars', 'märz', 'maerz', 'maart', 'mrt', 'marzo'],
    ['apr', 'april', 'avril', 'avr', 'abril', 'abr', 'aprile'],
    ['may', 'mai', 'mei', 'mayo', 'maggio', 'mag'],
    ['jun', 'june', 'juin', 'juni', 'junio', 'giugno', 'giu'],
    ['jul', 'july', 'juillet', 'juil', 'juli', 'julio', 'luglio', 'lug'],
    ['aug', 'august', 'août', 'aout', 'augustus', 'agosto', 'ago'],
    ['sep', 'sept', 'september', 'septembre', 'septiembre', 'settembre', 'set'],
    ['oct', 'october', 'octobre', 'oktober', 'okt', 'octubre', 'ottobre', 'ott'],
    ['nov', 'november', 'novembre', 'noviembre'],
    ['dec', 'december', 'décembre', 'decembre', 'déc', 'dezember', 'dez', 'diciembre', 'dic', 'dicembre'],
  ].flatMap((names, index) => names.map((name) => [name, index + 1])),
);
/** Any month name, longest first so `march` is not read as `mar` + `ch`. */
const MONTH_NAME = `(${Object.keys(MONTH_NAMES)
  .sort((x, y) => y.length - x.length)
  .join('|')})\\.?`;
/** A day of the month with an optional ordinal suffix (`12th`, `1er`) or German period (`7.`). */
const DAY = '(\\d{1,2})(?:st|nd|rd|th|er|\\.)?';
/** Start and end of a token: no letter or digit touching (JavaScript's `\b` ignores accented letters). */
const START = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';

const YEAR_FIRST = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/g;
const DAY_MONTH_NAME = new RegExp(`${START}${DAY}(?:\\s+of)?[\\s-]+${MONTH_NAME}[\\s,-]+(\\d{4})${END}`, 'giu');
const MONTH_NAME_DAY = new RegExp(`${START}${MONTH_NAME}\\s+${DAY}\\s*,?\\s+(\\d{4})${END}`, 'giu');
const NUMERIC = /\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})\b/g;

/** One date found in a text. */
export interface FoundDate {
  /** `YYYY-MM-DD`. */
  iso: string;
  /** Offset of the match in the line, for ordering. */
  index: number;
}

/** `YYYY-MM-DD` of a calendar date, or undefined when it does not exist (31 February). */
export function isoDate(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1900 || year > 2999) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

function monthNumber(name: string): number {
  return MONTH_NAMES[name.toLowerCase().replace(/\.$/, '')] ?? 0;
}

/** Every date in one line of text, in reading order; `country` sets the numeric day/month order. */
export function findDates(line: string, country?: string): FoundDate[] {
  const found: FoundDate[] = [];
  const taken: [number, number][] = [];
  const add = (match: RegExpExecArray, iso: string | undefined) => {
    const start = match.index;
    const end = start + match[0].length;
    if (!iso || taken.some(([s, e]) => start < e && end > s)) return;
    taken.push([start, end]);
    found.push({ iso, index: start });
  };
  for (const m of line.matchAll(YEAR_FIRST)) add(m, isoDate(Number(m[1]), Number(m[2]), Number(m[3])));
  for (const m of line.matchAll(DAY_MONTH_NAME)) add(m, isoDate(Number(m[3]), monthNumber(m[2]), Number(m[1])));
  for (const m of line.matchAll(MONTH_NAME_DAY)) add(m, isoDate(Number(m[3]), monthNumber(m[1]), Number(m[2])));
  const monthFirst = country !== undefined && MONTH_FIRST_COUNTRIES.has(country.toUpperCase());
  for (const m of line.matchAll(NUMERIC)) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const year = m[3].length === 2 ? 2000 + Number(m[3]) : Number(m[3]);
    const preferred = monthFirst ? isoDate(year, a, b) : isoDate(year, b, a);
    add(m, preferred ?? (monthFirst ? isoDate(year, b, a) : isoDate(year, a, b)));
  }
  return found.sort((x, y) => x.index - y.index);
}

/** How strongly a cell's text names the issue date: 2 for an issue-date label, 1 for a generic date label, 0 otherwise. */
function issueLabelStrength(text: string): 0 | 1 | 2 {
  const strength = ISSUE_LABELS.test(text) ? 2 : GENERIC_ISSUE_LABELS.test(text) ? 1 : 0;
  if (strength === 0) return 0;
  // "Next billing date", "Date limite de paiement", "Due date": a label of another date around the issue word.
  return OTHER_DATE_LABELS.test(text) ? 0 : strength;
}

/**
 * The issue date of a document laid out in rows of cells (layout.ts): the date a label names,
 * found in the label's own cell after the label, in the next cell of its row (a value beside its
 * label) or in the cell below it within two rows that overlaps it horizontally (a table header
 * over its value; for OCR text without positions, the next line). Issue-date labels ("Bill
 * date", "Rechnungsdatum") win over generic ones ("Date", "as of"); without any labelled date,
 * the first date whose row names no other kind of date (due, period, order, expiry, …).
 * Undefined when the text has no usable date.
 */
export function findIssueDateInRows(rows: readonly (readonly LayoutCell[])[], country?: string): string | undefined {
  const labelled: [string | undefined, string | undefined] = [undefined, undefined];
  let fallback: string | undefined;
  for (const [r, row] of rows.entries()) {
    for (const [c, cell] of row.entries()) {
      const strength = issueLabelStrength(cell.text);
      if (strength > 0 && labelled[strength - 1] === undefined) {
        labelled[strength - 1] =
          findDates(cell.text, country)[0]?.iso ?? valueBeside(rows, r, c, country) ?? valueBelow(rows, r, cell, country);
      }
    }
    if (fallback === undefined) {
      const text = row.map((cell) => cell.text).join(' ');
      const first = findDates(text, country)[0];
      if (first && !OTHER_DATE_LABELS.test(text)) fallback = first.iso;
    }
  }
  return labelled[1] ?? labelled[0] ?? fallback;
}

/** The date in the cell right of `rows[r][c]`, when there is one. */
function valueBeside(rows: readonly (readonly LayoutCell[])[], r: number, c: number, country?: string): string | undefined {
  const next = rows[r][c + 1];
  return next && issueLabelStrength(next.text) === 0 ? findDates(next.text, country)[0]?.iso : undefined;
}

/** The date in the first cell of the next two rows that lies under `label` (any cell when positions are unknown). */
function valueBelow(rows: readonly (readonly LayoutCell[])[], r: number, label: LayoutCell, country?: string): string | undefined {
  const positioned = label.right > label.left;
  for (const row of rows.slice(r + 1, r + 3)) {
    const below = row.find((cell) => !positioned || (cell.left < label.right && cell.right > label.left));
    if (!below) continue;
    return findDates(below.text, country)[0]?.iso;
  }
  return undefined;
}

/** `findIssueDateInRows` over plain lines (one cell each, no positions). */
export function findIssueDate(lines: readonly string[], country?: string): string | undefined {
  return findIssueDateInRows(
    lines.map((text) => [{ text, left: 0, right: 0 }]),
    country,
  );
}

/** Milliseconds in one day. */
const DAY_MS = 86_400_000;

/** Whole days from `issuedAt` (`YYYY-MM-DD`) to the UTC calendar day of `now`; negative for a future date. */
export function ageInDays(issuedAt: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((today - Date.parse(`${issuedAt}T00:00:00Z`)) / DAY_MS);
}
