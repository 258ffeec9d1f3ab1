/**
 * A pre-pass over a PDF's raw bytes that decodes every stream's whole filter chain (Flate, LZW,
 * ASCIIHex, ASCII85, RunLength, in any order and depth) and every object stream, counting the
 * bytes each stage puts out against one budget for the file, before pdf-lib or pdf.js sees it.
 * Both parsers decode whatever a file declares, uncapped: a 2 KB `[/FlateDecode /FlateDecode]`
 * chain or a Flate `/ObjStm` is a gigabyte for them (audit N1). Streams cannot sit inside object
 * streams (ISO 32000-1 §7.5.7), so scanning the file's own bytes for `stream` keywords finds all
 * of them. Image codecs (DCT, JPX, JBIG2, CCITT) end the count: their output is pixels, bounded by
 * the pixel cap where anything decodes them.
 */
import { createInflate } from 'node:zlib';

/** Thrown when the decoded bytes pass the budget; the message names the limit. */
export class PdfDecodeLimitError extends Error {
  override name = 'PdfDecodeLimitError';
}

/** Output chunk of the counting inflate: large enough that a budget is a few hundred chunks. */
const INFLATE_CHUNK_BYTES = 256 * 1024;

/** Filter names as pdf.js accepts them (full and abbreviated) → the decoder used here. */
const FILTERS: Record<string, 'flate' | 'lzw' | 'hex' | 'a85' | 'rle' | 'image' | 'crypt'> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  ASCIIHexDecode: 'hex',
  AHx: 'hex',
  ASCII85Decode: 'a85',
  A85: 'a85',
  RunLengthDecode: 'rle',
  RL: 'rle',
  DCTDecode: 'image',
  DCT: 'image',
  JPXDecode: 'image',
  JBIG2Decode: 'image',
  CCITTFaxDecode: 'image',
  CCF: 'image',
  Crypt: 'crypt',
};

/** A token of a PDF dictionary, as far as the pre-pass needs: names, numbers, `R`, brackets. */
type Token = { kind: 'name'; value: string } | { kind: 'number'; value: number } | { kind: 'other'; value: string };

/** A name's text with `#xx` escapes decoded, as pdf.js's lexer reads it (`/Flat#65Decode` is Flate). */
const unescapeName = (name: string) => name.replace(/#([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * The top-level entries of the dictionary text `source` (from `<<` to its `>>`), each key with
 * its value's tokens; nested dictionaries and strings are skipped as one opaque value, so a
 * decoy `/Filter` inside a nested dictionary is not read as the stream's.
 */
function topLevelEntries(source: string): Map<string, Token[]> {
  const entries = new Map<string, Token[]>();
  let depth = 0;
  let key: string | undefined;
  let value: Token[] = [];
  let arrayDepth = 0;
  const flush = () => {
    if (key !== undefined) entries.set(key, value);
    key = undefined;
    value = [];
  };
  const pattern = /<<|>>|\[|\]|\/[^\s/<>[\](){}%]*|\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|[+-]?\d+(?:\.\d*)?|[A-Za-z]+|\S/g;
  for (const match of source.matchAll(pattern)) {
    const text = match[0];
    if (text === '<<') {
      depth += 1;
      continue;
    }
    if (text === '>>') {
      depth -= 1;
      if (depth === 0) break;
      continue;
    }
    if (depth !== 1) continue;
    if (text === '[') arrayDepth += 1;
    else if (text === ']') arrayDepth -= 1;
    if (text.startsWith('/') && arrayDepth === 0 && (key === undefined || value.length > 0)) {
      flush();
      key = unescapeName(text.slice(1));
      continue;
    }
    if (key === undefined) continue;
    if (text.startsWith('/')) value.push({ kind: 'name', value: unescapeName(text.slice(1)) });
    else if (/^[+-]?\d/.test(text)) value.push({ kind: 'number', value: Number(text) });
    else value.push({ kind: 'other', value: text });
  }
  flush();
  return entries;
}

/** The value tokens of indirect object `number generation` when the file holds it outside object streams. */
function indirectObject(raw: string, number: number, generation: number): Token[] | undefined {
  const match = new RegExp(`(?<![0-9])${number}\\s+${generation}\\s+obj\\b([\\s\\S]{0,4096}?)endobj`).exec(raw);
  if (!match) return undefined;
  return [...topLevelEntries(`<< /V ${match[1]} >>`).values()][0];
}

/** Resolves `N G R` to the tokens of that object (once: a reference to a reference is not followed). */
function resolved(raw: string, tokens: Token[] | undefined): Token[] | undefined {
  if (tokens?.length === 3 && tokens[0].kind === 'number' && tokens[1].kind === 'number' && tokens[2].value === 'R')
    return indirectObject(raw, tokens[0].value, tokens[1].value);
  return tokens;
}

/** The budget every stage of every stream draws from; throws once it is overdrawn. */
class Budget {
  private used = 0;
  constructor(readonly limit: number) {}
  /** What may still be decoded. */
  get remaining() {
    return this.limit - this.used;
  }
  /** Counts `bytes` more of decoded output. */
  spend(bytes: number) {
    this.used += bytes;
    if (this.used > this.limit)
      throw new PdfDecodeLimitError(`its streams decode to more than ${this.limit} bytes (all filters and object streams together)`);
  }
}

/**
 * Inflates `input`, spending the budget chunk by chunk as output comes (a corrupt or truncated
 * stream counts what it put out before failing, as pdf.js would have decoded that much), and
 * returns the output when `keep` (another filter follows), otherwise an empty buffer.
 */
function inflateCounted(input: Uint8Array, budget: Budget, keep: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const inflater = createInflate({ chunkSize: INFLATE_CHUNK_BYTES });
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks));
    inflater.on('data', (chunk: Buffer) => {
      try {
        budget.spend(chunk.length);
      } catch (error) {
        inflater.destroy();
        reject(error as Error);
        return;
      }
      if (keep) chunks.push(chunk);
    });
    inflater.on('end', done);
    inflater.on('error', done);
    inflater.end(input);
  });
}

