/**
 * ICAO issuing-state codes (ISO 3166-1 alpha-3 plus ICAO 9303 Part 3's own codes) to the ISO-2
 * codes the API speaks. The table is data, checked against `mrz`'s list of state codes and
 * ICU's region names when written; codes with no country (UNO, EUE, XXA…) map to nothing.
 */

/** Every ISO 3166-1 country as `AAAXX` (alpha-3 then alpha-2), space-separated, in ISO-2 order. */
const ISO_3166_PAIRS = [
  'AFGAF ALAAX ALBAL DZADZ ASMAS ANDAD AGOAO AIAAI ATAAQ ATGAG ARGAR ARMAM ABWAW AUSAU AUTAT AZEAZ BHSBS BHRBH BGDBD BRBBB',
  'BLRBY BELBE BLZBZ BENBJ BMUBM BTNBT BOLBO BESBQ BIHBA BWABW BVTBV BRABR IOTIO BRNBN BGRBG BFABF BDIBI CPVCV KHMKH CMRCM',
  'CANCA CYMKY CAFCF TCDTD CHLCL CHNCN CXRCX CCKCC COLCO COMKM COGCG CODCD COKCK CRICR CIVCI HRVHR CUBCU CUWCW CYPCY CZECZ',
  'DNKDK DJIDJ DMADM DOMDO ECUEC EGYEG SLVSV GNQGQ ERIER ESTEE SWZSZ ETHET FLKFK FROFO FJIFJ FINFI FRAFR GUFGF PYFPF ATFTF',
  'GABGA GMBGM GEOGE DEUDE GHAGH GIBGI GRCGR GRLGL GRDGD GLPGP GUMGU GTMGT GGYGG GINGN GNBGW GUYGY HTIHT HMDHM VATVA HNDHN',
  'HKGHK HUNHU ISLIS INDIN IDNID IRNIR IRQIQ IRLIE IMNIM ISRIL ITAIT JAMJM JPNJP JEYJE JORJO KAZKZ KENKE KIRKI PRKKP KORKR',
  'KWTKW KGZKG LAOLA LVALV LBNLB LSOLS LBRLR LBYLY LIELI LTULT LUXLU MACMO MDGMG MWIMW MYSMY MDVMV MLIML MLTMT MHLMH MTQMQ',
  'MRTMR MUSMU MYTYT MEXMX FSMFM MDAMD MCOMC MNGMN MNEME MSRMS MARMA MOZMZ MMRMM NAMNA NRUNR NPLNP NLDNL NCLNC NZLNZ NICNI',
  'NERNE NGANG NIUNU NFKNF MKDMK MNPMP NORNO OMNOM PAKPK PLWPW PSEPS PANPA PNGPG PRYPY PERPE PHLPH PCNPN POLPL PRTPT PRIPR',
  'QATQA REURE ROURO RUSRU RWARW BLMBL SHNSH KNAKN LCALC MAFMF SPMPM VCTVC WSMWS SMRSM STPST SAUSA SENSN SRBRS SYCSC SLESL',
  'SGPSG SXMSX SVKSK SVNSI SLBSB SOMSO ZAFZA SGSGS SSDSS ESPES LKALK SDNSD SURSR SJMSJ SWESE CHECH SYRSY TWNTW TJKTJ TZATZ',
  'THATH TLSTL TGOTG TKLTK TONTO TTOTT TUNTN TURTR TKMTM TCATC TUVTV UGAUG UKRUA AREAE GBRGB USAUS UMIUM URYUY UZBUZ VUTVU',
  'VENVE VNMVN VGBVG VIRVI WLFWF ESHEH YEMYE ZMBZM ZWEZW',
].join(' ');

/** ICAO 9303 codes that are not ISO alpha-3 but name a country: Germany's `D`, British nationality classes, Kosovo. */
const ICAO_SPECIAL: Readonly<Record<string, string>> = {
  D: 'DE',
  GBD: 'GB',
  GBN: 'GB',
  GBO: 'GB',
  GBP: 'GB',
  GBS: 'GB',
  RKS: 'XK',
  UNK: 'XK',
  XXK: 'XK',
};

