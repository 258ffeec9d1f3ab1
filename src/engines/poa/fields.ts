/**
 * Field extraction from the text of a utility bill, bank statement or government letter.
 *
 * Documents have no common layout, so the rules are layered, labelled fields first:
 * - name: a `Name:`, `Customer:`, `Account holder:`, `Addressee:`, `Bill to:` or `Dear …` line;
 *   otherwise the name-like line (2–5 words of letters, no digits, not an organisation) nearest
 *   above the first address line; otherwise the line best matching `expected_name`.
 * - address: an `Address:` (`Supply/Service/Billing address:`) line; otherwise the first line that
 *   starts with a house number (`42 Baker Street`, `Flat 3`, `PO Box 7`) or that names a street
 *   (`Hauptstraße 5`, `rue de la Paix 12`), plus the lines below it until the line with the
 *   postcode or the country name, at most `MAX_ADDRESS_LINES`.
 * - issuer: an `Issued by:`, `From:`, `Provider:`, `Supplier:` line; otherwise the first line
 *   with an organisation word (Ltd, Bank, Energy, Council, …); otherwise the first line of the
 *   document (the letterhead) when it is neither the name nor part of the address.
 * - issue date: see dates.ts.
 */
import { findDates, findIssueDate } from './dates.js';
import { countryNamedIn, POSTCODE_PATTERNS } from './geocode.js';

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

const NAME_LABEL = /^(?:(?:customer|account holder|addressee|name|bill(?:ed)? to|account name)\s*[:-]\s*|dear\s+)(.+?)[,.:]?$/i;
const ADDRESS_LABEL = /^(?:(?:supply|service|billing|property|postal|correspondence|installation|home)\s+)?address\s*[:-]\s*(.*)$/i;
const ISSUER_LABEL = /^(?:issued by|issuer|from|provider|supplier)\s*[:-]\s*(.+)$/i;
/** Words that make a line an organisation rather than a person. */
const ORGANISATION =
  /\b(ltd|limited|plc|inc|llc|llp|corp(?:oration)?|co\.|company|gmbh|ag|sa|s\.a\.|sas|sarl|srl|spa|bv|nv|ab|as|oy|bank|banque|bancorp|building society|credit union|energy|energie|electric(?:ity)?|power|gas|water|utilities|utility|telecom|telecommunications|broadband|mobile|council|municipality|city of|county|revenue|tax|hmrc|irs|ministry|department|authority|agency|government|insurance|services|group)\b/i;
const HOUSE_NUMBER_FIRST = /^(?:\d+[a-z]?(?:[-/]\d+[a-z]?)?,?\s+\p{L}|(?:flat|apt\.?|apartment|unit|suite|po box|p\.o\. box)\s+\w)/iu;
const STREET_WORD =
  /\b(street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|terrace|crescent|close|square|rue|chemin|allée|impasse|quai|straße|strasse|str|weg|gasse|platz|allee|ring|damm|calle|avenida|via|viale|piazza|corso|rua|laan|straat|plein|gracht|vej|gade|gatan|gata|vägen|veien|ulica|ul)\b\.?/iu;
/** Street names written as one compound word before the number (German, Dutch, Nordic): `Hauptstraße 5`. */
const COMPOUND_STREET =
  /\p{L}(?:straße|strasse|str\.|weg|gasse|platz|allee|damm|ring|laan|straat|plein|gracht|vej|gade|gatan|vägen|veien)\s+\d+[a-z]?\b/iu;
const AMOUNT = /[$€£¥]|\b(?:amount|total|balance|due|account (?:no|number)|reference|invoice|customer (?:no|number)|meter)\b/i;
const HONORIFIC = /^(mr|mrs|ms|miss|mx|dr|prof|sir|dame|mme|mlle|m|herr|frau)\.?\s+/i;

/** Splits text into trimmed, non-empty lines with single spaces. */
export function toLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
}

/** A line that reads like a person's name: 2–5 words of letters (hyphens, apostrophes, initials), no digits, not an organisation. */
export function looksLikeName(line: string): boolean {
  if (/\d|:|@/.test(line) || ORGANISATION.test(line)) return false;
  const words = line.replace(HONORIFIC, '').split(/\s+/);
  if (words.length < 2 || words.length > 5) return false;
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

/** Reads name, address, issuer and issue date from a document's text. */
export function extractFields(
  text: string,
  options: { country?: string; expectedName?: string; similarity?: (a: string, b: string) => number } = {},
): ExtractedFields {
  const lines = toLines(text);
  const { country } = options;

  let name = '';
  let nameIndex = -1;
  for (const [i, line] of lines.entries()) {
    const labelled = NAME_LABEL.exec(line);
    if (labelled && looksLikeName(labelled[1])) {
      name = labelled[1].trim();
      nameIndex = i;
      break;
    }
  }

  let addressLines: string[] = [];
  let addressIndex = -1;
  for (const [i, line] of lines.entries()) {
    const labelled = ADDRESS_LABEL.exec(line);
    if (!labelled) continue;
    addressIndex = i;
    addressLines = labelled[1] ? [labelled[1], ...collectAddress(lines, i + 1, country)] : collectAddress(lines, i + 1, country);
    break;
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
      .map((line, i) => ({ line, i, score: similarity(expectedName, line) }))
      .sort((a, b) => b.score - a.score)[0];
    if (best && best.score > current && best.score >= NAME_LINE_MIN_SIMILARITY) {
      name = best.line;
      nameIndex = lines.indexOf(best.line);
    }
  }

  let issuer = '';
  for (const line of lines) {
    const labelled = ISSUER_LABEL.exec(line);
    if (labelled) {
      issuer = labelled[1].trim();
      break;
    }
  }
  const taken = new Set<number>([nameIndex, ...addressLines.map((_, k) => addressIndex + k)]);
  if (!issuer) {
    const index = lines.findIndex(
      (line, i) => !taken.has(i) && ORGANISATION.test(line) && !AMOUNT.test(line) && findDates(line).length === 0,
    );
    if (index >= 0) issuer = lines[index];
  }
  if (!issuer && lines.length > 0 && !taken.has(0) && !/\d/.test(lines[0])) issuer = lines[0];

  return { name: name.replace(HONORIFIC, '').trim(), addressLines, issuer, issuedAt: findIssueDate(lines, country) };
}

/** Lowest similarity for a line elsewhere in the document to count as the expected addressee. */
export const NAME_LINE_MIN_SIMILARITY = 0.85;
