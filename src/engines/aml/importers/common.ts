/**
 * Plumbing shared by the list importers: text sources, a streaming XML record splitter,
 * line splitting, and the value clean-ups every format needs (dates, de-duplication).
 */
import { XMLParser } from 'fast-xml-parser';

/** Where an importer reads from: a whole document in memory, or a stream of chunks (e.g. fs.createReadStream). */
export type TextSource = string | AsyncIterable<string | Uint8Array>;

/** Yields a source as decoded text chunks (UTF-8, BOM stripped), never splitting a multi-byte character. */
export async function* textChunks(source: TextSource): AsyncGenerator<string> {
  if (typeof source === 'string') {
    yield source.replace(/^\uFEFF/, '');
    return;
  }
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}

/** Yields the lines of a source without their line terminators, streaming. */
export async function* textLines(source: TextSource): AsyncGenerator<string> {
  let buffer = '';
  let first = true;
  for await (const chunk of textChunks(source)) {
    buffer += first ? chunk.replace(/^\uFEFF/, '') : chunk;
    first = false;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      yield buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  }
  if (buffer.length > 0) yield buffer.replace(/\r$/, '');
}

/** One XML element cut out of a document by xmlRecords. */
export interface XmlRecord {
  /** Local tag name of the element (without namespace prefix). */
  tag: string;
  /** The element's full XML text, from `<tag` to `</tag>`. */
  xml: string;
}

/**
 * Streams the elements named `tags` out of an XML document without building the whole tree,
 * so a 100 MB list costs one record of memory. Limits (true of the OFAC, EU and UN formats):
 * the elements do not nest in themselves, are not self-closing, and do not appear inside
 * comments or CDATA. A namespace prefix on the element (`<ns:sdnEntry>`) is accepted.
 */
export async function* xmlRecords(source: TextSource, tags: readonly string[]): AsyncGenerator<XmlRecord> {
  const open = new RegExp(`<((?:[A-Za-z_][\\w.-]*:)?(${tags.join('|')}))(?=[\\s>])`, 'g');
  const longestTag = Math.max(...tags.map((t) => t.length)) + 64;
  let buffer = '';
  for await (const chunk of textChunks(source)) {
    buffer += chunk;
    let consumed = 0;
    for (;;) {
      open.lastIndex = consumed;
      const m = open.exec(buffer);
      if (!m) {
        // Keep a tail long enough to hold a tag split across chunks.
        consumed = Math.max(consumed, buffer.length - longestTag);
        break;
      }
      const close = `</${m[1]}>`;
      const end = buffer.indexOf(close, m.index);
      if (end < 0) {
        consumed = m.index;
        break;
      }
      yield { tag: m[2], xml: buffer.slice(m.index, end + close.length) };
      consumed = end + close.length;
    }
    buffer = buffer.slice(consumed);
  }
}

/** Parser for one record: attributes kept under `@name`, all values left as strings, namespaces stripped. */
export const recordParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: true,
  trimValues: true,
});

/** A parsed XML node as fast-xml-parser returns it. */
export type XmlNode = Record<string, unknown>;

/** Parses one record's XML and returns its root element. */
export function parseRecord(record: XmlRecord): XmlNode {
  const doc = recordParser.parse(record.xml) as XmlNode;
  const root = doc[record.tag];
  return root && typeof root === 'object' ? (root as XmlNode) : {};
}

/** Wraps a maybe-repeated XML child as an array (fast-xml-parser gives a bare value for one child). */
export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/** Text content of a node whether it is a string or an element with attributes (`#text`). */
export function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && '#text' in value) return text((value as XmlNode)['#text']);
  return '';
}

/** The child `name` of a node, as a node (or an empty one). */
export function child(node: unknown, name: string): XmlNode {
  if (!node || typeof node !== 'object') return {};
  const value = (node as XmlNode)[name];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as XmlNode) : {};
}

/** Text of the child `name` of a node (which may be anything fast-xml-parser produced). */
export function field(node: unknown, name: string): string {
  if (!node || typeof node !== 'object') return '';
  return text((node as XmlNode)[name]);
}

/** The children `name` of a node, as nodes or strings. */
export function children(node: unknown, name: string): unknown[] {
  if (!node || typeof node !== 'object') return [];
  return asArray((node as XmlNode)[name]);
}

/** Distinct non-empty trimmed strings, first occurrence order. */
export function unique(values: Iterable<string | undefined>): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    const t = v?.trim();
    if (t) seen.add(t);
  }
  return [...seen];
}

/** English month abbreviations → month number, for "01 Jan 1950" style dates. */
const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** Widest year range (in years) expanded into individual years; wider ranges keep only their ends. */
export const MAX_EXPANDED_YEAR_RANGE = 10;

/**
 * Free-text date(s) of birth → `YYYY` / `YYYY-MM-DD` strings: "1950-04-28", "28 Apr 1950",
 * "Apr 1950" (→ 1950), "circa 1950", "1950 to 1953" (→ each year), "28/04/1950" (day first).
 */
export function normalizeDates(raw: string): string[] {
  const s = raw.trim();
  if (!s) return [];
  let m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (m) return [m[2] === '00' || m[3] === '00' ? m[1] : `${m[1]}-${m[2]}-${m[3]}`];
  m = /^(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?\s+(\d{4})$/.exec(s);
  if (m && MONTHS[m[2].toLowerCase()]) return [`${m[3]}-${MONTHS[m[2].toLowerCase()]}-${m[1].padStart(2, '0')}`];
  m = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(s);
  if (m) return [`${m[3]}-${m[2].padStart(2, '0')}-${m[1].padStart(2, '0')}`];
  m = /(\d{4})\s*(?:to|-|–)\s*(\d{4})/.exec(s);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (to >= from && to - from <= MAX_EXPANDED_YEAR_RANGE) {
      return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
    }
    return [m[1], m[2]];
  }
  m = /(\d{4})/.exec(s);
  return m ? [m[1]] : [];
}