/** ASCIIHexDecode (whitespace and other bytes skipped as pdf.js does, `>` ends). */
function hexDecode(input: Uint8Array, budget: Budget): Buffer {
  const out = Buffer.alloc(Math.ceil(input.length / 2));
  let length = 0;
  let high = -1;
  for (const byte of input) {
    if (byte === 0x3e) break;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66 ? (byte | 0x20) - 0x57 : -1;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else {
      out[length++] = (high << 4) | digit;
      high = -1;
    }
  }
  if (high >= 0) out[length++] = high << 4;
  budget.spend(length);
  return out.subarray(0, length);
}

/** ASCII85Decode (`z` is four zero bytes, `~>` ends). */
function ascii85Decode(input: Uint8Array, budget: Budget): Buffer {
  const parts: number[] = [];
  let group: number[] = [];
  for (const byte of input) {
    if (byte === 0x7e) break;
    if (byte === 0x7a && group.length === 0) {
      budget.spend(4);
      parts.push(0, 0, 0, 0);
      continue;
    }
    if (byte < 0x21 || byte > 0x75) continue;
    group.push(byte - 0x21);
    if (group.length === 5) {
      const value = group.reduce((sum, digit) => sum * 85 + digit, 0);
      budget.spend(4);
      parts.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
      group = [];
    }
  }
  if (group.length > 1) {
    const count = group.length - 1;
    while (group.length < 5) group.push(84);
    const value = group.reduce((sum, digit) => sum * 85 + digit, 0);
    budget.spend(count);
    for (let index = 0; index < count; index++) parts.push((value >>> (24 - 8 * index)) & 0xff);
  }
  return Buffer.from(parts);
}

/** RunLengthDecode (a length byte then literal or repeated bytes; 128 ends). */
function runLengthDecode(input: Uint8Array, budget: Budget): Buffer {
  const chunks: Buffer[] = [];
  let position = 0;
  while (position < input.length) {
    const length = input[position++];
    if (length === 128) break;
    if (length < 128) {
      const literal = Buffer.from(input.subarray(position, position + length + 1));
      budget.spend(literal.length);
      chunks.push(literal);
      position += length + 1;
    } else {
      budget.spend(257 - length);
      chunks.push(Buffer.alloc(257 - length, input[position++] ?? 0));
    }
  }
  return Buffer.concat(chunks);
}

