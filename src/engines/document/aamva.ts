/**
 * AAMVA DL/ID card data (the PDF417 on the back of US and Canadian driving licences and ID cards),
 * parsed by hand from the AAMVA DL/ID Card Design Standard, versions 1 (2000) to 10 (2020):
 *
 * - header: `@`, LF, RS, CR, the file type `ANSI ` (`AAMVA` on some version-1 cards), the issuer
 *   identification number (IIN, 6 digits), the AAMVA version (2 digits), from version 2 the
 *   jurisdiction version (2 digits), the number of subfiles (2 digits);
 * - one subfile designator per subfile: type (`DL`, `ID`, or a jurisdiction's `Z?`), offset and
 *   length (4 digits each);
 * - each subfile: its type, then data elements `XXX` + value, separated by LF, ended by CR.
 *
 * Dates are `MMDDCCYY` on US cards and `CCYYMMDD` on Canadian ones (and on every version-1 card).
 * Cards in the field bend the header (a missing RS, CR LF for LF, offsets that are off by a few
 * bytes), so those are tolerated; what is refused, with the reason, is what cannot be read
 * honestly: no header, an unknown version, no DL/ID subfile, a date that is no date.
 */

/** Why a payload was refused. */
export class AamvaError extends Error {
  override name = 'AamvaError';
}

/** AAMVA standard versions this parser knows (01 = 2000 … 10 = 2020). */
export const AAMVA_VERSIONS = { min: 1, max: 10 } as const;

/** The DL/ID fields of a card, snake_case as the result details carry them; null when the card does not print the element. */
export interface AamvaFields {
  /** Family name (DCS; DAB or the first part of DAA on version-1 cards). */
  lastName: string | null;
  /** First name (DAC; DCT's first word on version-2 cards). */
  firstName: string | null;
  /** Middle names (DAD). */
  middleName: string | null;
  /** `YYYY-MM-DD` (DBB). */
  dateOfBirth: string | null;
  /** `YYYY-MM-DD` (DBA). */
  expiryDate: string | null;
  /** `YYYY-MM-DD` (DBD). */
  issueDate: string | null;
  /** Customer id number, the licence number (DAQ). */
  documentNumber: string | null;
  /** `M`, `F` or `X` (DBC: 1, 2, 9). */
  sex: string | null;
  /** `USA` or `CAN` (DCG, else from the issuer's IIN). */
  country: string | null;
  /** Jurisdiction code of the address (DAJ), e.g. `CA`, `ON`. */
  state: string | null;
  /** Street (DAG, and DAH when present). */
  addressStreet: string | null;
  /** City (DAI). */
  addressCity: string | null;
  /** Postal code (DAK), US ZIP+4 zeros trimmed. */
  addressPostalCode: string | null;
  /** Document discriminator (DCF): a number unique to this card. */
  documentDiscriminator: string | null;
}

/** A parsed AAMVA payload. */
export interface AamvaRecord {
  /** AAMVA standard version, 1–10. */
  version: number;
  /** Jurisdiction version (null on version-1 cards). */
  jurisdictionVersion: number | null;
  /** Issuer identification number, 6 digits. */
  issuerId: string;
  /** The jurisdiction the IIN belongs to (e.g. `California`), null for an IIN this table lacks. */
  issuer: string | null;
  /** `DL` (driving licence) or `ID` (identification card): the first standard subfile. */
  documentType: 'DL' | 'ID';
  /** Every subfile type, in header order (`DL`, `ZC`, …). */
  subfiles: string[];
  /** The DL/ID fields. */
  fields: AamvaFields;
  /** Every element of the DL/ID subfile as printed (`DCS` → `SAMPLE`), for reviewers. */
  elements: Record<string, string>;
}

