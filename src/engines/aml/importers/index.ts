/**
 * Entry point of the list importers: format detection and file import. Every importer
 * streams, yielding SanctionedEntity records one by one so they can be batched into the
 * database without holding a whole list in memory.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { SanctionedEntity } from '../entity.js';
import type { TextSource } from './common.js';
import { importEuConsolidatedXml } from './eu.js';
import { importOfacSdnCsv, importOfacSdnXml, readOfacAddCsv, readOfacAltCsv } from './ofac.js';
import { importOpenSanctionsJsonl, type OpenSanctionsOptions } from './opensanctions.js';
import { importUnConsolidatedXml } from './un.js';

export { importEuConsolidatedXml } from './eu.js';
export { importOfacSdnCsv, importOfacSdnXml, readOfacAddCsv, readOfacAltCsv, type OfacCsvOptions } from './ofac.js';
export { importOpenSanctionsJsonl, fromFtmEntity, ftmLists, type OpenSanctionsOptions } from './opensanctions.js';
export { importUnConsolidatedXml } from './un.js';
export { normalizeDates, type TextSource } from './common.js';

/** Every file format importFile understands. */
export const LIST_FORMATS = ['ofac_sdn_xml', 'ofac_sdn_csv', 'eu_consolidated_xml', 'un_consolidated_xml', 'opensanctions_jsonl'] as const;

/** One supported list file format. */
export type ListFormat = (typeof LIST_FORMATS)[number];

/** How many leading bytes detectFormat needs to see (bytes); the XML root element is within them in every format. */
export const DETECT_BYTES = 4096;

/** A file's first bytes as text, without a byte-order mark or leading blank lines. */
function headText(firstBytes: string | Uint8Array): string {
  return (typeof firstBytes === 'string' ? firstBytes : new TextDecoder().decode(firstBytes)).replace(/^\uFEFF/, '').trimStart();
}

/**
 * Guesses a file's format from its first bytes (DETECT_BYTES are plenty), or returns
 * undefined. XML formats are told apart by their root element; JSON lines by a leading
 * `{` with a `schema` key; OFAC's header-less CSV by a numeric ent_num followed by a quoted name.
 */
export function detectFormat(firstBytes: string | Uint8Array): ListFormat | undefined {
  const head = headText(firstBytes);
  if (head.startsWith('<')) {
    // Skip the prolog and comments to reach the root element's name.
    const root = /<(?![?!])(?:[\w.-]+:)?([\w.-]+)/.exec(head)?.[1];
    if (root === 'sdnList') return 'ofac_sdn_xml';
    if (root === 'export' && /sanctionEntity|fsd\/export/.test(head)) return 'eu_consolidated_xml';
    if (root === 'CONSOLIDATED_LIST') return 'un_consolidated_xml';
    return undefined;
  }
  if (head.startsWith('{') && /"schema"\s*:/.test(head)) return 'opensanctions_jsonl';
  // sdn.csv rows start `36,"NAME",` (any line: a leading comment line is tolerated); alt.csv rows
  // start `36,12,"aka"` and are not a primary file.
  if (/^\d+,"[^"]*",/m.test(head)) return 'ofac_sdn_csv';
  return undefined;
}

/** The files OFAC publishes beside sdn.csv that an import of it can merge: aliases and addresses. */
export type OfacCompanion = 'ofac_alt_csv' | 'ofac_add_csv';

/**
 * Tells OFAC's companion CSVs apart from their first bytes, so `aml:import sdn.csv alt.csv add.csv`
 * needs no flags: alt.csv rows are `ent_num,alt_num,"aka"|"fka"|"nka",…`, add.csv rows
 * `ent_num,add_num,` followed by an address; sdn.csv rows have a quoted name second.
 */
export function detectOfacCompanion(firstBytes: string | Uint8Array): OfacCompanion | undefined {
  const head = headText(firstBytes);
  if (/^\d+,\d+,"?[afn]ka"?,/im.test(head)) return 'ofac_alt_csv';
  if (/^\d+,\d+,/m.test(head)) return 'ofac_add_csv';
  return undefined;
}

/** Options of importFile / importSource. */
export interface ImportOptions extends OpenSanctionsOptions {
  /** Path of OFAC's alt.csv, merged as aliases when importing sdn.csv. */
  ofacAltCsvPath?: string;
  /** Path of OFAC's add.csv, whose address countries are merged when importing sdn.csv. */
  ofacAddCsvPath?: string;
}

/** Streams entities from a source whose format is known. */
export async function* importSource(source: TextSource, format: ListFormat, options: ImportOptions = {}): AsyncGenerator<SanctionedEntity> {
  switch (format) {
    case 'ofac_sdn_xml':
      yield* importOfacSdnXml(source);
      return;
    case 'ofac_sdn_csv': {
      const alt = options.ofacAltCsvPath ? await readOfacAltCsv(createReadStream(options.ofacAltCsvPath)) : undefined;
      const add = options.ofacAddCsvPath ? await readOfacAddCsv(createReadStream(options.ofacAddCsvPath)) : undefined;
      yield* importOfacSdnCsv(source, { alt, add });
      return;
    }
    case 'eu_consolidated_xml':
      yield* importEuConsolidatedXml(source);
      return;
    case 'un_consolidated_xml':
      yield* importUnConsolidatedXml(source);
      return;
    case 'opensanctions_jsonl':
      yield* importOpenSanctionsJsonl(source, options);
      return;
  }
}

/** Reads a file's first DETECT_BYTES bytes for detectFormat. */
export async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(DETECT_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DETECT_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Streams the entities of a list file, detecting its format when `format` is omitted.
 * Throws when the format cannot be detected.
 */
export async function* importFile(path: string, format?: ListFormat, options: ImportOptions = {}): AsyncGenerator<SanctionedEntity> {
  const resolved = format ?? detectFormat(await readHead(path));
  if (!resolved) throw new Error(`Unrecognised AML list format: ${path}`);
  yield* importSource(createReadStream(path), resolved, options);
}

/** Collects an async iterable into an array (Array.fromAsync is outside the ES2023 lib this project targets). */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