/** LZWDecode (9 to 12-bit codes, 256 clears, 257 ends), with `earlyChange` as the stream's parameters say. */
function lzwDecode(input: Uint8Array, budget: Budget, earlyChange: number): Buffer {
  const chunks: Buffer[] = [];
  let dictionary: Buffer[] = [];
  const reset = () => {
    dictionary = Array.from({ length: 258 }, (_, code) => Buffer.from([code & 0xff]));
  };
  reset();
  let codeLength = 9;
  let bits = 0;
  let bitCount = 0;
  let previous: Buffer | undefined;
  for (const byte of input) {
    bits = ((bits << 8) | byte) >>> 0;
    bitCount += 8;
    while (bitCount >= codeLength) {
      const code = (bits >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
      bitCount -= codeLength;
      bits &= (1 << bitCount) - 1;
      if (code === 256) {
        reset();
        codeLength = 9;
        previous = undefined;
        continue;
      }
      if (code === 257) return Buffer.concat(chunks);
      let entry: Buffer;
      if (code < dictionary.length) entry = dictionary[code];
      else if (previous && code === dictionary.length) entry = Buffer.concat([previous, previous.subarray(0, 1)]);
      else return Buffer.concat(chunks);
      budget.spend(entry.length);
      chunks.push(entry);
      if (previous && dictionary.length < 4096) dictionary.push(Buffer.concat([previous, entry.subarray(0, 1)]));
      previous = entry;
      const next = dictionary.length + earlyChange;
      codeLength = next >= 2048 ? 12 : next >= 1024 ? 11 : next >= 512 ? 10 : 9;
    }
  }
  return Buffer.concat(chunks);
}

/** The filter names of a stream dictionary, resolved once when indirect; an unreadable entry is an error. */
function filterChain(raw: string, entries: Map<string, Token[]>): string[] {
  const value = resolved(raw, entries.get('Filter') ?? entries.get('F'));
  if (!value || value.length === 0) return [];
  const names = value.filter((token) => token.kind === 'name').map((token) => token.value);
  if (names.length !== value.filter((token) => token.value !== '[' && token.value !== ']').length)
    throw new PdfDecodeLimitError('a stream names its filters in a form that cannot be checked against the decode limit');
  return names;
}

/** `/EarlyChange` of the first LZW stage's parameters (1 unless the dictionary says 0). */
function earlyChangeOf(entries: Map<string, Token[]>): number {
  const parameters = entries.get('DecodeParms') ?? entries.get('DP');
  const text = parameters?.map((token) => String(token.value)).join(' ') ?? '';
  return /EarlyChange\s+0/.test(text) ? 0 : 1;
}

/** Where the `<<` matching the `>>` at `closing` starts, counting nested dictionaries backwards; -1 when unbalanced. */
function openingOf(raw: string, closing: number): number {
  let depth = 0;
  for (let position = closing + 1; position > 0; position--) {
    const pair = raw.slice(position - 1, position + 1);
    if (pair === '>>') {
      depth += 1;
      position -= 1;
    } else if (pair === '<<') {
      depth -= 1;
      if (depth === 0) return position - 1;
      position -= 1;
    }
  }
  return -1;
}

/** Where the stream's data ends: at its declared `/Length` when that lands on `endstream`, else at the next `endstream`. */
function streamEnd(raw: string, start: number, entries: Map<string, Token[]>): { end: number; known: boolean } {
  const length = resolved(raw, entries.get('Length'));
  const declared = length?.length === 1 && length[0].kind === 'number' ? length[0].value : undefined;
  if (declared !== undefined && declared >= 0 && /^\s*endstream/.test(raw.slice(start + declared, start + declared + 32)))
    return { end: start + declared, known: true };
  const next = raw.indexOf('endstream', start);
  return { end: next < 0 ? raw.length : next, known: false };
}

/**
 * Decodes every stream of the file through its whole filter chain, counting every stage's output
 * against `maxDecodedBytes`; throws `PdfDecodeLimitError` naming the limit as soon as it is passed.
 * Memory stays within the budget (a stage's output is kept only when another stage follows).
 * When a stream's length cannot be established from the file's own bytes (an indirect `/Length`
 * kept in an object stream), its first stage is fed up to the end of the file: the decoders stop
 * at their own end marker, so that counts at least what a parser with the true length decodes.
 */
export async function assertDecodedSizeWithinLimit(bytes: Uint8Array, maxDecodedBytes: number): Promise<void> {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const budget = new Budget(maxDecodedBytes);
  for (const match of raw.matchAll(/(?<!end)stream(?:\r\n|\r|\n)/g)) {
    const dictionaryEnd = raw.lastIndexOf('>>', match.index);
    if (dictionaryEnd < 0 || raw.slice(dictionaryEnd + 2, match.index).trim() !== '') continue;
    const dictionaryStart = openingOf(raw, dictionaryEnd);
    if (dictionaryStart < 0) throw new PdfDecodeLimitError('a stream dictionary cannot be read to check it against the decode limit');
    const entries = topLevelEntries(raw.slice(dictionaryStart, dictionaryEnd + 2));
    const filters = filterChain(raw, entries);
    if (filters.length === 0) continue;
    const start = match.index + match[0].length;
    const { end, known } = streamEnd(raw, start, entries);
    let data: Uint8Array = bytes.subarray(start, known ? end : bytes.length);
    for (const [index, name] of filters.entries()) {
      const decoder = FILTERS[name];
      // An unknown filter makes pdf.js drop the stream; a codec's output is pixels (see the module comment).
      if (decoder === undefined || decoder === 'image') break;
      if (decoder === 'crypt') continue;
      const last = index === filters.length - 1;
      if (decoder === 'flate') data = await inflateCounted(data, budget, !last);
      else if (decoder === 'hex') data = hexDecode(data, budget);
      else if (decoder === 'a85') data = ascii85Decode(data, budget);
      else if (decoder === 'rle') data = runLengthDecode(data, budget);
      else data = lzwDecode(data, budget, index === 0 ? earlyChangeOf(entries) : 1);
    }
  }
}
