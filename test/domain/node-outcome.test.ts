import { describe, expect, it } from 'vitest';
import { amlNodeStatus, expectedDetailsWarnings, normaliseName } from '../../src/domain/node-outcome.js';

/** Operations under test: the node outcome rules of src/domain/node-outcome.ts, shared by sandbox and live engines. */

describe('amlNodeStatus', () => {
  it('given a score at the threshold, then failed, hits or not', () => {
    expect(amlNodeStatus(80, 1, 80)).toBe('failed');
    expect(amlNodeStatus(95, 0, 80)).toBe('failed');
  });

  it('given hits below the threshold, then review', () => {
    expect(amlNodeStatus(79, 2, 80)).toBe('review');
  });

  it('given no hit below the threshold, then passed', () => {
    expect(amlNodeStatus(0, 0, 80)).toBe('passed');
  });
});

describe('expectedDetailsWarnings', () => {
  it('given no expected_details, then no warning', () => {
    expect(expectedDetailsWarnings({ first_name: 'Ada' }, undefined)).toEqual([]);
  });

  it('given names that differ only in case, accents and spacing, then no warning', () => {
    expect(
      expectedDetailsWarnings({ first_name: '  ÁDA ', last_name: 'Love  lace' }, { first_name: 'ada', last_name: 'love lace' }),
    ).toEqual([]);
  });

  it('given each compared field differing, then one warning per field with its code', () => {
    const warnings = expectedDetailsWarnings(
      { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1815-12-10', country: 'GB' },
      { first_name: 'Ann', last_name: 'Byron', date_of_birth: '1815-12-11', country: 'FR' },
    );
    expect(warnings.map((warning) => [warning.code, warning.field])).toEqual([
      ['name_mismatch', 'first_name'],
      ['name_mismatch', 'last_name'],
      ['date_of_birth_mismatch', 'date_of_birth'],
      ['country_mismatch', 'country'],
    ]);
  });

  it('given a field missing on one side, then it is not compared', () => {
    expect(expectedDetailsWarnings({ first_name: 'Ada' }, { last_name: 'Byron' })).toEqual([]);
  });
});

describe('normaliseName', () => {
  it('given accents, case and runs of spaces, then they fold', () => {
    expect(normaliseName('  Ádá   LOVELACE ')).toBe('ada lovelace');
  });
});
