/**
 * The visual inspection zone (VIZ) of a data page, read from the OCR lines of the same photo as
 * the MRZ and compared with it: the first forgery check (an MRZ re-printed under another name or
 * date of birth than the page shows). Fields are located by their printed labels (ICAO 9303 Part 4
 * prints bilingual captions such as `Surname/Nom`, `Date of birth/Date de naissance`; national
 * cards use their own language), the value being the nearest text below the caption or after a
 * colon on the same line. On the page an MRZ was read from, the zone is placed by the MRZ (ICAO
 * 9303 geometry: above it on TD2/TD3 pages; a TD1 card's MRZ side usually shows none), and the date
 * of birth and document number whose captions the OCR garbles are taken by their place in the
 * zone (`readVisualZoneByMrz`). A field the page does not show, or the OCR cannot read (or reads
 * unclearly, for a value taken by position), is not judged.
 */
import anyAscii from 'any-ascii';
import { cleanOcrLine, type MrzFields, type MrzFormat, type PageLine } from './mrz-text.js';
import { vizWords } from './names.js';

/** Fields of the visual zone, as printed (names with their accents), dates as `YYMMDD`. */
export interface VizFields {
  /** Family name as printed, e.g. `MÜLLER`; null when not found. */
  last_name: string | null;
  /** Given names as printed. */
  first_name: string | null;
  /** The whole name when the page prints one caption for it (`Name/Nom: ERIKSSON, ANNA MARIA`). */
  full_name: string | null;
  /** Document number, letters and digits only. */
  document_number: string | null;
  /** `YYMMDD`. */
  date_of_birth: string | null;
  /** `YYMMDD`. */
  expiry_date: string | null;
}

/** A field the VIZ and the MRZ print differently. */
export interface VizMismatch {
  field: 'last_name' | 'first_name' | 'document_number' | 'date_of_birth' | 'expiry_date';
  viz: string;
  mrz: string;
}

/**
 * Caption words of each field, ASCII-folded and lower-cased, in the languages of common documents.
 * Dates and numbers match inside glued words (PaddleOCR drops spaces: `Dateofexpiry`); short name
 * words only as whole words (`nom` is in `prenom`).
 */
const CAPTIONS: { field: keyof VizFields; pattern: RegExp }[] = [
  // One caption for the whole name: `Name (Surname, Given names)`, `Name（Last,First）`, also as the
  // OCR reads the small caption of ICAO's visa specimens (`Suname.Givennames`, `Suname,Given namee`).
  { field: 'full_name', pattern: /(su(?:rn|m|n|r)ames?|last)\W{0,3}(given ?nam\w*|first)\b/ },
  // ICAO 9303 Part 5/6 captions of TD1/TD2 cards (`Primary identifier/Identifiant primaire`).
  // (The OCR often reads their `I` and `i` as `l`: `ldentlfiant`.)
  { field: 'last_name', pattern: /(primary ?[il1]dent|[il1]dent[il1]f[il1]ant ?primaire)/ },
  { field: 'first_name', pattern: /(secondary ?[il1]dent|[il1]dent[il1]f[il1]ant ?secondaire)/ },
  {
    field: 'first_name',
    pattern:
      /\b(given ?names?|forenames?|first names?|prenoms?|vornamen?|nombres?|nome|imiona?|voornamen|etunimet|fornamn|fornavn|keresztnev|jmena?|krstne|ime)\b/,
  },
  {
    field: 'last_name',
    pattern:
      /\b(su(?:rn|m|n|r)ames?|family names?|last names?|nom|nachname|familienname|apellidos?|cognome|nazwisko|achternaam|sukunimi|efternamn|etternavn|vezeteknev|prijmeni|priezvisko|prezime)\b/,
  },
  { field: 'full_name', pattern: /^(name|names|nom|naam|nimi)\b/ },
  {
    field: 'date_of_birth',
    pattern:
      /(birth(date|day)?|naissance|geburtstag|geburtsdatum|nacimiento|nascita|urodzenia|geboortedatum|syntymaaika|fodelsedatum|narozeni|rodenia|rodjenja)\b/,
  },
  {
    field: 'expiry_date',
    pattern:
      /(expiry|expiration|expires|valid ?until|valide jusqu|gultig ?bis|caducidad|scadenza|waznosci|geldig tot|voimassa|giltig till|platnost|platnosti|vaznosti|date of exp)(\b|(?=\d))/,
  },
  {
    field: 'document_number',
    pattern:
      /(passport ?n|document ?n|doc\.? ?n|card ?n|no\.? de passeport|n. de passeport|passnummer|pass-nr|dokumentnummer|numero|numer|paspoortnummer|id no)\w*/,
  },
];

