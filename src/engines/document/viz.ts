/**
 * The visual inspection zone (VIZ) of a data page, read from the OCR lines of the same photo as
 * the MRZ and compared with it: the first forgery check (an MRZ re-printed under another name or
 * date of birth than the page shows). Fields are located by their printed labels (ICAO 9303 Part 4
 * prints bilingual captions such as `Surname/Nom`, `Date of birth/Date de naissance`; national
 * cards use their own language), the value being the nearest text below the caption or after a
 * colon on the same line. A field the page does not show, or the OCR cannot read, is not judged.
 */
import anyAscii from 'any-ascii';
import type { MrzFields, PageLine } from './mrz-text.js';
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
  {
    field: 'first_name',
    pattern:
      /\b(given names?|forenames?|first names?|prenoms?|vornamen?|nombres?|nome|imiona?|voornamen|etunimet|fornamn|fornavn|keresztnev|jmena?|krstne|ime)\b/,
  },
  {
    field: 'last_name',
    pattern:
      /\b(surnames?|family names?|last names?|nom|nachname|familienname|apellidos?|cognome|nazwisko|achternaam|sukunimi|efternamn|etternavn|vezeteknev|prijmeni|priezvisko|prezime)\b/,
  },
  { field: 'full_name', pattern: /^(name|names|nom|naam|nimi)\b/ },
  {
    field: 'date_of_birth',
    pattern:
      /(birth|naissance|geburtstag|geburtsdatum|nacimiento|nascita|urodzenia|geboortedatum|syntymaaika|fodelsedatum|narozeni|rodenia|rodjenja)\b/,
  },
  {
    field: 'expiry_date',
    pattern:
      /(expiry|expiration|expires|valid ?until|gultig ?bis|caducidad|scadenza|waznosci|geldig tot|voimassa|giltig till|platnost|platnosti|vaznosti|date of exp)\b/,
  },
  {
    field: 'document_number',
    pattern:
      /(passport ?n|document ?n|doc\.? ?n|card ?n|no\.? de passeport|n. de passeport|passnummer|pass-nr|dokumentnummer|numero|numer|paspoortnummer|id no)\w*/,
  },
];

/** A caption found in a line: its field and where in the line's text it starts. */
interface Caption {
  field: keyof VizFields;
  index: number;
}

/** Captions of different fields starting closer than this, in characters, are one bilingual caption. */
const BILINGUAL_CAPTION_CHARS = 12;

/**
 * The captions a line carries, left to right. PaddleOCR joins captions printed side by side into
 * one line (`Date of birth/Date de naissance Personal No./N° personnel`), so a line may hold
 * several; a bilingual caption names one field in two languages and counts once.
 */
