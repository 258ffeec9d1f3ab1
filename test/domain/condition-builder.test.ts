import { describe, expect, it } from 'vitest';
import { ruleIssues } from '../../src/domain/workflow-rules.js';
import {
  branchPoint,
  builtOf,
  changesInWords,
  conditionLogic,
  conditionWords,
  factsKnownAt,
  type BuiltCondition,
} from '../../src/web/console/condition-builder.js';

/** Operations under test: the console's condition builder (facts by point, JSON Logic both ways, where a branch is drawn). */

const STEPS = ['document_verification', 'biometric_kyc', 'aml_screening', 'proof_of_address'];

describe('the condition builder', () => {
  it('given the points of a workflow, when facts are offered, then each is offered from the step that makes it known', () => {
    const paths = (point: number) => factsKnownAt(point, STEPS).map((fact) => fact.path);
    expect(paths(-1)).toEqual(['environment', 'metadata']);
    expect(paths(0)).toEqual(expect.arrayContaining(['document.country', 'age', 'lists.hits', 'warnings', 'nodes.document_verification']));
    expect(paths(0)).not.toContain('aml.score');
    expect(paths(2)).toEqual(expect.arrayContaining(['aml.score', 'aml.risk_band', 'nodes.aml_screening']));
    // A workflow without a document step offers no document fact.
    expect(factsKnownAt(0, ['aml_screening']).map((fact) => fact.path)).not.toContain('document.country');
  });

  it('given built conditions, when written as JSON Logic, then the server accepts them and they read back the same', () => {
    const conditions: BuiltCondition[] = [
      { join: 'and', clauses: [] },
      { join: 'and', clauses: [{ fact: 'aml.score', operator: '>=', value: '50' }] },
      {
        join: 'or',
        clauses: [
          { fact: 'document.country', operator: 'in', value: 'IR, KP' },
          { fact: 'metadata.plan', operator: '==', value: 'premium' },
          { fact: 'warnings', operator: 'lacks', value: 'name_mismatch' },
          { fact: 'document.nationality', operator: 'not_in', value: 'FR' },
        ],
      },
    ];
    for (const built of conditions) {
      const logic = conditionLogic(built);
      expect(ruleIssues([{ id: 'r', when: logic, then: 'review' }], STEPS as never)).toEqual([]);
      expect(builtOf(logic)).toEqual(built.clauses.length === 1 ? { ...built, join: 'and' } : built);
    }
    expect(conditionLogic(conditions[1]!)).toEqual({ '>=': [{ var: 'aml.score' }, 50] });
    expect(conditionLogic(conditions[2]!)).toMatchObject({ or: [{ in: [{ var: 'document.country' }, ['IR', 'KP']] }, {}, {}, {}] });
  });

  it('given conditions richer than clauses, when read back, then the builder leaves them to the JSON editor', () => {
    expect(builtOf({ and: [{ or: [true, false] }] })).toBeNull();
    expect(builtOf({ '>': [{ '+': [{ var: 'age' }, 1] }, 18] })).toBeNull();
  });

  it('given conditions, when drawn, then a branch sits after the last step whose facts it reads and reads in words', () => {
    expect(branchPoint(true, STEPS)).toBe(-1);
    expect(branchPoint({ '==': [{ var: 'metadata.plan' }, 'x'] }, STEPS)).toBe(-1);
    expect(branchPoint({ in: [{ var: 'document.country' }, ['GB']] }, STEPS)).toBe(0);
    expect(branchPoint({ and: [{ '<': [{ var: 'age' }, 18] }, { '>=': [{ var: 'aml.score' }, 50] }] }, STEPS)).toBe(2);
    expect(branchPoint({ '==': [{ var: 'nodes.proof_of_address' }, 'failed'] }, STEPS)).toBe(3);
    expect(conditionWords({ '>=': [{ var: 'aml.score' }, 50] }, STEPS)).toBe('AML score (0–100) is at least 50');
    expect(conditionWords({ '!': { in: [{ var: 'document.country' }, ['FR', 'DE']] } }, STEPS)).toBe(
      'Document issuing country is none of FR, DE',
    );
  });

  it('given two revisions, when compared in words, then steps, branches and settings that changed are each named', () => {
    const from = {
      nodes: [
        { type: 'document_verification', required: true },
        { type: 'proof_of_address', required: false },
      ],
      rules: [{ id: 'old', when: true, then: 'review' }],
      amlScoreThreshold: 80,
    };
    const to = {
      nodes: [
        { type: 'document_verification', required: true },
        { type: 'proof_of_address', required: true },
        { type: 'aml_screening', required: true },
      ],
      rules: [{ id: 'aml_50', when: { '>=': [{ var: 'aml.score' }, 50] }, then: 'decline', reason: 'aml_score_at_or_above_threshold' }],
      amlScoreThreshold: 70,
    };
    expect(changesInWords(from, to)).toEqual([
      'Proof of address is now required (was optional).',
      'Step added: AML screening (required).',
      'Branch added: aml_50, if AML score (0–100) is at least 50 → decline (aml_score_at_or_above_threshold).',
      'Branch removed: old, if always → send to review.',
      'amlScoreThreshold: 80 → 70.',
    ]);
    expect(changesInWords(from, from)).toEqual([]);
  });
});
