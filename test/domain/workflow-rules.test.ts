import { describe, expect, it } from 'vitest';
import type { NodeResult, NodeStatus, NodeType } from '../../src/domain/types.js';
import { decideVerdict, type VerdictInput, type VerdictWorkflow } from '../../src/domain/verdict.js';
import {
  ageOn,
  amlRiskBand,
  conditionHolds,
  decideWithRules,
  ruledNodeStates,
  ruleFacts,
  ruleIssues,
  type RuleAmlDetails,
  type RuleDocumentDetails,
  type RuleFacts,
  type WorkflowRule,
} from '../../src/domain/workflow-rules.js';

/** Operations under test: `ruleIssues` (validation on save), `ruleFacts` (what conditions read), `decideWithRules`. */

const WORKFLOW: VerdictWorkflow = {
  nodes: [
    { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
    { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
    { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
    { type: 'proof_of_address', required: false, provider: 'openkyc:poa_ocr' },
  ],
  complianceLevel: 'standard',
};
const NODE_TYPES = WORKFLOW.nodes.map((node) => node.type);
const TODAY = new Date('2026-11-26T12:00:00Z');

function result(status: NodeStatus, details: Record<string, unknown> = {}): NodeResult {
  return { status, required: true, provider: 'test:job', warnings: [], details };
}

function documentResult(country: string, dateOfBirth = '1990-01-01'): NodeResult {
  return result('passed', {
    issuing_country: country,
    document_type: 'passport',
    extracted: { date_of_birth: dateOfBirth, nationality: country },
  });
}

function input(nodeResults: VerdictInput['nodeResults'], amlScore: number | null = 10, metadata: Record<string, unknown> = {}) {
  const facts = ruleFacts({
    environment: 'sandbox',
    metadata,
    nodeTypes: NODE_TYPES,
    nodeResults,
    // The stored details as the session layer would pass them (storedDetailsOf).
    documentDetails: (nodeResults.document_verification?.details ?? {}) as RuleDocumentDetails,
    amlDetails: (nodeResults.aml_screening?.details ?? {}) as RuleAmlDetails,
    listHits: [],
    sessionWarnings: [],
    amlScore,
    today: TODAY,
  });
  return { workflow: WORKFLOW, nodeResults, listHits: [], amlScore, sessionWarnings: [], facts };
}

const PASSED_WITHOUT_POA = {
  document_verification: documentResult('GB'),
  biometric_kyc: result('passed'),
  aml_screening: result('passed', { score: 10, hits: [] }),
} satisfies Partial<Record<NodeType, NodeResult>>;

describe('rule validation on save', () => {
  it('given well-formed rules, when validated, then there is no issue', () => {
    const rules: WorkflowRule[] = [
      {
        id: 'poa_outside_eu',
        when: { '!': { in: [{ var: 'document.country' }, ['FR', 'DE']] } },
        then: 'run_node',
        node: 'proof_of_address',
      },
      { id: 'minors', when: { '<': [{ var: 'age' }, 18] }, then: 'decline', reason: 'underage' },
      { id: 'high_risk', when: { '==': [{ var: 'aml.risk_band' }, 'high'] }, then: 'review' },
      { id: 'vip', when: { '==': [{ var: 'metadata.tier' }, 'vip'] }, then: 'approve' },
    ];
    expect(ruleIssues(rules, NODE_TYPES)).toEqual([]);
  });

  it('given an unknown operator deep in a condition, when validated, then the issue names its path', () => {
    const rules = [{ id: 'r', when: { and: [true, { or: [{ method: ['x', 'y'] }] }] }, then: 'review' }];
    expect(ruleIssues(rules, NODE_TYPES)).toEqual([
      { path: ['rules', 0, 'when', 'and', 1, 'or', 0, 'method'], message: expect.stringContaining('unknown operator method') },
    ]);
  });

  it('given an unknown fact, a node outside the workflow, a reason outside the catalogue and a duplicate id, when validated, then each is named', () => {
    const rules = [
      { id: 'a', when: { '==': [{ var: 'session.secret' }, 1] }, then: 'review' },
      { id: 'a', when: true, then: 'run_node', node: 'phone_verification' },
      { id: 'c', when: true, then: 'decline', reason: 'because_i_said_so' },
      { id: 'd', when: true, then: 'decline' },
      { id: 'e', when: true, then: 'explode' },
    ];
    const paths = ruleIssues(rules, NODE_TYPES).map((issue) => issue.path.join('.'));
    expect(paths).toEqual(['rules.0.when.==.0.var', 'rules.1.id', 'rules.1.node', 'rules.2.reason', 'rules.3.reason', 'rules.4.then']);
  });

  it('given a condition nested too deep, when validated, then it is refused (evaluation stays bounded)', () => {
    let condition: unknown = true;
    for (let level = 0; level < 20; level += 1) condition = { '!': [condition] };
    expect(ruleIssues([{ id: 'deep', when: condition, then: 'review' }], NODE_TYPES)[0]?.message).toMatch(/deeper/);
  });
});

describe('evaluation', () => {
  it('given a condition that cannot be evaluated on the facts, when decided, then it does not hold (never a crash)', () => {
    const facts = input(PASSED_WITHOUT_POA).facts;
    expect(conditionHolds({ in: ['x', { var: 'age' }] }, facts)).toBe(false);
    expect(conditionHolds({ some: [{ var: 'age' }, { '==': [{ var: '' }, 1] }] }, facts)).toBe(false);
    expect(conditionHolds({ in: [{ var: 'document.country' }, ['GB']] }, facts)).toBe(true);
  });
});

describe('facts a condition reads', () => {
  it('given a date of birth, when the age is taken, then it counts whole years to the day', () => {
    expect(ageOn('2008-11-26', TODAY)).toBe(18);
    expect(ageOn('2008-11-27', TODAY)).toBe(17);
    expect(ageOn('not a date', TODAY)).toBeNull();
    expect(ageOn(null, TODAY)).toBeNull();
  });

  it('given AML scores, when banded, then none, low, medium and high follow the score', () => {
    expect([null, 0, 29, 30, 69, 70, 100].map(amlRiskBand)).toEqual(['none', 'low', 'low', 'medium', 'medium', 'high', 'high']);
  });

  it('given stored results, when facts are built, then document, age, AML, warnings, nodes and metadata are there', () => {
    const facts: RuleFacts = input(PASSED_WITHOUT_POA, 45, { tier: 'gold' }).facts;
    expect(facts).toMatchObject({
      environment: 'sandbox',
      metadata: { tier: 'gold' },
      document: { country: 'GB', type: 'passport', nationality: 'GB', date_of_birth: '1990-01-01' },
      age: 36,
      aml: { score: 45, risk_band: 'medium', hits: 0 },
      lists: { hits: 0 },
      nodes: { document_verification: 'passed', proof_of_address: 'pending' },
    });
  });
});

describe('the verdict with rules', () => {
  it('given no rules, when decided, then it is exactly the verdict without rules', () => {
    const given = input(PASSED_WITHOUT_POA);
    const { matchedRules, ...verdict } = decideWithRules({ ...given, rules: [] });
    expect(verdict).toEqual(decideVerdict(given));
    expect(matchedRules).toEqual([]);
  });

  it('given a rule that runs proof of address for some countries, when a document of one of them arrives, then the verdict waits for the address', () => {
    const rules: WorkflowRule[] = [
      { id: 'poa_for_gb', when: { in: [{ var: 'document.country' }, ['GB', 'US']] }, then: 'run_node', node: 'proof_of_address' },
    ];
    expect(decideWithRules({ ...input(PASSED_WITHOUT_POA), rules })).toMatchObject({ status: null, gatingNode: 'proof_of_address' });
    const french = { ...PASSED_WITHOUT_POA, document_verification: documentResult('FR') };
    expect(decideWithRules({ ...input(french), rules })).toMatchObject({ status: 'approved', matchedRules: [] });
  });

  it('given a rule that skips a failed required node, when decided, then the failure counts for nothing', () => {
    const failedFace = { ...PASSED_WITHOUT_POA, biometric_kyc: result('failed', { result_code: 'face_mismatch' }) };
    expect(decideVerdict(input(failedFace)).status).toBe('declined');
    const rules: WorkflowRule[] = [
      { id: 'reused', when: { '==': [{ var: 'metadata.reused' }, true] }, then: 'skip_node', node: 'biometric_kyc' },
    ];
    expect(decideWithRules({ ...input(failedFace, 10, { reused: true }), rules }).status).toBe('approved');
  });

  it('given a decline rule on age, when a minor is decided, then it declines with the rule and its catalogue code', () => {
    const minor = { ...PASSED_WITHOUT_POA, document_verification: documentResult('GB', '2012-05-01') };
    const rules: WorkflowRule[] = [{ id: 'adults_only', when: { '<': [{ var: 'age' }, 18] }, then: 'decline', reason: 'underage' }];
    const verdict = decideWithRules({ ...input(minor), rules });
    expect(verdict.status).toBe('declined');
    expect(verdict.reasons[0]).toMatchObject({ code: 'rule_decline', cause: 'underage' });
    expect(verdict.matchedRules).toEqual(['adults_only']);
  });

  it('given a stricter AML threshold as a rule, when a medium score is decided, then it declines where the workflow approved', () => {
    const rules: WorkflowRule[] = [
      { id: 'aml_60', when: { '>=': [{ var: 'aml.score' }, 60] }, then: 'decline', reason: 'aml_score_at_or_above_threshold' },
    ];
    expect(decideWithRules({ ...input(PASSED_WITHOUT_POA, 65), rules }).status).toBe('declined');
    expect(decideWithRules({ ...input(PASSED_WITHOUT_POA, 55), rules }).status).toBe('approved');
  });

  it('given a review rule for high-risk nationalities, when an approval comes, then it goes to review; an approve rule turns a review into an approval but never a decline', () => {
    const rules: WorkflowRule[] = [{ id: 'enhanced', when: { in: [{ var: 'document.nationality' }, ['IR', 'KP']] }, then: 'review' }];
    const iranian = { ...PASSED_WITHOUT_POA, document_verification: documentResult('IR') };
    expect(decideWithRules({ ...input(iranian), rules }).reasons[0]).toMatchObject({ code: 'rule_review', cause: 'rule_review' });

    const approve: WorkflowRule[] = [{ id: 'repeat', when: { '==': [{ var: 'metadata.repeat' }, true] }, then: 'approve' }];
    const review = { ...PASSED_WITHOUT_POA, aml_screening: result('review', { score: 20, hits: [{}] }) };
    expect(decideWithRules({ ...input(review, 20, { repeat: true }), rules: approve })).toMatchObject({
      status: 'approved',
      complianceLevel: 'standard',
    });
    const failed = { ...PASSED_WITHOUT_POA, biometric_kyc: result('failed') };
    expect(decideWithRules({ ...input(failed, 20, { repeat: true }), rules: approve }).status).toBe('declined');
  });
});

describe('stored node states under rules', () => {
  const runPoa: WorkflowRule = { id: 'poa', when: true, then: 'run_node', node: 'proof_of_address' };
  const skipSelfie: WorkflowRule = { id: 'no_selfie', when: true, then: 'skip_node', node: 'biometric_kyc' };
  const stored = (status: NodeStatus, required: boolean) => ({ status, required });

  it('given a run_node rule, when states are taken, then the optional node becomes required and nothing else changes', () => {
    const states = ruledNodeStates(WORKFLOW.nodes, [runPoa], {
      document_verification: stored('passed', true),
      proof_of_address: stored('pending', false),
    });
    expect(states).toEqual([{ type: 'proof_of_address', required: true, status: 'pending' }]);
  });

  it('given a skip_node rule, when states are taken, then a pending node is skipped and optional; a done one keeps its result', () => {
    expect(ruledNodeStates(WORKFLOW.nodes, [skipSelfie], { biometric_kyc: stored('pending', true) })).toEqual([
      { type: 'biometric_kyc', required: false, status: 'skipped' },
    ]);
    expect(ruledNodeStates(WORKFLOW.nodes, [skipSelfie], { biometric_kyc: stored('failed', true) })).toEqual([
      { type: 'biometric_kyc', required: false, status: 'failed' },
    ]);
  });

  it('given rules that no longer hold, when states are taken, then the workflow flags and pending come back', () => {
    expect(
      ruledNodeStates(WORKFLOW.nodes, [], { biometric_kyc: stored('skipped', false), proof_of_address: stored('pending', true) }),
    ).toEqual([
      { type: 'biometric_kyc', required: true, status: 'pending' },
      { type: 'proof_of_address', required: false, status: 'pending' },
    ]);
    expect(ruledNodeStates(WORKFLOW.nodes, [], { document_verification: stored('passed', true) })).toEqual([]);
  });
});
