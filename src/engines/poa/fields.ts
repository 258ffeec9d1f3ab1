/**
 * Field extraction from the text of a utility bill, bank statement, invoice or government letter.
 *
 * Documents have no common layout, so the rules are layered; each reads the page as laid out
 * (layout.ts: cells of visual rows, left-aligned blocks; for OCR text, lines and paragraphs):
 * - name: a labelled cell (`Name:`, `Customer:`, `Account holder:`, `Member name`, `Bill to`,
 *   `Dear …`, the value beside or below the label); otherwise the addressee block's name (see
 *   address); otherwise the name-like line nearest above the first address line; otherwise the
 *   line best matching `expected_name`. A name-like line has 2–5 words of letters, no digits,
 *   no organisation word and no word of a form's vocabulary (`SERVICE ADDRESS`, `PAY ONLINE`,
 *   `Hotel Details` are headings, not people).
 * - address: the addressee block: the first block in which a name-like line is directly followed
 *   by a street line (`42 Baker Street`, `PO Box 7`, `Hauptstraße 5`) and the lines below it up to
 *   the postcode or country line (the window of an envelope, the "Service address" box);
 *   otherwise an `Address:` (`Supply/Service/Billing address:`) cell and the lines below it;
 *   otherwise the first street line and the lines below it. At most `MAX_ADDRESS_LINES`.
 * - issuer: an `Issued by:`, `From:`, `Provider:`, `Supplier:` cell; otherwise the payee
 *   (`payable to Con Edison`, `received by OYO`); otherwise the organisation whose web or mail
 *   domain the document prints most (`duke-energy.com` → `Duke Energy`, `sdge.com` → `SDG&E`,
 *   `aws.amazon.com` → `Amazon Web Services`), as printed in the text; otherwise the first line
 *   with an organisation word (Ltd, B.V., Bank, Energy, Council, …) outside the addressee's
 *   lines; otherwise the first line of the document (the letterhead) when it is neither the name
 *   nor part of the address.
 * - issue date: see dates.ts (`findIssueDateInRows`).
 */
import { findDates, findIssueDateInRows } from './dates.js';
import { countryNamedIn, POSTCODE_PATTERNS } from './geocode.js';
import { layoutOfText, type DocumentLayout, type LayoutCell } from './layout.js';

/** Most lines an address spans. */
export const MAX_ADDRESS_LINES = 5;

/** Fields read from a document; empty strings when a field was not found. */
export interface ExtractedFields {
  /** Addressee. */
  name: string;
  /** Address lines as printed, top to bottom. */
  addressLines: string[];
  /** Utility, bank or authority. */
  issuer: string;
  /** `YYYY-MM-DD`, or undefined when no date was found. */
  issuedAt?: string;
}

