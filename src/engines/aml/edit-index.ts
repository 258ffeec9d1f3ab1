/**
 * The second candidate path of the in-memory name index (name-index.ts): listed names whose
 * words are each at most one edit (insertion, deletion, substitution, or two adjacent letters
 * swapped) from the query's words.
 *
 * Why: trigram similarity falls fast when every word of a name carries a typo ("Duarid DERHGAM"
 * shares 4 of 20 trigrams with "Duraid DERGHAM", similarity 0.17 against the 0.4 the candidate
 * query needs), so the scorer never sees names it would score 85. Measured on the development
 * lists with one transposition in every word of 300 listed names: the trigram path alone lost 13
 * hits scoring 80 or more. One edit per word is what a slip of the hand does; the scorer decides
 * whether the names are alike enough.
 *
 * How: a deletion neighbourhood (the "symmetric delete" of SymSpell). Every listed word of at
 * least EDIT_MIN_TOKEN_LENGTH letters is filed under a hash of itself and of each string it
 * becomes with one letter deleted; a query word looks up the same keys. Two words one edit apart
 * always share a key (a swap of two letters: delete either), and the words found are checked
 * with the exact distance, so hash collisions and two-edit pairs sharing a key are dropped.
 * Everything is held in typed arrays, like the trigram postings, so a million names cost tens of
 * megabytes, not a JavaScript object per word.
 */

/** Shortest word filed and looked up; one edit from a two-letter word ("al", "bn") is almost any short word. */
export const EDIT_MIN_TOKEN_LENGTH = 3;

/**
 * Words filed and looked up: EDIT_MIN_TOKEN_LENGTH letters or more, with a vowel. The stored
 * consonant skeletons ("nkls mdr") are not spelled names, and a spelled word one edit from a
 * skeleton word is a coincidence; leaving them out halves the index.
 */
function isFiled(word: string): boolean {
  return word.length >= EDIT_MIN_TOKEN_LENGTH && /[aeiouy]/.test(word);
}

/** Most query words one lookup considers (a bit each in a 32-bit mask); longer names are cut, their first words kept. */
const MAX_QUERY_TOKENS = 32;