/** A caption found in a line: its field, where in the line's text it starts and where its match ends. */
interface Caption {
  field: keyof VizFields;
  index: number;
  end: number;
}

/** Captions of different fields starting closer than this, in characters, are one bilingual caption. */
const BILINGUAL_CAPTION_CHARS = 12;

/** A caption starting at `index` is the second language of `caption`: right after its match, past a slash (`…Given names/Nom`). */
function secondLanguageOf(folded: string, caption: Caption, index: number): boolean {
  const between = folded.slice(caption.end, index);
  return index >= caption.end && between.length <= 3 && between.includes('/') && !/[a-z0-9]/.test(between);
}

/**
 * The captions a line carries, left to right. PaddleOCR joins captions printed side by side into
 * one line (`Date of birth/Date de naissance Personal No./N° personnel`), so a line may hold
 * several; a bilingual caption names one field in two languages and counts once.
 */
function captionsOf(text: string): Caption[] {
  const folded = anyAscii(text).toLowerCase();
  // A caption is short or bilingual; a long line without a slash that mentions "name" is a value or a
  // sentence, unless it holds several captions (the second-language row of captions side by side).
  const sentence = folded.replace(/[^a-z]/g, '').length > 40 && !folded.includes('/');
  const found: Caption[] = [];
  for (const { field, pattern } of CAPTIONS) {
    const match = pattern.exec(folded);
    if (!match || found.some((caption) => caption.field === field)) continue;
    // `Place of birth/Lieu de naissance` is not the date.
    const before = folded.slice(Math.max(0, match.index - 12), match.index);
    if (
      field === 'date_of_birth' &&
      /(\b(place|lieu|ort|lugar|luogo|miejsce)\b|(place|lieu|lugar|luogo|miejsce) ?(of|de|di)? ?\W?$)/.test(before)
    )
      continue;
    // `Name/Nom`, `Surname/Nom`: one caption in two languages; also a longer one whose second
    // language follows its slash (`Surname, Given names/Nom, Prénoms`).
    if (
      found.some(
        (caption) => Math.abs(caption.index - match.index) < BILINGUAL_CAPTION_CHARS || secondLanguageOf(folded, caption, match.index),
      )
    )
      continue;
    found.push({ field, index: match.index, end: match.index + match[0].length });
  }
  if (sentence && found.length < 2) return [];
  return found.sort((left, right) => left.index - right.index);
}