const NAME_LABEL =
  /^(?:(?:customer|customer name|account holder|addressee|name|member name|guest name|bill(?:ed)? to|account name|nom(?: de l['’]abonné)?|naam|kunde|cliente)\s*[:-]\s*|dear\s+)(.+?)[,.:]?$/i;
/** A name label alone in its cell, its value in the next cell or on the next line. */
const NAME_LABEL_ALONE =
  /^(?:customer|customer name|account holder|addressee|name|member name|guest name|bill(?:ed)? to|account name|nom(?: de l['’]abonné)?|naam)\s*:?$/i;
const ADDRESS_LABEL = /^(?:(?:supply|service|billing|property|postal|correspondence|installation|home)\s+)?address\s*[:-]\s*(.*)$/i;
const ISSUER_LABEL = /^(?:issued by|issuer|from|provider|supplier)\s*[:-]\s*(.+)$/i;
/** The payee named in a sentence: the organisation the bill is paid to is its issuer. */
const PAYEE = /\b(?:payable to|received by|paid to):?[^\S\n]+([A-Z][\w&'’.-]*(?:[^\S\n]+(?:[A-Z][\w&'’.-]*|&)){0,4})/;
/** Words that open a bill's sentences (instructions, thanks), never part of an organisation's name. */
const SENTENCE_OPENERS = new Set('please thank thanks you your we our if see call visit return do note include write'.split(' '));
/**
 * A company's registered-office line (legal footer of European invoices): the line above it names
 * the company. Matched on the line without accents (`withoutMarks`): OCR often reads `è` as `é`.
 */
const REGISTERED_OFFICE = /^(?:siege social|registered office|sitz der gesellschaft|handelsregister|statutaire zetel)\b/i;

/** A line without accents and other combining marks (`Siége` → `Siege`). */
const withoutMarks = (line: string) => line.normalize('NFD').replace(/\p{M}/gu, '');
/** Lines crediting the software that wrote the PDF: their domains name a tool, not the issuer. */
const TOOL_CREDIT = /\b(?:powered by|generated (?:by|with)|created (?:by|with)|made with|produced by)\b/i;
/** Words that make a line an organisation rather than a person. */
const ORGANISATION =
  /\b(ltd|limited|plc|inc|llc|llp|corp(?:oration)?|co\.|company|gmbh|ag|sa|s\.a\.|sas|sarl|srl|spa|bv|nv|ab|as|oy|pvt|bank|banque|bancorp|building society|credit union|energy|energie|electric(?:ity)?|power|gas|water|utilities|utility|telecom|telecommunications|broadband|mobile|council|municipality|city of|county|revenue|tax|hmrc|irs|ministry|department|authority|agency|government|insurance|services|group)\b|\b[bn]\.v\.|\bs\.a\.s\./i;
/**
 * Words of a form's vocabulary (English, French, Dutch, German): a line made of names has none,
 * a heading (`SERVICE ADDRESS`, `PAY ONLINE`, `Hotel Details`, `T.a.v. …`) has at least one.
 */
const FORM_WORDS = new Set(
  (
    'account accounts address addresses amount and attn balance bill billing booking by charges check contact customer date ' +
    'description details direct due electric energy for from gas guest hotel information invoice item meter member message ' +
    'messages mode month name notes number of online order our out page pay payment period plan please portion price quantity ' +
    'rate reading receipt return rooms service ship sold statement summary tax thank the to total usage water you your ' +
    't.a.v. tav adresse facture factuur rechnung kunde klant nom numéro betreff'
  ).split(' '),
);
const HOUSE_NUMBER_FIRST = /^(?:\d+[a-z]?(?:[-/]\d+[a-z]?)?,?\s+\p{L}|(?:flat|apt\.?|apartment|unit|suite|po box|p\.o\. box)\s+\w)/iu;
const STREET_WORD =
  /\b(street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|terrace|crescent|close|square|rue|chemin|allée|impasse|quai|straße|strasse|str|weg|gasse|platz|allee|ring|damm|calle|avenida|via|viale|piazza|corso|rua|laan|straat|plein|gracht|vej|gade|gatan|gata|vägen|veien|ulica|ul)\b\.?/iu;
/** Street names written as one compound word before the number (German, Dutch, Nordic): `Hauptstraße 5`. */
const COMPOUND_STREET =
  /\p{L}(?:straße|strasse|str\.|weg|gasse|platz|allee|damm|ring|laan|straat|plein|gracht|vej|gade|gatan|vägen|veien)\s+\d+[a-z]?\b/iu;
const AMOUNT = /[$€£¥]|\b(?:amount|total|balance|due|account (?:no|number)|reference|invoice|customer (?:no|number)|meter)\b/i;
const HONORIFIC = /^(mr|mrs|ms|miss|mx|dr|prof|sir|dame|mme|mlle|m|herr|frau)\.?\s+/i;
/** A postcode of any common shape, for address blocks of documents sent without a country. */
const ANY_POSTCODE = /\b\d{4,6}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b\d{4} ?[A-Z]{2}\b/;
/** Most domain labels tried by `domainIssuer`, most printed first. */
export const MAX_DOMAIN_LABELS = 5;
/** Web and mail domains printed on a document: `www.mvea.coop`, `conEd.com/MyAccount`, `verkoop-nl@saeco.com`. */
const DOMAIN = /(?<![\w@.-])(?:[\w.+-]+@)?((?:[a-z0-9-]+\.)+)(com|org|net|coop|co|io|biz|info|[a-z]{2})(?![\w-])/gi;
/** Domain labels that name no organisation: hosts, second-level parts, mail providers, generic words. */
const GENERIC_DOMAIN_LABELS = new Set([
  // Second-level parts of country domains (`example.co.uk`, `example.com.au`).
  'co',
  'com',
  'org',
  'net',
  'gov',
  'ac',
  'www',
  'mail',
  'email',
  'my',
  'app',
  'secure',
  'online',
  'web',
  'gmail',
  'googlemail',
  'yahoo',
  'hotmail',
  'outlook',
  'live',
  'icloud',
  'aol',
  'gmx',
  'fake',
  'example',
]);

/** Splits text into trimmed, non-empty lines with single spaces. */
export function toLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
}

/**
 * A line that reads like a person's name: 2–5 words of letters (hyphens, apostrophes, initials),
 * no digits, not an organisation, no word of a form's vocabulary.
 */
export function looksLikeName(line: string): boolean {
  if (/\d|:|@/.test(line) || ORGANISATION.test(line)) return false;
  const words = line.replace(HONORIFIC, '').split(/\s+/);
  if (words.length < 2 || words.length > 5) return false;
  if (words.some((word) => FORM_WORDS.has(word.toLowerCase().replace(/[,’']+$/, '')))) return false;
  return words.every((word) => /^[\p{L}][\p{L}'’.-]*,?$/u.test(word));
}

function isAddressStart(line: string): boolean {
  if (AMOUNT.test(line) || findDates(line).length > 0) return false;
  if (HOUSE_NUMBER_FIRST.test(line)) return true;
  if (line.includes(':')) return false;
  return COMPOUND_STREET.test(line) || (STREET_WORD.test(line) && /\d/.test(line));
}

/** True when a line ends an address: it holds the country's postcode or names a country. */
function endsAddress(line: string, country: string | undefined): boolean {
  if (countryNamedIn(line) !== undefined) return true;
  const pattern = country ? POSTCODE_PATTERNS[country.toUpperCase()] : undefined;
  return pattern !== undefined && pattern.test(line) && !HOUSE_NUMBER_FIRST.test(line);
}

/** Collects address lines from `start` down to the postcode or country line. */
function collectAddress(lines: readonly string[], start: number, country: string | undefined): string[] {
  const out: string[] = [];
  for (let i = start; i < lines.length && out.length < MAX_ADDRESS_LINES; i++) {
    const line = lines[i];
    if (out.length > 0 && (line.includes(':') || AMOUNT.test(line) || findDates(line).length > 0)) break;
    out.push(line);
    // A country line always ends the address; a postcode line does unless a country line follows it.
    if (countryNamedIn(line) !== undefined) break;
    if (endsAddress(line, country) && countryNamedIn(lines[i + 1] ?? '') === undefined) break;
  }
  return out;
}

/** Street types OCR glues to the number before them or the unit after them (US and UK abbreviations). */
const GLUED_STREET_TYPES = 'st|ave|rd|blvd|dr|ln|pl|ct|ter|pkwy|hwy|way';
/** A house number glued to a compass direction before a numbered street: `435W 57 ST` (`435 W 57 ST`). */
const GLUED_DIRECTION = /\b(\d+)([NSEW])(?=\s+\d)/g;
/** A number glued to the street type after it: `57ST` (`57 ST`); `1ST`, `2ND`, `3RD` are ordinals and stay. */
const GLUED_NUMBER_TYPE = new RegExp(`\\b(\\d+)(${GLUED_STREET_TYPES})\\b`, 'gi');
/** A street type glued to the unit after it: `ST2H` (`ST 2H`). */
const GLUED_TYPE_UNIT = new RegExp(`\\b(${GLUED_STREET_TYPES})(\\d+[a-z]?)\\b`, 'gi');

/** English ordinal suffix of a number (`1` → `st`, `12` → `th`, `23` → `rd`). */
function ordinalSuffix(value: number): string {
  if (Math.floor(value / 10) % 10 === 1) return 'th';
  return ['th', 'st', 'nd', 'rd'][value % 10] ?? 'th';
}

/**
 * An address line with the narrow spaces OCR drops put back: a window's condensed capitals
 * (`435 W 57 ST 2H`) read as `435W 57 ST2H` or `435W 57ST 2H`, which no longer starts like a
 * street line. Only a number glued to a compass letter before a numbered street, a number glued
 * to a street type that is not its ordinal suffix, and a street type glued to the unit after it
 * are split.
 */
export function withOcrSpaces(line: string): string {
  return line
    .replace(GLUED_DIRECTION, '$1 $2')
    .replace(GLUED_NUMBER_TYPE, (whole, digits: string, type: string) =>
      ordinalSuffix(Number(digits)) === type.toLowerCase() ? whole : `${digits} ${type}`,
    )
    .replace(GLUED_TYPE_UNIT, '$1 $2');
}

/** The addressee block (see the module comment): its name line and address lines, or undefined. */
function addresseeBlock(layout: DocumentLayout, country: string | undefined): { name: string; addressLines: string[] } | undefined {
  for (const block of layout.blocks) {
    const lines = block.lines.map(withOcrSpaces);
    for (let i = 0; i + 1 < lines.length; i++) {
      if (!looksLikeName(lines[i]) || !isAddressStart(lines[i + 1])) continue;
      const addressLines = collectAddress(lines, i + 1, country);
      // An address of one line or without a postcode is a street named in passing, not a window.
      const last = addressLines.at(-1) ?? '';
      if (addressLines.length < 2 || !(endsAddress(last, country) || ANY_POSTCODE.test(last))) continue;
      return { name: lines[i], addressLines };
    }
  }
  return undefined;
}

/** The value of a name label: in its own cell, the next cell of its row, or the first cell of the next row. */
function labelledName(rows: readonly (readonly LayoutCell[])[]): string {
  for (const [r, row] of rows.entries()) {
    for (const [c, cell] of row.entries()) {
      const inline = NAME_LABEL.exec(cell.text);
      if (inline && looksLikeName(inline[1])) return inline[1].trim();
      if (!NAME_LABEL_ALONE.test(cell.text)) continue;
      const value = row[c + 1]?.text ?? rows[r + 1]?.[0]?.text ?? '';
      if (looksLikeName(value)) return value;
    }
  }
  return '';
}

/**
 * The organisation a sentence says the bill is paid to (`PAYEE`). Its name ends at the end of its
 * sentence (`payable to MVEA. Please …`) or, where OCR lost the full stop, before a word that
 * opens the next sentence (`SENTENCE_OPENERS`: `payable to MVEA Please …`).
 */
function payee(lines: readonly string[]): string {
  const words = PAYEE.exec(lines.join('\n'))?.[1].split(/\.\s/)[0].split(' ') ?? [];
  const end = words.findIndex((word, k) => k > 0 && SENTENCE_OPENERS.has(word.toLowerCase().replace(/[.,]+$/, '')));
  return (end < 0 ? words : words.slice(0, end)).join(' ').replace(/[.,]+$/, '');
}

/** Letters and digits of a phrase, lower case, for comparing with a domain label. */
const compact = (value: string) => value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * The organisation a document's most printed domain names, as the text writes it (see the module
 * comment): a run of 1–5 words whose letters are the domain label (`Duke Energy`, `SDG&E`), whose
 * initials are (`Amazon Web Services` for `aws`), or that starts with it and needs its last word
 * to (`Con Edison` for `coned`). The longest match of the most printed label wins.
 */
function domainIssuer(text: string): string {
  const counts = new Map<string, number>();
  const credited = toLines(text.replace(/\t/g, '\n')).filter((line) => !TOOL_CREDIT.test(line));
  for (const match of credited.join('\n').matchAll(DOMAIN)) {
    for (const label of match[1].toLowerCase().split('.').slice(0, -1)) {
      const key = label.replace(/-/g, '');
      if (key.length < 2 || GENERIC_DOMAIN_LABELS.has(key)) continue;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  if (counts.size === 0) return '';
  // Words of the text outside any web or mail address, line by line.
  const lines = toLines(
    text
      .replace(DOMAIN, ' ')
      .replace(/\S*\/\S*/g, ' ')
      .replace(/\t/g, '\n'),
  ).map((line) => line.split(/[\s,;:()]+/).filter((word) => /\p{L}/u.test(word)));
  // The few most printed labels: a text listing thousands of domains must not multiply the phrase search.
  for (const [label] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_DOMAIN_LABELS)) {
    let best: string[] | undefined;
    for (const words of lines) {
      for (let start = 0; start < words.length; start++) {
        for (let length = 1; length <= 5 && start + length <= words.length; length++) {
          const phrase = words.slice(start, start + length);
          const joined = compact(phrase.join(''));
          const initials = phrase.map((word) => compact(word)[0] ?? '').join('');
          const exact = joined === label;
          const acronym = length >= 2 && initials === label;
          const prefix =
            length >= 2 && label.length >= 4 && joined.startsWith(label) && compact(phrase.slice(0, -1).join('')).length < label.length;
          if ((exact || acronym || prefix) && /^\p{Lu}/u.test(phrase[0]) && (!best || phrase.length > best.length)) best = phrase;
          // Longer runs can no longer match by letters or by initials.
          if (joined.length >= label.length && initials.length >= label.length) break;
        }
      }
    }
    if (best) return best.join(' ').replace(/[.,]+$/, '');
  }
  return '';
}

/** Options of `extractFields`. */
export interface ExtractOptions {
  /** Country ISO-2 the document is from: postcode shapes and the numeric date order. */
  country?: string;
  /** The name the document should carry: a line matching it is the addressee. */
  expectedName?: string;
  /** Name similarity in [0, 1] (the AML scorer), for `expectedName`. */
  similarity?: (a: string, b: string) => number;
  /** The text laid out (layout.ts); without it the text's lines and paragraphs are used. */
  layout?: DocumentLayout;
}

/** Reads name, address, issuer and issue date from a document's text. */
export function extractFields(text: string, options: ExtractOptions = {}): ExtractedFields {
  const layout = options.layout ?? layoutOfText(text);
  const lines = layout.rows.flatMap((row) => row.map((cell) => cell.text));
  const { country } = options;

  let name = labelledName(layout.rows);
  let nameIndex = name ? lines.findIndex((line) => line.includes(name)) : -1;

  let addressLines: string[] = [];
  let addressIndex = -1;
  const addressee = addresseeBlock(layout, country);
  if (addressee) {
    addressLines = addressee.addressLines;
    addressIndex = lines.indexOf(addressLines[0]);
    if (!name) {
      name = addressee.name;
      nameIndex = addressIndex - 1;
    }
  }
  if (addressLines.length === 0) {
    for (const [i, line] of lines.entries()) {
      const labelled = ADDRESS_LABEL.exec(line);
      if (!labelled) continue;
      addressIndex = i;
      addressLines = labelled[1] ? [labelled[1], ...collectAddress(lines, i + 1, country)] : collectAddress(lines, i + 1, country);
      break;
    }
  }
  if (addressLines.length === 0) {
    addressIndex = lines.findIndex(isAddressStart);
    if (addressIndex >= 0) addressLines = collectAddress(lines, addressIndex, country);
  }

  if (!name && addressIndex > 0) {
    for (let i = addressIndex - 1; i >= Math.max(0, addressIndex - 3); i--) {
      if (looksLikeName(lines[i])) {
        name = lines[i];
        nameIndex = i;
        break;
      }
    }
  }
  if (options.expectedName && options.similarity) {
    // The expected name printed elsewhere (e.g. "Account holder" in a table) is still the addressee.
    const { similarity, expectedName } = options;
    const current = name ? similarity(expectedName, name) : 0;
    const best = lines
      .filter(looksLikeName)
      .map((line) => ({ line, score: similarity(expectedName, line) }))
      .sort((a, b) => b.score - a.score)[0];
    if (best && best.score > current && best.score >= NAME_LINE_MIN_SIMILARITY) {
      name = best.line;
      nameIndex = lines.indexOf(best.line);
    }
  }

  const taken = new Set<number>([nameIndex, ...addressLines.map((_, k) => addressIndex + k)]);
  const takenText = new Set([name, ...addressLines]);
  let issuer = '';
  for (const line of lines) {
    const labelled = ISSUER_LABEL.exec(line);
    // "From: 01/02/2026" starts a period, not a letterhead.
    if (labelled && /\p{L}{2}/u.test(labelled[1]) && findDates(labelled[1]).length === 0) {
      issuer = labelled[1].trim();
      break;
    }
  }
  if (!issuer) issuer = payee(lines);
  if (!issuer) issuer = domainIssuer(text);
  if (!issuer) {
    const office = lines.findIndex((line, i) => i > 0 && REGISTERED_OFFICE.test(withoutMarks(line)) && !/\d/.test(lines[i - 1]));
    if (office > 0 && !takenText.has(lines[office - 1])) issuer = lines[office - 1];
  }
  if (!issuer) {
    // A labelled line ("Tax: 0.2%", "Bank Account: …") names a field, not the organisation.
    const index = lines.findIndex(
      (line, i) =>
        !taken.has(i) &&
        !takenText.has(line) &&
        !line.includes(':') &&
        ORGANISATION.test(line) &&
        !AMOUNT.test(line) &&
        findDates(line).length === 0,
    );
    if (index >= 0) issuer = lines[index];
  }
  if (!issuer && lines.length > 0 && !taken.has(0) && !takenText.has(lines[0]) && !/\d/.test(lines[0])) issuer = lines[0];

  return { name: name.replace(HONORIFIC, '').trim(), addressLines, issuer, issuedAt: findIssueDateInRows(layout.rows, country) };
}

/** Lowest similarity for a line elsewhere in the document to count as the expected addressee. */
export const NAME_LINE_MIN_SIMILARITY = 0.85;