/** IIN → jurisdiction and country (AAMVA's IIN list; Mexican and territorial IINs named too). */
const ISSUERS: Record<string, [name: string, country: 'USA' | 'CAN' | 'MEX']> = {
  '636000': ['Virginia', 'USA'],
  '636001': ['New York', 'USA'],
  '636002': ['Massachusetts', 'USA'],
  '636003': ['Maryland', 'USA'],
  '636004': ['North Carolina', 'USA'],
  '636005': ['South Carolina', 'USA'],
  '636006': ['Connecticut', 'USA'],
  '636007': ['Louisiana', 'USA'],
  '636008': ['Montana', 'USA'],
  '636009': ['New Mexico', 'USA'],
  '636010': ['Florida', 'USA'],
  '636011': ['Delaware', 'USA'],
  '636012': ['Ontario', 'CAN'],
  '636013': ['Nova Scotia', 'CAN'],
  '636014': ['California', 'USA'],
  '636015': ['Texas', 'USA'],
  '636016': ['Newfoundland and Labrador', 'CAN'],
  '636017': ['New Brunswick', 'CAN'],
  '636018': ['Iowa', 'USA'],
  '636019': ['Guam', 'USA'],
  '636020': ['Colorado', 'USA'],
  '636021': ['Arkansas', 'USA'],
  '636022': ['Kansas', 'USA'],
  '636023': ['Ohio', 'USA'],
  '636024': ['Vermont', 'USA'],
  '636025': ['Pennsylvania', 'USA'],
  '636026': ['Arizona', 'USA'],
  '636028': ['British Columbia', 'CAN'],
  '636029': ['Oregon', 'USA'],
  '636030': ['Missouri', 'USA'],
  '636031': ['Wisconsin', 'USA'],
  '636032': ['Michigan', 'USA'],
  '636033': ['Alabama', 'USA'],
  '636034': ['North Dakota', 'USA'],
  '636035': ['Illinois', 'USA'],
  '636036': ['New Jersey', 'USA'],
  '636037': ['Indiana', 'USA'],
  '636038': ['Minnesota', 'USA'],
  '636039': ['New Hampshire', 'USA'],
  '636040': ['Utah', 'USA'],
  '636041': ['Maine', 'USA'],
  '636042': ['South Dakota', 'USA'],
  '636043': ['District of Columbia', 'USA'],
  '636044': ['Saskatchewan', 'CAN'],
  '636045': ['Washington', 'USA'],
  '636046': ['Kentucky', 'USA'],
  '636047': ['Hawaii', 'USA'],
  '636048': ['Manitoba', 'CAN'],
  '636049': ['Nevada', 'USA'],
  '636050': ['Idaho', 'USA'],
  '636051': ['Mississippi', 'USA'],
  '636052': ['Rhode Island', 'USA'],
  '636053': ['Tennessee', 'USA'],
  '636054': ['Nebraska', 'USA'],
  '636055': ['Georgia', 'USA'],
  '636056': ['Coahuila', 'MEX'],
  '636057': ['Hidalgo', 'MEX'],
  '636058': ['Oklahoma', 'USA'],
  '636059': ['Alaska', 'USA'],
  '636060': ['Wyoming', 'USA'],
  '636061': ['West Virginia', 'USA'],
  '636062': ['US Virgin Islands', 'USA'],
  '604426': ['Prince Edward Island', 'CAN'],
  '604427': ['American Samoa', 'USA'],
  '604428': ['Quebec', 'CAN'],
  '604429': ['Yukon', 'CAN'],
  '604430': ['Northern Mariana Islands', 'USA'],
  '604431': ['Puerto Rico', 'USA'],
  '604432': ['Alberta', 'CAN'],
  '604433': ['Nunavut', 'CAN'],
  '604434': ['Northwest Territories', 'CAN'],
};

const LF = '\n';
const CR = '\r';

/** The header up to the subfile designators: compliance indicators (tolerantly), file type, IIN, versions, count. */
const HEADER = /^@[\n\r\x1c\x1e]{0,4}(ANSI |AAMVA)(\d{6})(\d{2})/;

/** Whether bytes look like an AAMVA payload at all (a PDF417 of something else is not one). */
export function looksLikeAamva(text: string): boolean {
  return HEADER.test(text) || /^@[\s\x1c\x1e]*(ANSI|AAMVA)/.test(text);
}

/**
 * Parses an AAMVA payload (the barcode's bytes as Latin-1 text). Throws `AamvaError` with the
 * reason when it is not one, or is one this parser cannot read honestly.
 */