/** Box of a line: left, top, right, bottom. */
function bounds(line: PageLine): { left: number; top: number; right: number; bottom: number } | null {
  if (!line.box || line.box.length < 4) return null;
  const xs = line.box.map(([x]) => x);
  const ys = line.box.map(([, y]) => y);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

/** How far below a caption its value may start, in caption heights. */
const VALUE_MAX_GAP_HEIGHTS = 2.5;

/**
 * The value printed under a caption: the nearest non-caption line below, starting within its
 * width, that `fits` (a date field's value holds a date: the second line of a bilingual caption,
 * `Valide jusqu'au` under `Valid until/`, is not its value). With `fromLeft`, a line starting
 * further left also counts when it reaches under the caption: PaddleOCR joins a value with what is
 * printed left of it in the same row (a visa's number under its photo: `L8988901C ERIKSSONANNAMARIA`).
 */
function valueBelow(
  caption: PageLine,
  lines: readonly PageLine[],
  fits: (text: string) => boolean = () => true,
  fromLeft = false,
): PageLine | null {
  const at = bounds(caption);
  if (!at) return null;
  const height = Math.max(1, at.bottom - at.top);
  let best: { line: PageLine; distance: number } | null = null;
  for (const line of lines) {
    if (line === caption || captionsOf(line.text).length > 0 || !fits(line.text)) continue;
    const box = bounds(line);
    if (!box) continue;
    const gap = box.top - at.bottom;
    if (gap < -height / 2 || gap > VALUE_MAX_GAP_HEIGHTS * height) continue;
    if (box.left > at.right || (box.left < at.left - 2 * height && !(fromLeft && box.right > at.left + 2 * height))) continue;
    const distance = gap + Math.abs(Math.max(box.left, at.left - 2 * height) - at.left) / 4;
    if (!best || distance < best.distance) best = { line, distance };
  }
  return best?.line ?? null;
}

/** Month names and abbreviations on data pages, to their number. */
const MONTHS: Record<string, number> = {};
for (const [number, names] of [
  [1, 'jan janv january janvier januar enero ene gen'],
  [2, 'feb fev fevr february fevrier februar febrero'],
  [3, 'mar mars march marz marzo'],
  [4, 'apr avr april avril abril abr'],
  [5, 'may mai mayo mag'],
  [6, 'jun juin june juni junio giu'],
  [7, 'jul juil july juillet juli julio lug'],
  [8, 'aug aout august august agosto ago'],
  [9, 'sep sept september septembre septiembre set'],
  [10, 'oct october octobre oktober octubre okt ott'],
  [11, 'nov november novembre noviembre'],
  [12, 'dec des december decembre dezember diciembre dez dic'],
] as const) {
  for (const name of names.split(' ')) MONTHS[name] = number;
}

/** Two digits. */
const pad = (value: number) => String(value).padStart(2, '0');

/** A date found in a text: `YYMMDD`, its year as printed (two or four digits), and where in the text it starts. */
interface FoundDate {
  date: string;
  year: string;
  index: number;
}

/**
 * Printed date forms, each standing alone between spaces or punctuation (not glued to letters or
 * digits: `JAN7JAN85` is an OCR slip, not the 7th of January): `12 AUG/AOUT 74` (the month in
 * several languages, the first known one counts), `1974-08-12`, `12.08.1974`, `12/08/74`,
 * `12 08 1974`, and the forms the OCR leaves when it drops separators, `12081974`, `12.081974`,
 * `1208.1974` (four-digit years only, so a personal number is not taken for a date).
 */
const DATE_FORMS: { pattern: RegExp; read: (match: RegExpExecArray) => string | null; year: number }[] = [
  {
    pattern: /(?<![a-z0-9])(\d{1,2})\s*([a-z]{3,9}\.?(?:\s*\/\s*[a-z]{3,9}\.?)*)\s*(\d{4}|\d{2})(?![a-z0-9])/g,
    read: (match) => {
      const month = match[2]
        .split('/')
        .map((word) => MONTHS[word.replace(/[\s.]/g, '')])
        .find((number) => number !== undefined);
      return month === undefined ? null : dateOf(Number(match[1]), month, match[3]);
    },
    year: 3,
  },
  {
    pattern: /(?<![a-z0-9])(\d{4})-(\d{2})-(\d{2})(?![a-z0-9])/g,
    read: (match) => dateOf(Number(match[3]), Number(match[2]), match[1]),
    year: 1,
  },
  {
    pattern: /(?<![a-z0-9])(\d{1,2})\s*[./\- ]\s*(\d{1,2})\s*[./\- ]\s*(\d{4}|\d{2})(?![a-z0-9])/g,
    read: (match) => dateOf(Number(match[1]), Number(match[2]), match[3]),
    year: 3,
  },
  {
    pattern: /(?<![a-z0-9])(\d{2})\.?(\d{2})\.?((?:19|20)\d{2})(?![a-z0-9])/g,
    read: (match) => dateOf(Number(match[1]), Number(match[2]), match[3]),
    year: 3,
  },
];

/** Every printed date of a text, left to right (day first, as ICAO 9303 prints dates in the VIZ). */
export function datesIn(text: string): FoundDate[] {
  const folded = anyAscii(text).toLowerCase();
  const found: (FoundDate & { end: number })[] = [];
  for (const { pattern, read, year } of DATE_FORMS) {
    for (const match of folded.matchAll(pattern)) {
      const index = match.index ?? 0;
      const end = index + match[0].length;
      // The first form that reads a stretch of text owns it.
      if (found.some((other) => index < other.end && other.index < end)) continue;
      const date = read(match as RegExpExecArray);
      if (date) found.push({ date, year: match[year], index, end });
    }
  }
  return found.sort((left, right) => left.index - right.index).map(({ date, year, index }) => ({ date, year, index }));
}

/**
 * A printed date as `YYMMDD`, or null: `12 AUG/AOUT 74`, `12 AUG 1974`, `12.08.1974`,
 * `12/08/74`, `12 08 1974`, `1974-08-12`. Day-first, as ICAO 9303 prints dates in the VIZ.
 */
export function parseVizDate(text: string): string | null {
  return datesIn(text)[0]?.date ?? null;
}

/** `YYMMDD` of a day, month and a year of two or four digits; null when impossible. */
function dateOf(day: number, month: number, year: string): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return `${year.slice(-2)}${pad(month)}${pad(day)}`;
}

/** Where (0–1 across the line) a character offset of a line falls: PaddleOCR gives one box per line, not per word. */
const shareAt = (text: string, index: number) => (text.length === 0 ? 0 : index / text.length);