/** 32-bit FNV-1a hash of `word` with the character at `skip` left out (-1: none), without building the shorter string. */
function deletionHash(word: string, skip: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i += 1) {
    if (i === skip) continue;
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Positions whose deletion yields a distinct string: in a run of one letter ("ll") deleting any of them gives the same word. */
function deletionPositions(word: string): number[] {
  const positions: number[] = [-1];
  for (let i = 0; i < word.length; i += 1) if (i === 0 || word[i] !== word[i - 1]) positions.push(i);
  return positions;
}

/**
 * True when `a` and `b` are at most one edit apart (optimal string alignment: one insertion,
 * deletion, substitution, or swap of two adjacent letters).
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i += 1;
  if (la === lb) {
    // One substitution at i, or a swap of i and i + 1; the rest must then be equal.
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // One letter more on the longer side, at i.
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** One name's match: how many distinct query words found a word of it, and how many of its words went unmatched. */
export interface EditMatch {
  /** Ordinal of the name, as given to `add`. */
  name: number;
  /** Query words with a word of this name at most one edit away. */
  covered: number;
  /** Words of the name (filed ones, isFiled) that no query word matched; fewer is a closer name. */
  unmatched: number;
}

/** Collects the words of listed names while an index is built; `finish` turns them into an EditIndex. */
export class EditIndexBuilder {
  private readonly vocabulary = new Map<string, number>();
  private pairTokens: number[] = [];
  private pairNames: number[] = [];
  private readonly nameTokenCounts: number[] = [];

  /** Files the words of one normalised name (`[a-z0-9]` words joined by spaces) under name ordinal `name` (0, 1, 2… in order); see isFiled. */
  add(name: number, normalized: string): void {
    const words = new Set(normalized.split(' ').filter(isFiled));
    this.nameTokenCounts[name] = Math.min(255, words.size);
    for (const word of words) {
      let token = this.vocabulary.get(word);
      if (token === undefined) {
        token = this.vocabulary.size;
        this.vocabulary.set(word, token);
      }
      this.pairTokens.push(token);
      this.pairNames.push(name);
    }
  }

  /** The finished index; the builder is spent afterwards. */
  finish(): EditIndex {
    const words = [...this.vocabulary.keys()];
    const tokenCount = words.length;
    // Word texts as one latin1 buffer (normalised words are ASCII), for the exact distance check.
    const wordOffsets = new Uint32Array(tokenCount + 1);
    for (let t = 0; t < tokenCount; t += 1) wordOffsets[t + 1] = wordOffsets[t]! + words[t]!.length;
    const wordBytes = Buffer.from(words.join(''), 'latin1');
    // Postings, word → names (ascending, since names are added in order): compressed sparse rows.
    const tokenOffsets = new Uint32Array(tokenCount + 1);
    for (const token of this.pairTokens) tokenOffsets[token + 1]! += 1;
    for (let t = 0; t < tokenCount; t += 1) tokenOffsets[t + 1]! += tokenOffsets[t]!;
    const tokenPostings = new Uint32Array(this.pairTokens.length);
    const cursor = tokenOffsets.slice(0, tokenCount);
    for (let p = 0; p < this.pairTokens.length; p += 1) tokenPostings[cursor[this.pairTokens[p]!]!++] = this.pairNames[p]!;
    this.pairTokens = [];
    this.pairNames = [];
    // Deletion keys → words, bucketed by the key's low bits (about two keys per bucket: the
    // offsets cost as much as the keys at one per bucket, and a lookup checks a few more words).
    let keyCount = 0;
    for (const word of words) keyCount += deletionPositions(word).length;
    let buckets = 1;
    while (buckets * 2 < keyCount) buckets *= 2;
    const bucketOffsets = new Uint32Array(buckets + 1);
    const mask = buckets - 1;
    for (const word of words) for (const skip of deletionPositions(word)) bucketOffsets[(deletionHash(word, skip) & mask) + 1]! += 1;
    for (let b = 0; b < buckets; b += 1) bucketOffsets[b + 1]! += bucketOffsets[b]!;
    const bucketTokens = new Uint32Array(keyCount);
    const fill = bucketOffsets.slice(0, buckets);
    for (let t = 0; t < tokenCount; t += 1) {
      for (const skip of deletionPositions(words[t]!)) bucketTokens[fill[deletionHash(words[t]!, skip) & mask]!++] = t;
    }
    return new EditIndex(
      wordBytes,
      wordOffsets,
      tokenOffsets,
      tokenPostings,
      bucketOffsets,
      bucketTokens,
      Uint8Array.from(this.nameTokenCounts),
    );
  }
}

/** Listed words by deletion keys and their names; built by EditIndexBuilder, immutable. */
export class EditIndex {
  /** Scratch: per name, the bits of the query words that matched one of its words (lookups are synchronous). */
  private masks: Uint32Array;
  private touched: Uint32Array;

  /** Arrays as EditIndexBuilder.finish lays them out (see there). */
  constructor(
    private readonly wordBytes: Buffer,
    private readonly wordOffsets: Uint32Array,
    private readonly tokenOffsets: Uint32Array,
    private readonly tokenPostings: Uint32Array,
    private readonly bucketOffsets: Uint32Array,
    private readonly bucketTokens: Uint32Array,
    private readonly nameTokenCounts: Uint8Array,
  ) {
    this.masks = new Uint32Array(nameTokenCounts.length);
    this.touched = new Uint32Array(nameTokenCounts.length);
  }

  /** Bytes held by the arrays, scratch included. */
  get bytes(): number {
    return (
      this.wordBytes.byteLength +
      this.wordOffsets.byteLength +
      this.tokenOffsets.byteLength +
      this.tokenPostings.byteLength +
      this.bucketOffsets.byteLength +
      this.bucketTokens.byteLength +
      this.nameTokenCounts.byteLength +
      this.masks.byteLength +
      this.touched.byteLength
    );
  }

  /** Listed words (token ids) at most one edit from `word`. */
  similarWords(word: string): number[] {
    const found = new Set<number>();
    const mask = this.bucketOffsets.length - 2;
    for (const skip of deletionPositions(word)) {
      const bucket = deletionHash(word, skip) & mask;
      for (let p = this.bucketOffsets[bucket]!; p < this.bucketOffsets[bucket + 1]!; p += 1) {
        const token = this.bucketTokens[p]!;
        if (found.has(token)) continue;
        const listed = this.wordBytes.toString('latin1', this.wordOffsets[token], this.wordOffsets[token + 1]);
        if (withinOneEdit(word, listed)) found.add(token);
      }
    }
    return [...found];
  }

  /**
   * Names holding a word at most one edit from each of at least `min(2, words)` of the query's
   * words (of filed length, distinct), with how many they cover. `accept` filters names (by list).
   */
  match(normalized: string, accept: (name: number) => boolean): EditMatch[] {
    const words = [...new Set(normalized.split(' ').filter(isFiled))].slice(0, MAX_QUERY_TOKENS);
    if (words.length === 0) return [];
    const { masks, touched } = this;
    let touchedCount = 0;
    words.forEach((word, bit) => {
      for (const token of this.similarWords(word)) {
        for (let p = this.tokenOffsets[token]!; p < this.tokenOffsets[token + 1]!; p += 1) {
          const name = this.tokenPostings[p]!;
          if (masks[name] === 0) touched[touchedCount++] = name;
          masks[name]! |= 1 << bit;
        }
      }
    });
    const needed = Math.min(2, words.length);
    const matches: EditMatch[] = [];
    for (let i = 0; i < touchedCount; i += 1) {
      const name = touched[i]!;
      const covered = bitCount(masks[name]!);
      masks[name] = 0;
      if (covered < needed || !accept(name)) continue;
      matches.push({ name, covered, unmatched: Math.max(0, this.nameTokenCounts[name]! - covered) });
    }
    return matches;
  }
}

/** Number of set bits of a 32-bit integer. */
function bitCount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
