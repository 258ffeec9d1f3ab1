/**
 * The offline address check behind `checks.geocode`. Nothing is looked up on a network and
 * there is no street or city gazetteer: the check says whether an address is *plausible* for
 * its country, not that it exists. See docs/poa.md for the exact list of what it checks.
 */
import { countryToIso2 } from '../../shared/country-names.js';
import type { CheckOutcome } from '../details.js';

/**
 * Postcode formats of the countries the check supports (ISO-2 → pattern of the postcode as
 * printed in an address, matched case-insensitively on word boundaries). Formats from each
 * postal operator's published scheme; a country missing here makes `geocode` `skipped`.
 */
export const POSTCODE_PATTERNS: Readonly<Record<string, RegExp>> = {
  GB: /\b(GIR ?0AA|[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2})\b/i,
  IE: /\b((?:[AC-FHKNPRTV-Y]\d{2}|D6W) ?[0-9AC-FHKNPRTV-Y]{4})\b/i,
  US: /\b(\d{5}(?:-\d{4})?)\b/,
  CA: /\b([ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d)\b/i,
  FR: /\b((?:0[1-9]|[1-8]\d|9[0-5]|97[1-6]|98[4-8])\d{3})\b/,
  DE: /\b((?:0[1-9]|[1-9]\d)\d{3})\b/,
  ES: /\b((?:0[1-9]|[1-4]\d|5[0-2])\d{3})\b/,
  IT: /\b(\d{5})\b/,
  NL: /\b([1-9]\d{3} ?(?!SA|SD|SS)[A-Z]{2})\b/i,
  BE: /\b([1-9]\d{3})\b/,
  LU: /\b((?:L-)?\d{4})\b/i,
  CH: /\b((?:CH-)?[1-9]\d{3})\b/i,
  AT: /\b((?:A-)?[1-9]\d{3})\b/i,
  PT: /\b([1-9]\d{3}-\d{3})\b/,
  DK: /\b((?:DK-)?[1-9]\d{3})\b/i,
  NO: /\b(\d{4})\b/,
  SE: /\b((?:SE-)?[1-9]\d{2} ?\d{2})\b/i,
  FI: /\b((?:FI-)?\d{5})\b/i,
  PL: /\b(\d{2}-\d{3})\b/,
  CZ: /\b([1-7]\d{2} ?\d{2})\b/,
  AU: /\b((?:0[289]|[1-9]\d)\d{2})\b/,
  NZ: /\b(\d{4})\b/,
  ZA: /\b(\d{4})\b/,
  IN: /\b([1-9]\d{2} ?\d{3})\b/,
  SG: /\b(\d{6})\b/,
  JP: /(?:〒\s?)?\b(\d{3}-\d{4})\b/,
  BR: /\b(\d{5}-?\d{3})\b/,
  MX: /\b(\d{5})\b/,
};

/** US state, district and territory codes, for the "City, ST 12345" line. */
const US_STATES = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI'.split(
    ' ',
  ),
);

/** Canadian province or territory → the first letters of its postal codes (Canada Post's forward sortation areas). */
const CA_PROVINCE_LETTERS: Readonly<Record<string, string>> = {
  NL: 'A',
  NS: 'B',
  PE: 'C',
  NB: 'E',
  QC: 'GHJ',
  ON: 'KLMNP',
  MB: 'R',
  SK: 'S',
  AB: 'T',
  BC: 'V',
  NT: 'X',
  NU: 'X',
  YT: 'Y',
};

/** Why `geocode` came out as it did; kept in the result so a reviewer sees the reason. */
export type GeocodeReason =
  | 'postcode_valid'
  | 'no_address'
  | 'no_country'
  | 'country_unsupported'
  | 'country_mismatch'
  | 'postcode_missing'
  | 'state_invalid'
  | 'province_postcode_mismatch';

/** Outcome of the offline address check. */
export interface GeocodeResult {
  /** `passed`, `review` (cannot be confirmed), `failed` (contradicts the country) or `skipped`. */
  outcome: CheckOutcome;
  /** Machine-readable reason. */
  reason: GeocodeReason;
  /** The country the address was checked against (given, or named in the address). */
  country?: string;
  /** The postcode found, as printed. */
  postcode?: string;
}

/** ISO-2 of a country named on a line of the address ("United Kingdom", "…, France"), if any. */
export function countryNamedIn(line: string): string | undefined {
  const candidates = [line, ...line.split(',').map((part) => part.trim())].filter((part) => part.length > 2);
  for (const candidate of candidates) {
    const code = countryToIso2(candidate);
    // ICU also names the reserved code UK "United Kingdom"; the ISO code is GB.
    if (code) return code === 'UK' ? 'GB' : code;
  }
  return undefined;
}

/**
 * Checks an address (its printed lines) against a country: `country` is the caller's ISO-2;
 * when absent, a country named in the address is used instead.
 */
export function checkAddress(addressLines: readonly string[], country: string | undefined): GeocodeResult {
  if (addressLines.length === 0) return { outcome: 'review', reason: 'no_address' };
  const named = addressLines.map(countryNamedIn).find((code) => code !== undefined);
  const target = country?.toUpperCase() ?? named;
  if (!target) return { outcome: 'skipped', reason: 'no_country' };
  if (named && named !== target) return { outcome: 'failed', reason: 'country_mismatch', country: target };
  const pattern = POSTCODE_PATTERNS[target];
  if (!pattern) return { outcome: 'skipped', reason: 'country_unsupported', country: target };
  // The postcode sits near the end of an address: search from the last line up.
  for (const line of [...addressLines].reverse()) {
    const match = pattern.exec(line);
    if (!match) continue;
    const postcode = match[1];
    const regional = checkRegion(target, line, postcode);
    if (regional) return { outcome: 'failed', reason: regional, country: target, postcode };
    return { outcome: 'passed', reason: 'postcode_valid', country: target, postcode };
  }
  return { outcome: 'review', reason: 'postcode_missing', country: target };
}

/** US: a state code must stand before the ZIP; CA: the province must agree with the postal code's first letter. */
function checkRegion(country: string, line: string, postcode: string): GeocodeReason | undefined {
  if (country === 'US') {
    const state = new RegExp(`\\b([A-Z]{2})\\.?,?\\s+${postcode.replace('-', '\\-')}`).exec(line)?.[1];
    if (state && !US_STATES.has(state)) return 'state_invalid';
    return undefined;
  }
  if (country === 'CA') {
    const province = /\b(NL|NS|PE|NB|QC|ON|MB|SK|AB|BC|NT|NU|YT)\b/.exec(line)?.[1];
    if (province && !CA_PROVINCE_LETTERS[province].includes(postcode[0].toUpperCase())) return 'province_postcode_mismatch';
  }
  return undefined;
}