/** Slack, as a share of the line's width, between where a caption starts and where its value does. */
const COLUMN_SLACK_SHARE = 0.08;

/**
 * The text of a caption's value: what follows a colon on the caption's own line, else the part
 * of the line below that stands under this caption (from its column to the next caption's).
 */
function valueText(line: PageLine, captions: readonly Caption[], which: number, lines: readonly PageLine[]): string | null {
  const caption = captions[which];
  // A date's value has digits: a line without any is the caption's second language (`Valide jusqu'au`).
  const fits = caption.field === 'date_of_birth' || caption.field === 'expiry_date' ? (text: string) => /\d/.test(text) : undefined;
  const colon = line.text.indexOf(':', caption.index);
  const nextIndex = captions[which + 1]?.index ?? line.text.length;
  if (colon >= 0 && colon < nextIndex && line.text.slice(colon + 1, nextIndex).trim().length > 1)
    return line.text.slice(colon + 1, nextIndex).trim();
  // A date printed right after its caption on the same line (`CARD EXPIRES 11/01/94`).
  if (fits && datesIn(line.text.slice(caption.index, nextIndex)).length > 0) return line.text.slice(caption.index, nextIndex);
  const names = caption.field === 'full_name' || caption.field === 'last_name' || caption.field === 'first_name';
  const below = valueBelow(line, lines, fits, names);
  const at = bounds(line);
  const under = below ? bounds(below) : null;
  if (!below || !at || !under) return null;
  // A lone caption at the line's start, or one caption for the whole name, owns the whole line below.
  if (captions.length === 1 && (caption.index < BILINGUAL_CAPTION_CHARS || caption.field === 'full_name')) return below.text.trim();
  const width = at.right - at.left;
  const from = at.left + width * (shareAt(line.text, caption.index) - COLUMN_SLACK_SHARE);
  const to = which + 1 < captions.length ? at.left + width * (shareAt(line.text, nextIndex) - COLUMN_SLACK_SHARE) : Infinity;
  const tokens: string[] = [];
  let offset = 0;
  for (const token of below.text.split(' ')) {
    const x = under.left + (under.right - under.left) * shareAt(below.text, offset);
    offset += token.length + 1;
    if (x >= from && x < to && token) tokens.push(token);
  }
  return tokens.join(' ') || null;
}

/** Name values are compared in the Latin script only: `any-ascii` spells other scripts its own way, not as the MRZ does (`林健聖` is not `CHEN SHENG`). */
function latinName(value: string): string | null {
  const words = value.split(/\s+/).filter((word) => /\p{L}/u.test(word) && !/[^\p{Script=Latin}\p{P}\p{S}]/u.test(word));
  return words.length > 0 ? words.join(' ') : null;
}

/**
 * The words of a name value. Its words holding digits are another column's number the OCR joined
 * to the name (`0 TRAVELER 00000473` under `Surname Registration Number`, `L8988901C
 * ERIKSSONANNAMARIA`) and are left out; a value with digits and a date or a month's name is (part
 * of) a date cut by the column estimate (`12 AUG/AOUT`), not a name: empty.
 */
function nameWords(value: string): string {
  if (!/\d/.test(value)) return value;
  const words = value.split(/\s+/).filter((word) => !/\d/.test(word));
  const monthName = (word: string) =>
    anyAscii(word)
      .toLowerCase()
      .split(/[/.]/)
      .some((part) => MONTHS[part] !== undefined);
  if (datesIn(value).length > 0 || words.some(monthName)) return '';
  return words.join(' ');
}

/** Reads the captioned fields of some page lines; fields without a caption found stay null. */
function readCaptioned(lines: readonly PageLine[]): VizFields {
  const fields: VizFields = {
    last_name: null,
    first_name: null,
    full_name: null,
    document_number: null,
    date_of_birth: null,
    expiry_date: null,
  };
  for (const line of lines) {
    const captions = captionsOf(line.text);
    captions.forEach(({ field }, which) => {
      if (fields[field] !== null) return;
      const value = valueText(line, captions, which, lines);
      if (!value) return;
      if (field === 'date_of_birth' || field === 'expiry_date') fields[field] = parseVizDate(value);
      else if (field === 'document_number') {
        const number = value
          .toUpperCase()
          .split(/\s+/)
          .find((token) => /\d/.test(token) && token.replace(/[^A-Z0-9]/g, '').length >= 5);
        fields.document_number = number ? number.replace(/[^A-Z0-9]/g, '') : null;
      } else {
        const latin = latinName(nameWords(value));
        fields[field] = latin && /\p{L}{2}/u.test(latin) ? latin.replace(/\s+/g, ' ') : null;
      }
    });
  }
  return fields;
}