function captionsOf(text: string): Caption[] {
  const folded = anyAscii(text).toLowerCase();
  // A caption is short or bilingual; a long line without a slash that mentions "name" is a value or a sentence.
  if (folded.replace(/[^a-z]/g, '').length > 40 && !folded.includes('/')) return [];
  const found: Caption[] = [];
  for (const { field, pattern } of CAPTIONS) {
    const match = pattern.exec(folded);
    if (!match || found.some((caption) => caption.field === field)) continue;
    // `Place of birth/Lieu de naissance` is not the date.
    const before = folded.slice(Math.max(0, match.index - 12), match.index);
    if (field === 'date_of_birth' && /\b(place|lieu|ort|lugar|luogo|miejsce)\b/.test(before)) continue;
    // `Name/Nom`, `Surname/Nom`: one caption in two languages.
    if (found.some((caption) => Math.abs(caption.index - match.index) < BILINGUAL_CAPTION_CHARS)) continue;
    found.push({ field, index: match.index });
  }
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

/** The value printed under a caption: the nearest non-caption line below, starting within its width. */
function valueBelow(caption: PageLine, lines: readonly PageLine[]): PageLine | null {
  const at = bounds(caption);
  if (!at) return null;
  const height = Math.max(1, at.bottom - at.top);
  let best: { line: PageLine; distance: number } | null = null;
  for (const line of lines) {
    if (line === caption || captionsOf(line.text).length > 0) continue;
    const box = bounds(line);
    if (!box) continue;
    const gap = box.top - at.bottom;
    if (gap < -height / 2 || gap > VALUE_MAX_GAP_HEIGHTS * height) continue;
    if (box.left < at.left - 2 * height || box.left > at.right) continue;
    const distance = gap + Math.abs(box.left - at.left) / 4;
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
  [12, 'dec december decembre dezember diciembre dez dic'],
] as const) {
  for (const name of names.split(' ')) MONTHS[name] = number;
}

/** Two digits. */
const pad = (value: number) => String(value).padStart(2, '0');

/**
 * A printed date as `YYMMDD`, or null: `12 AUG/AOUT 74`, `12 AUG 1974`, `12.08.1974`,
 * `12/08/74`, `12 08 1974`, `1974-08-12`. Day-first, as ICAO 9303 prints dates in the VIZ.
 */
export function parseVizDate(text: string): string | null {
  const folded = anyAscii(text).toLowerCase();
  const named = /(?<!\d)(\d{1,2})\s*([a-z]{3,9})(?:\s*\/\s*[a-z]{3,9})*\.?\s*(\d{4}|\d{2})(?!\d)/.exec(folded);
  if (named && MONTHS[named[2]] !== undefined) return dateOf(Number(named[1]), MONTHS[named[2]], named[3]);
  const iso = /(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/.exec(folded);
  if (iso) return dateOf(Number(iso[3]), Number(iso[2]), iso[1]);
  const numeric = /(?<!\d)(\d{1,2})\s*[./\- ]\s*(\d{1,2})\s*[./\- ]\s*(\d{4}|\d{2})(?!\d)/.exec(folded);
  if (numeric) return dateOf(Number(numeric[1]), Number(numeric[2]), numeric[3]);
  return null;
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
  const colon = line.text.indexOf(':', caption.index);
  const nextIndex = captions[which + 1]?.index ?? line.text.length;
  if (colon >= 0 && colon < nextIndex && line.text.slice(colon + 1, nextIndex).trim().length > 1)
    return line.text.slice(colon + 1, nextIndex).trim();
  const below = valueBelow(line, lines);
  const at = bounds(line);
  const under = below ? bounds(below) : null;
  if (!below || !at || !under) return null;
  if (captions.length === 1 && caption.index < BILINGUAL_CAPTION_CHARS) return below.text.trim();
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

/** Reads the captioned fields of a page; fields without a caption found stay null. */
export function readVisualZone(lines: readonly PageLine[]): VizFields {
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
      } else if (/\p{L}{2}/u.test(value) && !/\d/.test(value)) fields[field] = value.replace(/\s+/g, ' ');
    });
  }
  return fields;
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

/** Characters of OCR slack allowed in a word of this length (one misread letter in five). */
const slackFor = (word: string) => Math.floor(word.length / 5);

/**
 * The MRZ name words (`mrzName`, spaces between words) are not on the VIZ value: none of its words
 * of two or more letters equals, starts, or is within OCR slack of a VIZ word (transliterated as
 * ICAO 9303 Part 3 does, `MÜLLER` → `MUELLER` or `MULLER`; the MRZ may truncate long names).
 */
function namesDiffer(mrzName: string, vizValue: string): boolean {
  const printed = vizWords(vizValue);
  const words = mrzName.split(' ').filter((word) => word.length >= 2);
  if (words.length === 0 || printed.length === 0) return false;
  return !words.some((word) =>
    printed.some((candidate) => candidate.startsWith(word) || word.startsWith(candidate) || distance(word, candidate) <= slackFor(word)),
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
  judge('date_of_birth', viz.date_of_birth, mrz.birthDate, (a, b) => a !== b);
  judge('expiry_date', viz.expiry_date, mrz.expirationDate, (a, b) => a !== b);
  return { compared, mismatches };
}