export function parseAamva(text: string): AamvaRecord {
  const header = HEADER.exec(text);
  if (!header) {
    if (looksLikeAamva(text)) throw new AamvaError('The AAMVA header is malformed: expected the file type, a 6-digit IIN and the version.');
    throw new AamvaError('Not an AAMVA payload: it does not start with "@" and the "ANSI " file type.');
  }
  const issuerId = header[2];
  const version = Number(header[3]);
  if (version < AAMVA_VERSIONS.min || version > AAMVA_VERSIONS.max)
    throw new AamvaError(`Unsupported AAMVA version ${header[3]}: versions 01 to 10 are read.`);
  let at = header[0].length;
  let jurisdictionVersion: number | null = null;
  if (version >= 2) {
    const jv = /^\d{2}/.exec(text.slice(at));
    if (!jv) throw new AamvaError('The AAMVA header has no 2-digit jurisdiction version.');
    jurisdictionVersion = Number(jv[0]);
    at += 2;
  }
  const count = /^\d{2}/.exec(text.slice(at));
  if (!count || Number(count[0]) < 1) throw new AamvaError('The AAMVA header does not say how many subfiles follow.');
  at += 2;
  const designators: { type: string; offset: number; length: number }[] = [];
  for (let index = 0; index < Number(count[0]); index++) {
    const designator = /^([A-Z]{2})(\d{4})(\d{4})/.exec(text.slice(at));
    if (!designator) {
      // Version-1 cards (and some later ones) list fewer designators than the count says; the subfiles follow.
      if (designators.length > 0) break;
      throw new AamvaError(`Subfile designator ${index + 1} is malformed: expected two letters, a 4-digit offset and a 4-digit length.`);
    }
    designators.push({ type: designator[1], offset: Number(designator[2]), length: Number(designator[3]) });
    at += 10;
  }
  const main = designators.find((designator) => designator.type === 'DL' || designator.type === 'ID');
  if (!main) throw new AamvaError('The payload has no DL or ID subfile (only jurisdiction-specific ones).');
  const elements = subfileElements(text, main, at);
  const record = fieldsOf(elements, version, issuerId);
  return {
    version,
    jurisdictionVersion,
    issuerId,
    issuer: ISSUERS[issuerId]?.[0] ?? null,
    documentType: main.type as 'DL' | 'ID',
    subfiles: designators.map((designator) => designator.type),
    fields: record,
    elements,
  };
}

/**
 * The elements of the DL/ID subfile. Found at its designator's offset when that points at the
 * subfile type; otherwise (offsets off by the missing RS or a CR LF) at the first occurrence of
 * the type after the designators.
 */
function subfileElements(
  text: string,
  designator: { type: string; offset: number; length: number },
  afterHeader: number,
): Record<string, string> {
  let start = text.startsWith(designator.type, designator.offset) ? designator.offset : text.indexOf(designator.type, afterHeader);
  if (start < 0) throw new AamvaError(`The ${designator.type} subfile the header announces is not in the payload.`);
  start += designator.type.length;
  // Some cards separate elements with CR LF: that CR is no segment terminator.
  const rest = text.slice(start).replace(/\r\n/g, LF);
  const end = rest.indexOf(CR);
  const body = end < 0 ? rest : rest.slice(0, end);
  const elements: Record<string, string> = {};
  for (const raw of body.split(LF)) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    if (!/^[A-Z]{3}/.test(line))
      throw new AamvaError(`A ${designator.type} data element is malformed: ${JSON.stringify(line.slice(0, 12))}.`);
    const id = line.slice(0, 3);
    // The first element keeps its value; a repeated id is a jurisdiction's quirk, not new data.
    if (!(id in elements)) elements[id] = line.slice(3).trim();
  }
  if (Object.keys(elements).length === 0) throw new AamvaError(`The ${designator.type} subfile has no data elements.`);
  return elements;
}

/** An element's value, null when absent, empty or `NONE`/`unavl` (AAMVA's "not available"). */
function value(elements: Record<string, string>, id: string): string | null {
  const raw = elements[id]?.trim();
  if (!raw || /^(none|unavl|unavail)$/i.test(raw)) return null;
  return raw;
}

