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
 */

/** Countries that write numeric dates month first (MM/DD/YYYY): the US and its territories, the Philippines, Micronesia, the Marshall Islands, Palau. */
export const MONTH_FIRST_COUNTRIES: ReadonlySet<string> = new Set(['US', 'AS', 'GU', 'MP', 'PR', 'VI', 'UM', 'PH', 'FM', 'MH', 'PW']);

/** Labels that introduce the issue date; a date on such a line wins over any other. */
const ISSUE_LABELS =
  /\b(statement date|issue date|date of issue|issued(?: on)?|bill date|billing date|invoice date|letter date|date of statement|document date|dated|date)\b/i;
/** Labels of dates that are not the issue date (due dates, periods, birth dates, expiry). */
const OTHER_DATE_LABELS =
  /\b(due|pay by|payment by|period|from|to|until|through|birth|dob|expir|valid|next (?:bill|reading)|reading date|meter)\b/i;

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAME =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';

const YEAR_FIRST = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/g;
const DAY_MONTH_NAME = new RegExp(`\\b${DAY}(?:\\s+of)?[\\s-]+${MONTH_NAME}[\\s,-]+(\\d{4})\\b`, 'gi');
const MONTH_NAME_DAY = new RegExp(`\\b${MONTH_NAME}\\s+${DAY},?\\s+(\\d{4})\\b`, 'gi');
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
  return MONTHS[name.toLowerCase().slice(0, 3)] ?? 0;
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

/**
 * The issue date of a document: the first date on a line labelled as the issue or statement
 * date; otherwise the first date on a line that is not labelled as another kind of date (due
 * date, billing period, birth date, expiry). Undefined when the text has no usable date.
 */
export function findIssueDate(lines: readonly string[], country?: string): string | undefined {
  let fallback: string | undefined;
  for (const [i, line] of lines.entries()) {
    const dates = findDates(line, country);
    // A label alone on its line ("Statement date") with the date on the next line.
    const labelOnly = dates.length === 0 && ISSUE_LABELS.test(line) && !OTHER_DATE_LABELS.test(line) && line.length < 40;
    if (labelOnly) {
      const next = findDates(lines[i + 1] ?? '', country)[0];
      if (next) return next.iso;
    }
    if (dates.length === 0) continue;
    if (ISSUE_LABELS.test(line) && !OTHER_DATE_LABELS.test(line.replace(ISSUE_LABELS, ''))) return dates[0].iso;
    if (fallback === undefined && !OTHER_DATE_LABELS.test(line)) fallback = dates[0].iso;
  }
  return fallback;
}

/** Milliseconds in one day. */
const DAY_MS = 86_400_000;

/** Whole days from `issuedAt` (`YYYY-MM-DD`) to the UTC calendar day of `now`; negative for a future date. */
export function ageInDays(issuedAt: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((today - Date.parse(`${issuedAt}T00:00:00Z`)) / DAY_MS);
}
