/**
 * The printed front of a US or Canadian licence or ID card, read from its OCR lines to be compared
 * with the barcode on the back. The AAMVA card design standard numbers and labels the fields
 * (1 family name `LN`, 2 given names `FN`, 3 date of birth `DOB`, 4a issue `ISS`, 4b expiry `EXP`,
 * 4d number `DL`/`DLN`/`LIC`/`ID`); the OCR often glues a label to its value (`DOB01/31/1990`),
 * which the patterns allow. US cards print dates `MM/DD/YYYY`, Canadian ones mostly `YYYY/MM/DD`.
 */
import type { PageLine } from './mrz-text.js';

/** Fields printed on a licence front; null when not found. Dates `YYYY-MM-DD`. */
export interface LicenceFrontFields {
  last_name: string | null;
  first_name: string | null;
  document_number: string | null;
  date_of_birth: string | null;
  expiry_date: string | null;
}

/** Label → field, tried at the start of each line (after an optional AAMVA field number such as `4d`). */
const LABELS: [RegExp, keyof LicenceFrontFields][] = [
  [/^(?:1\s*)?LN[\s:.]*(?=[A-Z])/, 'last_name'],
  [/^(?:2\s*)?FN[\s:.]*(?=[A-Z])/, 'first_name'],
  [/^(?:3\s*)?DOB[\s:.]*/, 'date_of_birth'],
  [/^(?:4b\s*)?EXP(?:IRES)?[\s:.]*/, 'expiry_date'],
  [/^(?:4d\s*)?(?:DLN|DL\s*NO\.?|DL|LIC(?:ENSE)?\s*(?:NO\.?|#)?|ID\s*(?:NO\.?|#))[\s:.#]*(?=[A-Z0-9])/, 'document_number'],
];

/** A printed date → `YYYY-MM-DD`: `YYYY/MM/DD` anywhere; otherwise `MM/DD/YYYY` in the US and `DD/MM/YYYY` in Canada. */
export function licenceDate(text: string, country: string): string | null {
  const iso = /(\d{4})[/.-](\d{2})[/.-](\d{2})/.exec(text);
  const other = /(\d{2})[/.-](\d{2})[/.-](\d{4})/.exec(text);
  let parts: [string, string, string] | null = null;
  if (iso) parts = [iso[1], iso[2], iso[3]];
  else if (other) parts = country === 'CA' ? [other[3], other[2], other[1]] : [other[3], other[1], other[2]];
  if (!parts) return null;
  const [year, month, day] = parts;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  return `${year}-${month}-${day}`;
}

/** Reads the labelled fields of a licence front; the first value found for each field wins. */
export function readLicenceFront(lines: readonly PageLine[], country: string): LicenceFrontFields {
  const fields: LicenceFrontFields = { last_name: null, first_name: null, document_number: null, date_of_birth: null, expiry_date: null };
  for (const line of lines) {
    const text = line.text.trim().toUpperCase();
    for (const [label, field] of LABELS) {
      const match = label.exec(text);
      if (!match || fields[field] !== null) continue;
      const value = text.slice(match[0].length).trim();
      if (field === 'date_of_birth' || field === 'expiry_date') fields[field] = licenceDate(value, country);
      else if (field === 'document_number') fields[field] = /^[A-Z0-9-]{4,}/.exec(value.replace(/\s+/g, ''))?.[0] ?? null;
      else fields[field] = /^[A-Z][A-Z' ,-]*$/.test(value) ? value.replace(/\s+/g, ' ') : null;
      break;
    }
  }
  return fields;
}