/** Reads the captioned fields of a page (no MRZ to place them by); fields without a caption found stay null. */
export function readVisualZone(lines: readonly PageLine[]): VizFields {
  return readCaptioned(lines);
}

/**
 * Where the visual zone was looked for: `located` above the MRZ found on the page (ICAO 9303
 * geometry); `mrz_side_only` when the page is the MRZ side of a TD1 card and no compared field
 * is found by its caption (ICAO 9303 Part 5 prints names and dates on the front: nothing to
 * compare on this page); `unlocated` when the MRZ lines are not among the page's lines (a page read turned)
 * and the whole page was searched by captions.
 */
export type VizZone = 'located' | 'mrz_side_only' | 'unlocated';

/** The MRZ the visual zone is placed by: its layout and issuing state as read. */
export interface MrzPlacement {
  format: MrzFormat;
  /** Issuing state code as the MRZ prints it (`UTO`, `D<<`). */
  issuingState: string | null;
}

/**
 * Height of the page above the MRZ's top, as a share of the MRZ's printed width, per ICAO 9303
 * layout (TD3 data page 88 mm high over a 112 mm MRZ line, TD2 74 over 91, TD1 54 over 76, less
 * the MRZ itself), with a fifth more for perspective and for boxes tighter than the print.
 */
const ZONE_HEIGHT_SHARE: Record<MrzFormat, number> = { TD3: 0.77, TD2: 0.75, TD1: 0.55, MRVA: 0.77, MRVB: 0.75 };

/** Share of the MRZ's width the page may reach beyond it on either side (the MRZ starts and ends about 5 mm from the edges). */
const ZONE_SIDE_SHARE = 0.12;

/** A line of the MRZ itself: fillers, or a long run of MRZ characters only. */
function isMrzLine(text: string): boolean {
  const clean = cleanOcrLine(text);
  return clean.includes('<<') || (clean.length >= 26 && /^[A-Z0-9<]+$/.test(clean) && clean.includes('<'));
}

/** The boxes of the MRZ lines among some page lines, with their extent; null when none is found or one has no box. */
function mrzBoxes(lines: readonly PageLine[]) {
  const mrz = lines.filter((line) => isMrzLine(line.text)).map(bounds);
  if (mrz.length === 0 || mrz.some((box) => !box)) return null;
  const boxes = mrz as NonNullable<ReturnType<typeof bounds>>[];
  const left = Math.min(...boxes.map((box) => box.left));
  const right = Math.max(...boxes.map((box) => box.right));
  const top = Math.min(...boxes.map((box) => box.top));
  const lineHeight = Math.min(...boxes.map((box) => box.bottom - box.top));
  // A page read sideways gives tall, page-sized boxes: no geometry to go by.
  return { left, right, top, width: right - left, lineHeight, upright: right - left >= 8 * lineHeight };
}

/**
 * The MRZ lines of a page were found with boxes, but not upright (a photo taken sideways, which
 * PaddleOCR still reads in page-sized boxes): worth reading the page again turned, so that the
 * visual zone can be placed (`readVisualZoneByMrz`).
 */
export function mrzSeenSideways(lines: readonly PageLine[]): boolean {
  const found = mrzBoxes(lines);
  return found !== null && !found.upright;
}

/** The page lines of the visual zone above the MRZ, by ICAO 9303 geometry; null when the MRZ lines are not found upright among them. */
function zoneAboveMrz(lines: readonly PageLine[], format: MrzFormat): PageLine[] | null {
  const found = mrzBoxes(lines);
  if (!found?.upright) return null;
  const { left, right, top, width, lineHeight } = found;
  const highest = top - ZONE_HEIGHT_SHARE[format] * width;
  return lines.filter((line) => {
    const box = bounds(line);
    if (!box || isMrzLine(line.text)) return false;
    const centre = (box.left + box.right) / 2;
    return (
      box.bottom <= top + lineHeight / 2 &&
      box.top >= highest &&
      centre >= left - ZONE_SIDE_SHARE * width &&
      centre <= right + ZONE_SIDE_SHARE * width
    );
  });
}

