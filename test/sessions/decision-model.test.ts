import { describe, expect, it } from 'vitest';
import { SESSION_STATUSES } from '../../src/domain/types.js';
import { decisionAt, decisionJson, decisionOf, pendingDecision, type DecisionSession } from '../../src/sessions/decision.js';

/** Operations under test: the decision read model of src/sessions/decision.ts (decisionOf, decisionAt, decisionJson, pendingDecision). */

const SESSION: DecisionSession = {
  id: 'a3b1c2d4-0000-4000-8000-000000000001',
  status: 'approved',
  workflowId: 'kyc_standard',
  vendorData: 'user-1',
  complianceLevel: 'standard',
  reasons: [],
  metadata: null,
};
const RESULT = {
  nodeType: 'aml_screening',
  status: 'passed' as const,
  required: true,
  provider: 'sandbox:aml_screen',
  warnings: [{ code: 'note', message: 'a warning', field: null }],
  details: { score: 0 },
};

describe('decisionOf', () => {
  it('given an approved session, then the compliance level and the token are shown', () => {
    const decision = decisionOf(SESSION, [RESULT], 'jwt');
    expect(decision).toMatchObject({ status: 'approved', complianceLevel: 'standard', serviceToken: 'jwt' });
  });

  it('given any other status, then neither the level nor the token is shown (spec rule 2)', () => {
    for (const status of SESSION_STATUSES.filter((candidate) => candidate !== 'approved')) {
      const decision = decisionOf({ ...SESSION, status }, [RESULT], 'jwt');
      expect([decision.complianceLevel, decision.serviceToken]).toEqual([null, null]);
    }
  });
});

describe('decisionAt', () => {
  it('given the status the session is in, then the decision is unchanged', () => {
    const decision = decisionOf(SESSION, [RESULT], 'jwt');
    expect(decisionAt(decision, 'approved')).toBe(decision);
  });

  it('given an earlier status of the same transaction, then that status without level and token', () => {
    const decision = decisionAt(decisionOf(SESSION, [RESULT], 'jwt'), 'in_progress');
    expect(decision).toMatchObject({ status: 'in_progress', complianceLevel: null, serviceToken: null });
  });
});

describe('decisionJson', () => {
  it('given a decision, then the spec Decision JSON: snake_case, results keyed by node type, absent fields left out', () => {
    const json = decisionJson(
      decisionOf({ ...SESSION, reasons: [{ code: 'list_match', message: 'on a list', listId: 'l1' }] }, [RESULT], 'jwt'),
    );
    expect(json).toEqual({
      session_id: SESSION.id,
      status: 'approved',
      workflow_id: 'kyc_standard',
      vendor_data: 'user-1',
      compliance_level: 'standard',
      service_token: 'jwt',
      node_results: {
        aml_screening: {
          status: 'passed',
          required: true,
          provider: 'sandbox:aml_screen',
          warnings: [{ code: 'note', message: 'a warning' }],
          details: { score: 0 },
        },
      },
      reasons: [
        {
          code: 'list_match',
          message: 'on a list',
          list_id: 'l1',
          cause: 'list_match',
          category: 'technical',
          severity: 'medium',
          retryable: false,
        },
      ],
    });
  });
});

describe('pendingDecision', () => {
  it('given a new session, then pending with every node pending in node type order and no level or token', () => {
    const decision = pendingDecision({ id: SESSION.id, workflowId: 'kyc_standard', vendorData: 'user-1', metadata: { plan: 'a' } }, [
      { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
      { type: 'biometric_kyc', required: false, provider: 'openkyc:face_match' },
    ]);
    expect(decision).toMatchObject({ status: 'pending', complianceLevel: null, serviceToken: null, reasons: [], metadata: { plan: 'a' } });
    expect(decision.nodeResults.map((row) => [row.nodeType, row.status])).toEqual([
      ['biometric_kyc', 'pending'],
      ['document_verification', 'pending'],
    ]);
  });
});
