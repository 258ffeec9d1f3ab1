/**
 * The second candidate path of the AML name index (src/engines/aml/edit-index.ts): listed words
 * one edit from the query's words, found through deletion keys and checked by exact distance.
 */
import { describe, expect, it } from 'vitest';
import { EditIndexBuilder, withinOneEdit } from '../../../src/engines/aml/edit-index.js';

describe('withinOneEdit', () => {
  it.each([
    ['dergham', 'dergham', true],
    ['dergham', 'derhgam', true], // two adjacent letters swapped
    ['dergham', 'dergam', true], // one letter dropped
    ['dergam', 'dergham', true], // one letter added
    ['dergham', 'derxham', true], // one letter replaced
    ['dergham', 'drehgam', false], // two swaps
    ['dergham', 'dergh', false], // two letters dropped
    ['abc', 'cba', false], // a swap of letters that are not adjacent is two edits
  ])('%s vs %s → %s', (a, b, expected) => {
    expect(withinOneEdit(a, b)).toBe(expected);
    expect(withinOneEdit(b, a)).toBe(expected);
  });
});

describe('EditIndex', () => {
  const names = ['duraid dergham', 'husayn ashami', 'al grein', 'hassan hussein', 'duraid smith', 'ahmad dergham nassar'];
  const build = () => {
    const builder = new EditIndexBuilder();
    names.forEach((name, ordinal) => builder.add(ordinal, name));
    return builder.finish();
  };

  it('given a name with two letters swapped in every word, when matched, then the listed name covers every word and no other name does', () => {
    const index = build();
    const matches = index.match('duarid derhgam', () => true);
    expect(matches.find((m) => m.name === 0)).toEqual({ name: 0, covered: 2, unmatched: 0 });
    // "Duraid Smith" and "Ahmad Dergham Nassar" share one word only: a two-word query needs two.
    expect(matches.map((m) => m.name)).toEqual([0]);
  });

  it('given a longer listed name, when matched, then its words left over are counted', () => {
    const index = build();
    expect(index.match('ahmed dergham', () => true)).toEqual([{ name: 5, covered: 2, unmatched: 1 }]);
  });

  it('given a one-word query, when matched, then one covered word is enough, and words shorter than three letters are not looked up', () => {
    const index = build();
    expect(index.match('al rgein', () => true)).toEqual([{ name: 2, covered: 1, unmatched: 0 }]);
    expect(index.match('al', () => true)).toEqual([]);
  });

  it('given words two edits away, when matched, then they are not found', () => {
    const index = build();
    expect(index.match('hsaasn hsuesin', () => true)).toEqual([]);
    expect(index.similarWords('dreghma')).toEqual([]);
  });

  it('given a filter, when matched, then names it refuses are left out, and the scratch state does not leak into the next lookup', () => {
    const index = build();
    expect(index.match('husayn ashami', (name) => name !== 1)).toEqual([]);
    expect(index.match('husayn ashami', () => true)).toEqual([{ name: 1, covered: 2, unmatched: 0 }]);
  });
});