/** Lines in reading order: top to bottom (a row is lines whose middles are within half a line of each other), left to right. */
function readingOrder(lines: readonly PageLine[]): PageLine[] {
  const placed = lines.flatMap((line) => {
    const box = bounds(line);
    return box ? [{ line, box, middle: (box.top + box.bottom) / 2 }] : [];
  });
  placed.sort((a, b) => {
    const rowGap = (Math.min(a.box.bottom - a.box.top, b.box.bottom - b.box.top) || 1) / 2;
    return Math.abs(a.middle - b.middle) <= rowGap ? a.box.left - b.box.left : a.middle - b.middle;
  });
  return placed.map(({ line }) => line);
}

/**
 * Mean OCR confidence (0–1) a line needs for a value taken by its position (no caption to back
 * it). On the real specimen set the number and date lines of sharp pages read 0.94–0.99 and the
 * blurred page whose number came out `LE58907C3` for `L898902C3` read 0.72.
 */
export const POSITION_MIN_CONFIDENCE = 0.85;

/** The line was read clearly enough for a value taken by position (lines without a confidence count as clear). */
const clear = (line: PageLine) => (line.mean ?? 1) >= POSITION_MIN_CONFIDENCE;

/** Dates a zone must show before its first is taken for the date of birth by position, unless two are far apart (`MAX_VALIDITY_YEARS`). */
const MIN_DATES_FOR_BIRTH_BY_POSITION = 3;

/**
 * Longest span, in years, between a travel document's issue and its expiry (ICAO 9303 passports
 * are valid 10 years at most; a few states issued 15): two dates of a zone further apart than
 * this are not an issue and an expiry, so the earlier one is the date of birth.
 */
const MAX_VALIDITY_YEARS = 15;

/** The dates of a zone in reading order, each with the line it was read on. */
function zoneDates(zone: readonly PageLine[]) {
  return readingOrder(zone).flatMap((line) => datesIn(line.text).map((found) => ({ ...found, line })));
}

