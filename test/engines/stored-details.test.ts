import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { storedDetails } from '../../src/engines/stored-details.js';
import { createSandboxEngines } from '../../src/engines/sandbox/index.js';
import { CATALOGUE_CASES, CONTEXT, NOW, inputWith } from './sandbox-cases.js';
import { storedFlipProblems } from '../support/stored-keys.js';

/**
 * Operation under test: `storedDetails(engine.run(input).details)`, the one case flip where a
 * result is kept. The fixture holds each sandbox catalogue outcome's details exactly as `main`
 * stored them before engines moved to camelCase (JSON.stringify, key order included).
 */

const FIXTURE = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/sandbox-stored-details.json');
const STORED_ON_MAIN = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string>;
const engines = createSandboxEngines({ now: () => NOW });

describe('storedDetails', () => {
  it('given the fixture, then it covers every sandbox catalogue case', () => {
    expect(Object.keys(STORED_ON_MAIN).sort()).toEqual(CATALOGUE_CASES.map(({ nodeType, value }) => `${nodeType} ${value}`).sort());
  });

  describe.each(CATALOGUE_CASES)('given $nodeType with $value', ({ nodeType, value }) => {
    it('when run and converted, then the JSON is byte-equal to what main stored', async () => {
      const result = await engines[nodeType].run(inputWith(nodeType, value) as never, CONTEXT);
      expect(JSON.stringify(storedDetails(result.details))).toBe(STORED_ON_MAIN[`${nodeType} ${value}`]);
    });
  });

  it('given camelCase keys at every depth, then each becomes snake_case in place, arrays and nulls kept', () => {
    const converted = storedDetails({ resultCode: 'clear', extracted: { lastNameViz: null }, hits: [{ entryId: 'x1', riskBand: 5 }] });
    expect(JSON.stringify(converted)).toBe(
      '{"result_code":"clear","extracted":{"last_name_viz":null},"hits":[{"entry_id":"x1","risk_band":5}]}',
    );
  });

  it('given keys already in snake_case or with digits, then they are unchanged (engines not yet moved pass through)', () => {
    const stored = { result_code: 'clear', date_of_birth: '1990-01-01', dg2: 'passed' };
    expect(JSON.stringify(storedDetails(stored))).toBe(JSON.stringify(stored));
  });

  it('given keys that are data, not camelCase field names (AAMVA element ids, country codes, a leading underscore), then they are unchanged', () => {
    const stored = { elements: { DCS: 'DOE', DAQ: 'D123' }, by_country: { US: 2, GB: 1 }, _note: 'kept', ageOver18: true };
    expect(JSON.stringify(storedDetails(stored))).toBe(
      '{"elements":{"DCS":"DOE","DAQ":"D123"},"by_country":{"US":2,"GB":1},"_note":"kept","age_over18":true}',
    );
  });

  it('given details two of whose keys become one, or a key the flip leaves camelCase, then the live-output check names each', () => {
    expect(storedFlipProblems({ resultCode: 'clear', extracted: { lastName: 'A', last_name: 'B' } })).toEqual([
      '$.extracted: 2 keys became 1',
    ]);
    expect(storedFlipProblems({ hits: [{ LastName: 'x' }] })).toEqual(['camelCase key left: LastName']);
    expect(storedFlipProblems({ resultCode: 'clear', checks: { mrzMatch: 'passed' } })).toEqual([]);
  });
});
