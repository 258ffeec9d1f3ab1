import { describe, expect, it } from 'vitest';
import {
  DECLINE_REASON_CODES,
  DEFAULT_AML_SCORE_THRESHOLD,
  REVIEW_REASON_CODES,
  VERDICT_REASON_CODES,
  decideVerdict,
  type Verdict,
  type VerdictInput,
  type VerdictWorkflow,
} from '../../src/domain/verdict.js';
import type { ListHit, NodeResult, NodeStatus, NodeType, Warning } from '../../src/domain/types.js';

/** Operation under test: `decideVerdict(input)`. */

const WORKFLOW: VerdictWorkflow = {
  nodes: [
    { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
    { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
    { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
    { type: 'phone_verification', required: false, provider: 'openkyc:sms_otp' },
  ],
  complianceLevel: 'standard',
};

const NAME_WARNING: Warning = { code: 'name_mismatch', message: 'Last name differs.', field: 'last_name' };

function result(status: NodeStatus, warnings: Warning[] = []): NodeResult {
  return { status, required: true, provider: 'test:job', warnings, details: {} };
}

function hit(policy: ListHit['policy'], nodeType: NodeType = 'document_verification', entryId = 'entry-1'): ListHit {
  return { listId: `list-${policy}`, listName: `${policy} list`, entryId, policy, nodeType };
}

const ALL_PASSED: VerdictInput['nodeResults'] = {
  document_verification: result('passed'),
  biometric_kyc: result('passed'),
  aml_screening: result('passed'),
  phone_verification: result('passed'),
};

/** A clean, approvable session; each case overrides what it is about. */
function given(overrides: Partial<VerdictInput> = {}): VerdictInput {
  return {
    workflow: WORKFLOW,
    nodeResults: ALL_PASSED,
    listHits: [],
    amlScore: 0,
    sessionWarnings: [],
    ...overrides,
  };
}

function withNodes(changes: VerdictInput['nodeResults']): VerdictInput['nodeResults'] {
  return { ...ALL_PASSED, ...changes };
}

const codes = (verdict: Verdict): string[] => verdict.reasons.map((reason) => reason.code);

interface Case {
  name: string;
  input: VerdictInput;
  status: Verdict['status'];
  codes: string[];
  gatingNode?: NodeType;
}

const CASES: Case[] = [
  // Approve
  { name: 'every node passed', input: given(), status: 'approved', codes: [] },
  {
    name: 'every required node passed and the optional one is still pending',
    input: given({ nodeResults: withNodes({ phone_verification: undefined }) }),
    status: 'approved',
    codes: [],
  },
  {
    name: 'every required node passed and the optional one was skipped',
    input: given({ nodeResults: withNodes({ phone_verification: result('skipped') }) }),
    status: 'approved',
    codes: [],
  },
  {
    name: 'no AML score yet but every node passed',
    input: given({ amlScore: null }),
    status: 'approved',
    codes: [],
  },
  {
    name: 'an optional node failed and everything else passed',
    input: given({ nodeResults: withNodes({ phone_verification: result('failed') }) }),
    status: 'approved',
    codes: ['optional_node_failed'],
  },

  // Decline
  {
    name: 'a required node failed',
    input: given({ nodeResults: withNodes({ biometric_kyc: result('failed') }) }),
    status: 'declined',
    codes: ['required_node_failed'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'an auto_decline list hit',
    input: given({ listHits: [hit('auto_decline', 'biometric_kyc')] }),
    status: 'declined',
    codes: ['list_auto_decline'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'an AML score at the default threshold',
    input: given({ amlScore: 80 }),
    status: 'declined',
    codes: ['aml_score_at_or_above_threshold'],
    gatingNode: 'aml_screening',
  },
  {
    name: 'a required node failed while another required node is still pending',
    input: given({ nodeResults: { document_verification: result('failed') } }),
    status: 'declined',
    codes: ['required_node_failed'],
    gatingNode: 'document_verification',
  },
  {
    name: 'an auto_decline hit before any node has a result',
    input: given({ nodeResults: {}, listHits: [hit('auto_decline')], amlScore: null }),
    status: 'declined',
    codes: ['list_auto_decline'],
    gatingNode: 'document_verification',
  },
  {
    name: 'an AML score of 95 while the document is pending',
    input: given({ nodeResults: { aml_screening: result('failed') }, amlScore: 95 }),
    status: 'declined',
    codes: ['required_node_failed', 'aml_score_at_or_above_threshold'],
    gatingNode: 'aml_screening',
  },

  // Review
  {
    name: 'a review list hit',
    input: given({ listHits: [hit('review', 'document_verification')] }),
    status: 'in_review',
    codes: ['list_review'],
    gatingNode: 'document_verification',
  },
  {
    name: 'a required node asked for review',
    input: given({ nodeResults: withNodes({ biometric_kyc: result('review') }) }),
    status: 'in_review',
    codes: ['node_review'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'an optional node asked for review',
    input: given({ nodeResults: withNodes({ phone_verification: result('review') }) }),
    status: 'in_review',
    codes: ['node_review'],
    gatingNode: 'phone_verification',
  },
  {
    name: 'a passed node carries a warning',
    input: given({ nodeResults: withNodes({ document_verification: result('passed', [NAME_WARNING]) }) }),
    status: 'in_review',
    codes: ['warning'],
    gatingNode: 'document_verification',
  },
  {
    name: 'an optional node carries a warning',
    input: given({ nodeResults: withNodes({ phone_verification: result('passed', [NAME_WARNING]) }) }),
    status: 'in_review',
    codes: ['warning'],
    gatingNode: 'phone_verification',
  },
  {
    name: 'a session-level warning only (no node to blame)',
    input: given({ sessionWarnings: [NAME_WARNING] }),
    status: 'in_review',
    codes: ['warning'],
  },
  {
    name: 'a required node was skipped',
    input: given({ nodeResults: withNodes({ document_verification: result('skipped') }) }),
    status: 'in_review',
    codes: ['required_node_skipped'],
    gatingNode: 'document_verification',
  },
  {
    name: 'an AML score of 60 with a PEP node review',
    input: given({ nodeResults: withNodes({ aml_screening: result('review') }), amlScore: 60 }),
    status: 'in_review',
    codes: ['node_review'],
    gatingNode: 'aml_screening',
  },
  {
    name: 'an optional node failed and a review hit',
    input: given({
      nodeResults: withNodes({ phone_verification: result('failed') }),
      listHits: [hit('review', 'biometric_kyc')],
    }),
    status: 'in_review',
    codes: ['list_review', 'optional_node_failed'],
    gatingNode: 'biometric_kyc',
  },

  // Undecided
  {
    name: 'no node has a result yet',
    input: given({ nodeResults: {}, amlScore: null }),
    status: null,
    codes: ['required_node_pending', 'required_node_pending', 'required_node_pending'],
    gatingNode: 'document_verification',
  },
  {
    name: 'one required node is explicitly pending',
    input: given({ nodeResults: withNodes({ aml_screening: result('pending') }), amlScore: null }),
    status: null,
    codes: ['required_node_pending'],
    gatingNode: 'aml_screening',
  },
  {
    name: 'a review cause exists but a required node is still missing',
    input: given({
      nodeResults: withNodes({ biometric_kyc: undefined, document_verification: result('review') }),
      listHits: [hit('review')],
    }),
    status: null,
    codes: ['required_node_pending', 'node_review', 'list_review'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'an AML score just below the threshold while a node is pending',
    input: given({ nodeResults: withNodes({ document_verification: undefined }), amlScore: 79 }),
    status: null,
    codes: ['required_node_pending'],
    gatingNode: 'document_verification',
  },

  // Precedence
  {
    name: 'decline beats review: a failed required node and a review hit and a warning',
    input: given({
      nodeResults: withNodes({
        document_verification: result('passed', [NAME_WARNING]),
        biometric_kyc: result('failed'),
      }),
      listHits: [hit('review')],
    }),
    status: 'declined',
    codes: ['required_node_failed', 'warning', 'list_review'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'decline beats review: an auto_decline hit and a review hit on other nodes',
    input: given({ listHits: [hit('review', 'document_verification'), hit('auto_decline', 'biometric_kyc', 'e2')] }),
    status: 'declined',
    codes: ['list_auto_decline', 'list_review'],
    gatingNode: 'biometric_kyc',
  },
  {
    name: 'review beats approve: everything passed but one review node',
    input: given({ nodeResults: withNodes({ aml_screening: result('review') }) }),
    status: 'in_review',
    codes: ['node_review'],
    gatingNode: 'aml_screening',
  },
  {
    name: 'every cause at once is listed, decline causes first',
    input: given({
      nodeResults: {
        document_verification: result('failed', [NAME_WARNING]),
        biometric_kyc: result('review'),
        aml_screening: result('skipped'),
        phone_verification: result('failed'),
      },
      listHits: [hit('auto_decline'), hit('review', 'biometric_kyc', 'e2')],
      amlScore: 100,
      sessionWarnings: [{ code: 'country_mismatch', message: 'Expected FR.' }],
    }),
    status: 'declined',
    codes: [
      'required_node_failed',
      'list_auto_decline',
      'aml_score_at_or_above_threshold',
      'warning',
      'node_review',
      'required_node_skipped',
      'list_review',
      'warning',
      'optional_node_failed',
    ],
    gatingNode: 'document_verification',
  },
];

describe('decideVerdict', () => {
  describe.each(CASES)('given $name', ({ input, status, codes: expectedCodes, gatingNode }) => {
    const verdict = decideVerdict(input);

    it(`then the status is ${String(status)}`, () => {
      expect(verdict.status).toBe(status);
    });

    it(`then the reasons are [${expectedCodes.join(', ')}]`, () => {
      expect(codes(verdict)).toEqual(expectedCodes);
    });

    it(`then the gating node is ${gatingNode ?? 'absent'}`, () => {
      expect(verdict.gatingNode).toBe(gatingNode);
      if (gatingNode === undefined) expect('gatingNode' in verdict).toBe(false);
    });

    it('then a compliance level appears only when approved', () => {
      if (status === 'approved') {
        expect(verdict.complianceLevel).toBe('standard');
        return;
      }
      expect('complianceLevel' in verdict).toBe(false);
    });
  });

  describe('AML threshold boundary', () => {
    const BOUNDARY: Array<{ threshold: number | undefined; score: number; status: Verdict['status'] }> = [
      { threshold: undefined, score: 79, status: 'approved' },
      { threshold: undefined, score: 80, status: 'declined' },
      { threshold: undefined, score: 81, status: 'declined' },
      { threshold: 70, score: 69, status: 'approved' },
      { threshold: 70, score: 70, status: 'declined' },
      { threshold: 70, score: 79, status: 'declined' },
      { threshold: 90, score: 80, status: 'approved' },
      { threshold: 90, score: 89.9, status: 'approved' },
      { threshold: 90, score: 90, status: 'declined' },
      { threshold: 0, score: 0, status: 'declined' },
      { threshold: 100, score: 99, status: 'approved' },
      { threshold: 100, score: 100, status: 'declined' },
    ];

    it.each(BOUNDARY)('given threshold $threshold and score $score, when decided, then $status', ({ threshold, score, status }) => {
      const workflow = threshold === undefined ? WORKFLOW : { ...WORKFLOW, amlScoreThreshold: threshold };
      const verdict = decideVerdict(given({ workflow, amlScore: score }));
      expect(verdict.status).toBe(status);
      if (status === 'declined') {
        expect(verdict.reasons[0]).toMatchObject({
          code: 'aml_score_at_or_above_threshold',
          nodeType: 'aml_screening',
        });
        expect(verdict.reasons[0].message).toContain(String(threshold ?? DEFAULT_AML_SCORE_THRESHOLD));
      }
    });

    it('given no threshold, then the default is the spec value 80', () => {
      expect(DEFAULT_AML_SCORE_THRESHOLD).toBe(80);
    });

    it.each([-1, 101, Number.NaN, Number.POSITIVE_INFINITY])(
      'given a threshold of %s, when decided, then it throws RangeError',
      (threshold) => {
        expect(() => decideVerdict(given({ workflow: { ...WORKFLOW, amlScoreThreshold: threshold } }))).toThrow(RangeError);
      },
    );

    it.each([-0.5, 100.5, Number.NaN])('given an AML score of %s, when decided, then it throws RangeError', (score) => {
      expect(() => decideVerdict(given({ amlScore: score }))).toThrow(RangeError);
    });
  });

  describe('reasons carry their context', () => {
    it('given list hits, then each reason names its list and entry', () => {
      const verdict = decideVerdict(
        given({ listHits: [hit('auto_decline', 'document_verification', 'a1'), hit('review', 'biometric_kyc', 'r1')] }),
      );
      expect(verdict.reasons).toEqual([
        expect.objectContaining({ code: 'list_auto_decline', listId: 'list-auto_decline', entryId: 'a1' }),
        expect.objectContaining({
          code: 'list_review',
          listId: 'list-review',
          entryId: 'r1',
          nodeType: 'biometric_kyc',
        }),
      ]);
    });

    it('given two auto_decline hits, then both are listed, not just the first', () => {
      const verdict = decideVerdict(
        given({
          listHits: [hit('auto_decline', 'document_verification', 'a1'), hit('auto_decline', 'biometric_kyc', 'a2')],
        }),
      );
      expect(verdict.reasons.map((reason) => reason.entryId)).toEqual(['a1', 'a2']);
      expect(verdict.gatingNode).toBe('document_verification');
    });

    it('given a node warning, then its message carries the warning code and field', () => {
      const verdict = decideVerdict(given({ nodeResults: withNodes({ document_verification: result('passed', [NAME_WARNING]) }) }));
      expect(verdict.reasons[0].message).toContain('name_mismatch');
      expect(verdict.reasons[0].message).toContain('last_name');
    });

    it('given a session warning, then its reason has no node', () => {
      const verdict = decideVerdict(given({ sessionWarnings: [NAME_WARNING] }));
      expect(verdict.reasons[0]).not.toHaveProperty('nodeType');
    });

    it('given a required node whose stored result says optional, then the workflow flag wins', () => {
      const nodeResults = withNodes({ document_verification: { ...result('failed'), required: false } });
      expect(decideVerdict(given({ nodeResults })).status).toBe('declined');
    });

    it('given a result for a node outside the workflow, then it is ignored', () => {
      const nodeResults = withNodes({ business_registry: result('failed', [NAME_WARNING]) });
      expect(decideVerdict(given({ nodeResults })).status).toBe('approved');
    });

    it('given a workflow without required nodes and nothing submitted, then it approves with the workflow level', () => {
      const workflow: VerdictWorkflow = {
        nodes: [{ type: 'phone_verification', required: false, provider: 'openkyc:sms_otp' }],
        complianceLevel: 'basic',
      };
      expect(decideVerdict(given({ workflow, nodeResults: {}, amlScore: null }))).toEqual({
        status: 'approved',
        complianceLevel: 'basic',
        reasons: [],
      });
    });
  });

  describe('reason code catalogue', () => {
    it('given the exported codes, then decline and review codes are disjoint subsets of the catalogue', () => {
      for (const code of [...DECLINE_REASON_CODES, ...REVIEW_REASON_CODES]) {
        expect(VERDICT_REASON_CODES).toContain(code);
      }
      expect(DECLINE_REASON_CODES.filter((code) => REVIEW_REASON_CODES.includes(code))).toEqual([]);
    });

    it('given every case above, then each declined verdict starts with a decline code and each review with a review code', () => {
      for (const { input } of CASES) {
        const verdict = decideVerdict(input);
        if (verdict.status === 'declined') expect(DECLINE_REASON_CODES).toContain(verdict.reasons[0].code);
        if (verdict.status === 'in_review') expect(REVIEW_REASON_CODES).toContain(verdict.reasons[0].code);
      }
    });
  });
});