/** `YYYYMMDD` shifted by some years. */
const yearsLater = (date: string, years: number) => `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;

/**
 * The date of birth of a TD2/TD3 data page by the ICAO 9303 field order (Part 4/6: date of birth,
 * then date of issue, then date of expiry, top to bottom): the first date of the zone, when its
 * line was read clearly (`POSITION_MIN_CONFIDENCE`) and either the zone shows at least three
 * dates and that first one is earlier than every other, or it shows two and the second is more
 * than `MAX_VALIDITY_YEARS` after the first (so the pair is not an issue and an expiry, the birth
 * missed). Other counts or orders (a card printing `issue-expiry` only, a date misread) leave it
 * unknown.
 */
function birthByPosition(zone: readonly PageLine[], today: Date): string | null {
  const dates = zoneDates(zone);
  if (dates.length < 2) return null;
  const [first, ...rest] = dates;
  if (!clear(first.line)) return null;
  const birth = fullYear(first, today, 0);
  if (dates.length < MIN_DATES_FOR_BIRTH_BY_POSITION)
    return yearsLater(birth, MAX_VALIDITY_YEARS) < fullYear(rest[0], today, 20) ? first.date : null;
  return rest.every((other) => other.date === first.date || birth < fullYear(other, today, 20)) ? first.date : null;
}

/**
 * A token printed as a date on its own: a date form of `datesIn` covering it, or six digits read
 * day first (`010113`, the OCR having dropped the dots of `01.01.13`), as ICAO 9303 orders VIZ dates.
 */
function tokenDate(token: string): string | null {
  const six = /^(\d{2})(\d{2})(\d{2})$/.exec(token);
  if (six) return dateOf(Number(six[1]), Number(six[2]), six[3]);
  const found = datesIn(token);
  return found.length === 1 && found[0].index === 0 ? found[0].date : null;
}

/**
 * The date of expiry of a line printing the date of issue and the date of expiry side by side and
 * nothing else (`010103 010113`, `12.08.2013 11.08.2023`, as many cards print them without
 * captions): two dates, the second a whole number of years (1 to `MAX_VALIDITY_YEARS`) after the
 * first, on the same day or the day before. No other pair of printed dates (a birth and an issue)
 * keeps day and month, so the reading is not ambiguous; any other line gives nothing.
 */
function expiryOfIssuePair(lines: readonly PageLine[]): string | null {
  for (const line of lines) {
    const tokens = line.text.trim().split(/\s+/);
    if (tokens.length !== 2) continue;
    const [issue, expiry] = tokens.map(tokenDate);
    if (!issue || !expiry || !clear(line)) continue;
    const years = (Number(expiry.slice(0, 2)) - Number(issue.slice(0, 2)) + 100) % 100;
    if (years < 1 || years > MAX_VALIDITY_YEARS) continue;
    // Both in the same year (the century does not matter, only the day within it).
    const [anniversary, until] = [issue, expiry].map((date) => Date.UTC(2000, Number(date.slice(2, 4)) - 1, Number(date.slice(4, 6))));
    if (until === anniversary || until === anniversary - 86_400_000) return expiry;
  }
  return null;
}

/**
 * `YYYYMMDD` of a found date: its year as printed when four digits, else the latest year not
 * more than `ahead` years after today (0 for a birth, 20 for an issue or an expiry).
 */
function fullYear(found: FoundDate, today: Date, ahead: number): string {
  if (found.year.length === 4) return `${found.year}${found.date.slice(2)}`;
  const limit = today.getUTCFullYear() + ahead;
  let year = Math.floor(limit / 100) * 100 + Number(found.year);
  if (year > limit) year -= 100;
  return `${year}${found.date.slice(2)}`;
}

/**
 * The document number of a TD2/TD3 data page by position: ICAO 9303 prints type, issuing state
 * and number side by side at the top of zone II (`P UTO L898902C3`), so the letters and digits
 * after the issuing state's code, on the first line that shows that code as a word. A number
 * split by the OCR (`ZS 0000177`) is joined up to the 9 characters of the MRZ field, and a
 * bilingual caption the OCR merged in before it (`GBR Code/Codie 707797979`) is skipped.
 */
function numberByPosition(zone: readonly PageLine[], issuingState: string | null): string | null {
  const state = issuingState?.replace(/</g, '') ?? '';
  if (state.length !== 3) return null;
  for (const line of readingOrder(zone)) {
    const tokens = line.text.toUpperCase().split(/\s+/);
    const at = tokens.indexOf(state);
    if (at < 0) continue;
    if (!clear(line)) return null;
    let number = '';
    for (const token of tokens.slice(at + 1)) {
      // A bilingual caption the OCR merged into the values' line (`GBR Code/Codie 707797979`), before the number.
      if (number === '' && /^\p{L}+\/\p{L}*$/u.test(token)) continue;
      if (!/^[A-Z0-9]+$/.test(token) || number.length + token.length > 9) break;
      number += token;
      if (number.length >= 6 && /\d/.test(number)) return number;
    }
    return null;
  }
  return null;
}

/**
 * Fields of a visa's visual zone left out of the comparison: names only are compared on visas.
 * ICAO 9303 Part 7's own MRV-A and MRV-B specimens print a date of birth (`07 SEP/SEP 86`) and a
 * validity (`10 DEC/DEC 16`) that their MRZ does not carry (`400907`, `961210`), and the MRZ's
 * document number is the passport's on some visas (the US and ICAO specimens, under `Passport
 * Number`) and the visa's own on others (the Polish specimen: `PL0000000`, passport `AA 0000000`),
 * so a difference in these fields proves nothing.
 */
const VISA_FIELDS_NOT_COMPARED = { document_number: null, date_of_birth: null, expiry_date: null } as const;

/**
 * Reads the visual zone of the page an MRZ was read on, placed by the MRZ (ICAO 9303 geometry):
 * TD2/TD3 pages (and visas) are searched above the MRZ only (not the facing page, a screen's
 * toolbar, the MRZ itself); on visas the names only are kept (`VISA_FIELDS_NOT_COMPARED`); on TD2/TD3 pages, the date of birth and the document number the
 * captions did not give are taken by their place in the zone (`birthByPosition`,
 * `numberByPosition`); a TD1 card side with its MRZ where no compared field is found by its
 * caption is the back, with nothing to compare (`mrz_side_only`).
 */
export function readVisualZoneByMrz(
  lines: readonly PageLine[],
  mrz: MrzPlacement,
  today: Date = new Date(),
): { fields: VizFields; zone: VizZone } {
  const zone = zoneAboveMrz(lines, mrz.format);
  if (!zone) return { fields: readCaptioned(lines.filter((line) => !isMrzLine(line.text))), zone: 'unlocated' };
  if (mrz.format === 'TD1') {
    // The front of a card may be photographed beside its back: its captions count wherever they are.
    const pageLines = lines.filter((line) => !isMrzLine(line.text));
    const fields = readCaptioned(pageLines);
    fields.expiry_date ??= expiryOfIssuePair(pageLines);
    const anything = Object.values(fields).some((value) => value !== null);
    return { fields, zone: anything ? 'located' : 'mrz_side_only' };
  }
  const fields = readCaptioned(zone);
  if (mrz.format === 'MRVA' || mrz.format === 'MRVB') return { fields: { ...fields, ...VISA_FIELDS_NOT_COMPARED }, zone: 'located' };
  if (mrz.format === 'TD2' || mrz.format === 'TD3') {
    fields.date_of_birth ??= birthByPosition(zone, today);
    fields.expiry_date ??= expiryOfIssuePair(zone);
    fields.document_number ??= numberByPosition(zone, mrz.issuingState);
  }
  return { fields, zone: 'located' };
}

/** Levenshtein distance, for the OCR slack allowed on names and numbers. */
function distance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      current[column] = Math.min(
        previous[column] + 1,
        current[column - 1] + 1,
        previous[column - 1] + (left[row - 1] === right[column - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[right.length];
}

/** Look-alikes folded before comparing numbers (the VIZ font is not OCR-B). */
function foldLookalikes(value: string): string {
  return value.replace(/[OQD]/g, '0').replace(/[IL]/g, '1').replace(/Z/g, '2').replace(/S/g, '5').replace(/B/g, '8').replace(/G/g, '6');
}

/**
 * Two `YYMMDD` dates differ: not equal, nor equal with day and month swapped when both are 12 or
 * less (`10/04/49` is the 4th of October on a US card, month first; the reading is not sure).
 */
function datesDiffer(printed: string, read: string): boolean {
  if (printed === read) return false;
  const [year, first, second] = [printed.slice(0, 2), printed.slice(2, 4), printed.slice(4, 6)];
  return !(Number(first) <= 12 && Number(second) <= 12 && `${year}${second}${first}` === read);
}

/** Characters of OCR slack allowed in a word of this length (one misread letter in five). */
const slackFor = (word: string) => Math.floor(word.length / 5);

/** Shortest MRZ name word looked for inside a longer printed word (shorter ones sit inside too many words by chance). */
const MIN_GLUED_NAME_CHARS = 3;

/**
 * The MRZ name words (`mrzName`, spaces between words) are not on the VIZ value: none of its words
 * of two or more letters equals, starts, or is within OCR slack of a VIZ word (transliterated as
 * ICAO 9303 Part 3 does, `MÜLLER` → `MUELLER` or `MULLER`; the MRZ may truncate long names), nor,
 * from three letters, stands inside one (the OCR drops the spaces of a whole name printed on one
 * line: `ERIKSSONANNAMARIA` holds the given name `ANNA`).
 */
function namesDiffer(mrzName: string, vizValue: string): boolean {
  const printed = vizWords(vizValue);
  const words = mrzName.split(' ').filter((word) => word.length >= 2);
  if (words.length === 0 || printed.length === 0) return false;
  return !words.some((word) =>
    printed.some(
      (candidate) =>
        candidate.startsWith(word) ||
        word.startsWith(candidate) ||
        distance(word, candidate) <= slackFor(word) ||
        (word.length >= MIN_GLUED_NAME_CHARS && candidate.includes(word)),
    ),
  );
}

/**
 * Compares the VIZ with the MRZ fields: names after transliteration with OCR slack, numbers with
 * look-alikes folded and one character of slack, dates exactly (both are `YYMMDD`). Returns the
 * fields compared and those that differ.
 */
export function compareVizWithMrz(viz: VizFields, mrz: MrzFields): { compared: VizMismatch['field'][]; mismatches: VizMismatch[] } {
  const compared: VizMismatch['field'][] = [];
  const mismatches: VizMismatch[] = [];
  const judge = (
    field: VizMismatch['field'],
    vizValue: string | null,
    mrzValue: string | null,
    differ: (a: string, b: string) => boolean,
  ) => {
    if (!vizValue || !mrzValue) return;
    compared.push(field);
    if (differ(vizValue, mrzValue)) mismatches.push({ field, viz: vizValue, mrz: mrzValue });
  };
  judge('last_name', viz.last_name ?? viz.full_name, mrz.lastName, (printed, read) => namesDiffer(read, printed));
  judge('first_name', viz.first_name ?? (viz.last_name ? null : viz.full_name), mrz.firstName, (printed, read) =>
    namesDiffer(read, printed),
  );
  judge('document_number', viz.document_number, mrz.documentNumber, (printed, read) => {
    const a = foldLookalikes(printed);
    const b = foldLookalikes(read.replace(/</g, ''));
    return !a.includes(b) && distance(a, b) > 1;
  });
  judge('date_of_birth', viz.date_of_birth, mrz.birthDate, datesDiffer);
  judge('expiry_date', viz.expiry_date, mrz.expirationDate, datesDiffer);
  return { compared, mismatches };
}