/** `MMDDCCYY` or `CCYYMMDD` → `YYYY-MM-DD`; throws on a value that is no calendar date. */
export function aamvaDate(raw: string, order: 'MMDDCCYY' | 'CCYYMMDD', element: string): string {
  if (!/^\d{8}$/.test(raw)) throw new AamvaError(`${element} is not an 8-digit date: ${JSON.stringify(raw)}.`);
  const [year, month, day] =
    order === 'MMDDCCYY' ? [raw.slice(4, 8), raw.slice(0, 2), raw.slice(2, 4)] : [raw.slice(0, 4), raw.slice(4, 6), raw.slice(6, 8)];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    throw new AamvaError(`${element} is not a date in ${order}: ${JSON.stringify(raw)}.`);
  return `${year}-${month}-${day}`;
}

/** The date order of a card: version 1 and Canada `CCYYMMDD`, the United States `MMDDCCYY`. */
function dateOrder(version: number, country: string | null, sample: string | null): 'MMDDCCYY' | 'CCYYMMDD' {
  if (version === 1 || country === 'CAN') return 'CCYYMMDD';
  if (country === 'USA') return 'MMDDCCYY';
  // No country on the card and an IIN this table lacks: the order whose year is plausible.
  return sample && /^(19|20)\d{6}$/.test(sample) && !/^(0[1-9]|1[0-2])/.test(sample) ? 'CCYYMMDD' : 'MMDDCCYY';
}

/** Names of a version-1 `DAA` (`LAST,FIRST,MIDDLE` or `LAST$FIRST$MIDDLE`). */
function splitFullName(full: string): [string | null, string | null, string | null] {
  const parts = full.split(/[,$]/).map((part) => part.trim());
  return [parts[0] || null, parts[1] || null, parts.slice(2).join(' ') || null];
}

/** Sex from DBC: `1`/`M` male, `2`/`F` female, `9`/`X` not specified. */
function sexOf(raw: string | null): string | null {
  if (!raw) return null;
  const code = raw.toUpperCase();
  if (code === '1' || code === 'M') return 'M';
  if (code === '2' || code === 'F') return 'F';
  if (code === '9' || code === 'X') return 'X';
  throw new AamvaError(`DBC (sex) is not 1, 2 or 9: ${JSON.stringify(raw)}.`);
}

function fieldsOf(elements: Record<string, string>, version: number, issuerId: string): AamvaFields {
  const printedCountry = value(elements, 'DCG');
  const country = printedCountry?.toUpperCase() ?? ISSUERS[issuerId]?.[1] ?? null;
  const order = dateOrder(version, country, value(elements, 'DBB'));
  const date = (id: string) => {
    const raw = value(elements, id);
    return raw ? aamvaDate(raw, order, id) : null;
  };
  let [lastName, firstName, middleName] = [value(elements, 'DCS'), value(elements, 'DAC'), value(elements, 'DAD')];
  if (!lastName) lastName = value(elements, 'DAB');
  const fullName = value(elements, 'DAA');
  if (fullName && !lastName) [lastName, firstName, middleName] = splitFullName(fullName);
  const givenNames = value(elements, 'DCT');
  if (givenNames && !firstName) {
    // Version 2: DCT holds every given name, separated by spaces or commas.
    const [first, ...rest] = givenNames.split(/[\s,]+/);
    firstName = first || null;
    middleName = middleName ?? (rest.join(' ') || null);
  }
  const documentNumber = value(elements, 'DAQ');
  if (!lastName) throw new AamvaError('The DL/ID subfile gives no family name (DCS, DAB or DAA).');
  if (!documentNumber) throw new AamvaError('The DL/ID subfile gives no customer id number (DAQ).');
  const street = [value(elements, 'DAG'), value(elements, 'DAH')].filter(Boolean).join(', ') || null;
  const postal = value(elements, 'DAK');
  return {
    lastName,
    firstName,
    middleName,
    dateOfBirth: date('DBB'),
    expiryDate: date('DBA'),
    issueDate: date('DBD'),
    documentNumber,
    sex: sexOf(value(elements, 'DBC')),
    country,
    state: value(elements, 'DAJ'),
    addressStreet: street,
    addressCity: value(elements, 'DAI'),
    // US cards pad the ZIP to 11 characters (`958140000  `): ZIP+4 with an unused +4 is the ZIP.
    addressPostalCode: postal ? postal.replace(/^(\d{5})0000$/, '$1').replace(/^(\d{5})(\d{4})$/, '$1-$2') : null,
    documentDiscriminator: value(elements, 'DCF'),
  };
}
