import { describe, expect, it } from 'vitest';
import { nameTokens, nameVariants, normalizeName, sortedTokenKey } from '../../../src/engines/aml/normalize.js';
import { jaro, jaroWinkler, softTokenScore, tokenSimilarity } from '../../../src/engines/aml/metrics.js';

describe('normalizeName', () => {
  it.each([
    ['José Müller', 'jose muller'],
    ['  JOHN   o’Brien ', 'john obrien'],
    ['Владимир Путин', 'vladimir putin'],
    ['Ιωάννης Καραμολέγκος', 'ioannis karamolegkos'],
    ['Łukasz Straße', 'lukasz strasse'],
    ['Ｊｏｈｎ Ｓｍｉｔｈ', 'john smith'],
    ['Mr. John Smith Jr.', 'john smith'],
    ['Dr Hélène Marchetti-Dubois', 'helene marchetti dubois'],
    ['Saddam Hussein al-Tikriti', 'saddam hussein tikriti'],
    ['Mohammed bin Salman', 'mohammed salman'],
    ['Mohammed ibn Salman', 'mohammed salman'],
    ['Al Smith', 'al smith'],
    ['Wang Bin', 'wang bin'],
    ['Al-Qaida', 'al qaida'],
    ['Mr', 'mr'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it('transliterates Arabic script (unvocalised) and drops the connective "bn"', () => {
    expect(normalizeName('محمد بن سلمان')).toBe('mhmd slmn');
  });

  it('transliterates Han and Hangul one syllable per token', () => {
    expect(nameTokens('王小明')).toEqual(['wang', 'xiao', 'ming']);
    expect(nameTokens('박철민')).toEqual(['bag', 'cheol', 'min']);
  });

  it('sortedTokenKey ignores token order, case and punctuation', () => {
    expect(sortedTokenKey('KRAVETSKY, Borislav')).toBe('borislav kravetsky');
    expect(sortedTokenKey('Borislav Kravetsky')).toBe(sortedTokenKey('kravetsky borislav'));
  });

  it('nameVariants adds the German umlaut spelling only when there is an umlaut', () => {
    expect(nameVariants('José Müller')).toEqual(['jose muller', 'jose mueller']);
    expect(nameVariants('Jose Mueller')).toEqual(['jose mueller']);
    expect(nameVariants('Jo\u0308rg')).toEqual(['jorg', 'joerg']);
  });
});

describe('string metrics', () => {
  it('jaro and jaro-winkler match textbook values', () => {
    expect(jaro('martha', 'marhta')).toBeCloseTo(0.944, 3);
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.961, 3);
    expect(jaroWinkler('dixon', 'dicksonx')).toBeCloseTo(0.813, 3);
    expect(jaroWinkler('abc', 'abc')).toBe(1);
    expect(jaroWinkler('', 'abc')).toBe(0);
    expect(jaroWinkler('abc', 'xyz')).toBe(0);
  });

  it('tokenSimilarity credits identity fully, fuzzy tokens less, initials partly, unrelated not at all', () => {
    expect(tokenSimilarity('john', 'john')).toBe(1);
    expect(tokenSimilarity('jon', 'john')).toBeGreaterThan(0.7);
    expect(tokenSimilarity('jon', 'john')).toBeLessThan(0.9);
    expect(tokenSimilarity('j', 'john')).toBe(0.6);
    expect(tokenSimilarity('david', 'daniel')).toBe(0);
  });

  it('softTokenScore is order-independent and charges missing tokens', () => {
    expect(softTokenScore(['john', 'smith'], ['smith', 'john'])).toBe(1);
    expect(softTokenScore(['john', 'smith'], ['john', 'paul', 'smith'])).toBeCloseTo(0.8, 5);
    expect(softTokenScore(['smith'], ['john', 'smith'])).toBeCloseTo(2 / 3, 5);
    expect(softTokenScore([], ['john'])).toBe(0);
  });
});