const ALPHA3_TO_ALPHA2: ReadonlyMap<string, string> = new Map([
  ...ISO_3166_PAIRS.split(' ').map((pair): [string, string] => [pair.slice(0, 3), pair.slice(3)]),
  ...Object.entries(ICAO_SPECIAL),
]);

/** ISO-2 of an MRZ issuing-state or nationality code (fillers ignored), or null for organisations and unknown codes. */
export function icaoToIso2(code: string): string | null {
  return ALPHA3_TO_ALPHA2.get(code.replace(/<+$/, '').toUpperCase()) ?? null;
}

/**
 * ICAO 9303 Part 3 codes of organisations and of nationality statuses: real codes, but no
 * country, so a document carrying one cannot agree with an ISO-2 `country`.
 */
const ICAO_NON_STATE_CODES: ReadonlySet<string> = new Set('EUE UNO UNA XBA XIM XCC XCE XCO XEC XPO XES XOM XDC XXA XXB XXC XXX'.split(' '));

/**
 * Codes printed on specimen documents, which name no real state: `UTO` (Utopia) is ICAO 9303's
 * own specimen state; `BDR` is the code of the Bundesdruckerei's German specimens.
 */
const SPECIMEN_STATE_CODES: ReadonlySet<string> = new Set(['UTO', 'BDR']);

/**
 * Withdrawn codes (ISO 3166-3) still printed on documents issued before the change, with the
 * ISO-2 of every state that took over (so a Yugoslav passport may be sent as RS, HR, …).
 */
const HISTORIC_STATE_CODES: Readonly<Record<string, readonly string[]>> = {
  ANT: ['CW', 'SX', 'BQ'],
  BUR: ['MM'],
  BYS: ['BY'],
  CSK: ['CZ', 'SK'],
  DDR: ['DE'],
  DHY: ['BJ'],
  HVO: ['BF'],
  NTZ: ['SA', 'IQ'],
  RHO: ['ZW'],
  ROM: ['RO'],
  SCG: ['RS', 'ME'],
  SUN: ['AM', 'AZ', 'BY', 'EE', 'GE', 'KZ', 'KG', 'LV', 'LT', 'MD', 'RU', 'TJ', 'TM', 'UA', 'UZ'],
  TMP: ['TL'],
  VDR: ['VN'],
  YMD: ['YE'],
  YUG: ['RS', 'ME', 'HR', 'SI', 'BA', 'MK', 'XK'],
  ZAR: ['CD'],
};

const ISO2_CODES: ReadonlySet<string> = new Set(ALPHA3_TO_ALPHA2.values());

/** What an MRZ state code is, and the ISO-2 countries it can stand for. */
export type StateCodeKind =
  /** An ICAO/ISO code of one country. */
  | { kind: 'state'; iso2: string }
  /** A withdrawn code; any of the successor states may have issued it. */
  | { kind: 'historic'; iso2: readonly string[] }
  /** A specimen's fictional state (`UTO`, `BDR`): no country to compare with. */
  | { kind: 'specimen' }
  /** An organisation or a nationality status (`UNO`, `XXA`): a real code, no country. */
  | { kind: 'organisation' }
  /** A country's ISO-2 code printed where ICAO wants alpha-3 (older Slovenian cards print `SI<`). */
  | { kind: 'nonstandard'; iso2: string }
  /** Nothing we know. */
  | { kind: 'unknown' };

/** Classifies an MRZ issuing-state or nationality code (fillers ignored), so each kind gets its own verdict. */
export function classifyStateCode(printed: string): StateCodeKind {
  const code = printed.replace(/<+/g, '').toUpperCase();
  const iso2 = ALPHA3_TO_ALPHA2.get(code);
  if (iso2) return { kind: 'state', iso2 };
  if (SPECIMEN_STATE_CODES.has(code)) return { kind: 'specimen' };
  if (ICAO_NON_STATE_CODES.has(code)) return { kind: 'organisation' };
  const successors = HISTORIC_STATE_CODES[code];
  if (successors) return { kind: 'historic', iso2: successors };
  if (code.length === 2 && ISO2_CODES.has(code)) return { kind: 'nonstandard', iso2: code };
  return { kind: 'unknown' };
}
