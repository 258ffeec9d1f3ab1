/**
 * Country name → ISO-2 lookup for list formats that give country names (OFAC, UN).
 * The bulk of the table comes from ICU's English region names (Intl.DisplayNames), so it
 * needs no maintenance; COUNTRY_NAME_ALIASES adds the official and historical spellings the
 * lists actually use ("Iran (Islamic Republic of)", "Korea, North", "Burma"…).
 */
import anyAscii from 'any-ascii';

/** Spellings used by OFAC / UN that ICU's short English names do not cover, keyed by ISO-2. */
export const COUNTRY_NAME_ALIASES: Readonly<Record<string, readonly string[]>> = {
  BO: ['Bolivia (Plurinational State of)', 'Plurinational State of Bolivia'],
  BA: ['Bosnia-Herzegovina', 'Bosnia'],
  BN: ['Brunei Darussalam'],
  CD: ['Democratic Republic of the Congo', 'Congo, Democratic Republic of the', 'Congo (Kinshasa)', 'DRC'],
  CG: ['Republic of the Congo', 'Congo, Republic of the', 'Congo (Brazzaville)', 'Congo'],
  CI: ["Cote d'Ivoire", 'Ivory Coast'],
  CV: ['Cape Verde'],
  CZ: ['Czech Republic'],
  FM: ['Micronesia (Federated States of)', 'Micronesia, Federated States of'],
  GB: ['United Kingdom of Great Britain and Northern Ireland', 'UK', 'Great Britain'],
  IR: ['Iran (Islamic Republic of)', 'Islamic Republic of Iran', 'Iran, Islamic Republic of'],
  KP: ["Democratic People's Republic of Korea", 'Korea, North', 'North Korea', 'DPRK', "Korea, Democratic People's Republic of"],
  KR: ['Republic of Korea', 'Korea, South', 'South Korea', 'Korea, Republic of'],
  LA: ["Lao People's Democratic Republic", 'Laos'],
  MD: ['Republic of Moldova', 'Moldova, Republic of'],
  MK: ['The former Yugoslav Republic of Macedonia', 'Macedonia', 'Republic of North Macedonia'],
  MM: ['Burma', 'Myanmar'],
  PS: ['State of Palestine', 'Palestinian Territories', 'West Bank', 'Gaza', 'Palestine'],
  RU: ['Russian Federation', 'Russia'],
  SY: ['Syrian Arab Republic', 'Syria'],
  TW: ['Taiwan, Province of China', 'Taiwan'],
  TZ: ['United Republic of Tanzania', 'Tanzania, United Republic of'],
  TR: ['Turkey', 'Turkiye'],
  US: ['United States of America', 'USA', 'United States'],
  VE: ['Venezuela (Bolivarian Republic of)', 'Bolivarian Republic of Venezuela', 'Venezuela'],
  VN: ['Viet Nam', 'Vietnam'],
  SZ: ['Swaziland', 'Eswatini'],
  XK: ['Kosovo'],
};

/** ICU pseudo-regions that are not countries. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ', 'XA', 'XB']);

/** Lookup key: ASCII, lower case, letters only, without a leading "the". */
function key(name: string): string {
  return anyAscii(name)
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim()
    .replace(/^the /, '');
}

/** Built once on first use: every key → ISO-2. */
let table: Map<string, string> | undefined;

/** Builds the name table from ICU plus COUNTRY_NAME_ALIASES. */
function buildTable(): Map<string, string> {
  const map = new Map<string, string>();
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(65 + i, 65 + j);
      if (NOT_COUNTRIES.has(code)) continue;
      const name = names.of(code);
      if (!name || name === code || name === 'Unknown Region') continue;
      map.set(key(name), code);
      // ICU writes some names with a disambiguator ("Myanmar (Burma)", "Congo - Kinshasa").
      const bare = name.replace(/\s*\(.*\)$/, '');
      if (!map.has(key(bare))) map.set(key(bare), code);
    }
  }
  for (const [code, aliases] of Object.entries(COUNTRY_NAME_ALIASES)) {
    for (const alias of aliases) map.set(key(alias), code);
  }
  return map;
}

/** ISO-2 code of an English country name (or of an ISO-2 code itself), or undefined when unknown. */
export function countryToIso2(name: string): string | undefined {
  const trimmed = name.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) {
    const upper = trimmed.toUpperCase();
    if (upper === 'UK') return 'GB';
    return NOT_COUNTRIES.has(upper) ? undefined : upper;
  }
  table ??= buildTable();
  return table.get(key(trimmed));
}
