import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusChangedPayload } from '../../src/domain/events.js';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { DecisionJson } from '../../src/rest/routes/sessions.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { completeStandardKyc, createSession, gql, SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, tokenOf } from './support.js';

const REVIEW_HISTORY = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      reviewHistory {
        fromStatus
        toStatus
        actor
        actorKeyId
        reason
        at
      }
      decision {
        status
        complianceLevel
        serviceToken
        reasons {
          code
          nodeType
        }
      }
    }
  }
`;
const STEPS = /* GraphQL */ `
  query ($sessionId: String!) {
    verificationSteps(sessionId: $sessionId) {
      sessionId
      status
      steps {
        nodeType
        required
        status
      }
    }
  }
`;
const REVIEW = /* GraphQL */ `
  mutation ($id: String!, $decision: ReviewDecision!, $reason: String!) {
    reviewSession(id: $id, decision: $decision, reason: $reason) {
      status
    }
  }
`;

describe('decisions', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let vendorCounter = 0;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  /** A new sandbox session of standard_kyc. */
  async function newSession(extra: Record<string, unknown> = {}, workflow = 'standard_kyc') {
    vendorCounter += 1;
    const created = await createSession(testApp, tenant.sandboxKey, {
      workflow_id: workflow,
      vendor_data: `decision-user-${vendorCounter}`,
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.body as { session_id: string; url: string };
  }

  async function decisionOf(sessionId: string) {
    const response = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey });
    expect(response.status).toBe(200);
    expect(DecisionJson.strict().parse(response.body)).toEqual(response.body);
    return response.body;
  }

  describe('given the end user completes every required step with happy inputs', () => {
    let session: { session_id: string; url: string };
    let decision: any;

    beforeAll(async () => {
      session = await newSession({ metadata: { order: 'A-1' } });
      const status = await completeStandardKyc(testApp, { sessionToken: tokenOf(session.url) }, session.session_id);
      expect(status).toBe('approved');
      decision = await decisionOf(session.session_id);
    });

    it('then the decision is approved with the compliance level, a service token and every node result', () => {
      expect(decision).toMatchObject({
        session_id: session.session_id,
        status: 'approved',
        workflow_id: 'standard_kyc',
        compliance_level: 'standard',
        metadata: { order: 'A-1' },
        node_results: {
          document_verification: { status: 'passed', required: true },
          biometric_kyc: { status: 'passed', required: true },
          aml_screening: { status: 'passed', required: true },
          phone_verification: { status: 'pending', required: false },
        },
      });
      expect(decision.service_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('then the token verifies offline against /.well-known/jwks.json and carries the subject claims', async () => {
      const jwks = await testApp.rest('GET', '/.well-known/jwks.json');
      expect(jwks.status).toBe(200);
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(jwks.body.keys[0]).not.toHaveProperty('d');
      const { payload, protectedHeader } = await jwtVerify(decision.service_token, createLocalJWKSet(jwks.body), { issuer: 'openkyc' });
      expect(protectedHeader.alg).toBe('EdDSA');
      expect(payload).toMatchObject({
        sub: session.session_id,
        session_id: session.session_id,
        tenant_id: tenant.id,
        workflow_id: 'standard_kyc',
        compliance_level: 'standard',
        vendor_data: expect.stringMatching(/^decision-user-/),
      });
      expect(payload.exp! - payload.iat!).toBe(365 * 24 * 3600);
    });

    it('then a second read of the decision returns the same token', async () => {
      expect((await decisionOf(session.session_id)).service_token).toBe(decision.service_token);
    });

    it('then introspection says valid; after revocation it says revoked and an agent.revoked event is recorded', async () => {
      const valid = await testApp.rest('POST', '/v1/service-tokens/introspect', {
        key: tenant.sandboxKey,
        body: { token: decision.service_token },
      });
      expect(valid.body).toMatchObject({ active: true, status: 'valid', session_id: session.session_id, compliance_level: 'standard' });
      const revoked = await testApp.rest('POST', '/v1/service-tokens/revoke', {
        key: tenant.sandboxKey,
        body: { token: decision.service_token, reason: 'account closed' },
      });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ active: false, status: 'revoked' });
      expect(revoked.body.revoked_at).toBeGreaterThan(0);
      const events = await testApp.app.orm.em.fork().find(OutboxEventSchema, { sessionId: session.session_id, type: 'agent.revoked' });
      expect(events).toHaveLength(1);
      expect(events[0].payload).toMatchObject({ session_id: session.session_id, reason: 'account closed', jti: revoked.body.jti });
      const again = await testApp.rest('POST', '/v1/service-tokens/revoke', {
        key: tenant.sandboxKey,
        body: { token: decision.service_token, reason: 'twice' },
      });
      expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
      expect(await testApp.app.orm.em.fork().count(OutboxEventSchema, { sessionId: session.session_id, type: 'agent.revoked' })).toBe(1);
    });

    it('then the audit log holds pending → in_progress → approved with actors', async () => {
      const response = await testApp.graphql(REVIEW_HISTORY, { id: session.session_id }, tenant.sandboxKey);
      const history = response.body.data.session.reviewHistory;
      expect(
        history.map((change: { fromStatus: string | null; toStatus: string; actor: string }) => [
          change.fromStatus,
          change.toStatus,
          change.actor,
        ]),
      ).toEqual([
        [null, 'pending', 'api'],
        ['pending', 'in_progress', 'end_user'],
        ['in_progress', 'approved', 'decision_engine'],
      ]);
      expect(history[0].actorKeyId).toBe(tenant.sandboxKeyId);
    });

    it('then every status change wrote one outbox event, in order', async () => {
      const events = await testApp.app.orm.em
        .fork()
        .find(OutboxEventSchema, { sessionId: session.session_id, type: 'session.status_changed' }, { orderBy: { seq: 'asc' } });
      expect(events.map((event) => (event.payload as StatusChangedPayload).status)).toEqual(['pending', 'in_progress', 'approved']);
    });

    it('then further input is refused with 409 invalid_transition', async () => {
      const response = await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_AML, {
        sessionId: session.session_id,
        input: { fullName: 'Again' },
      });
      expect(response.body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
    });
  });

  const declines: [string, Record<string, string>, string][] = [
    // An expired document or a spoofed selfie is no longer among them: the person may retry (test/sessions/retakes.test.ts).
    ['a tampered document', { imageFront: 'sandbox:tampered' }, 'document_verification'],
    ['an MRZ that does not add up', { imageFront: 'sandbox:mrz_mismatch' }, 'document_verification'],
    ['a face mismatch', { selfie: 'sandbox:face_mismatch' }, 'biometric_kyc'],
    ['a sanctions hit', { fullName: 'Sandbox Sanctioned' }, 'aml_screening'],
  ];
  it.each(declines)(
    'given %s, when the step is submitted, then the session is declined at once and the decision names the gating node without a token',
    async (_label, steps, node) => {
      const session = await newSession();
      const status = await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, steps);
      expect(status).toBe('declined');
      const decision = await decisionOf(session.session_id);
      expect(decision.status).toBe('declined');
      expect(decision).not.toHaveProperty('service_token');
      expect(decision).not.toHaveProperty('compliance_level');
      expect(decision.node_results[node].status).toBe('failed');
      expect(decision.reasons[0]).toMatchObject({ node_type: node });
    },
  );

  const reviews: [string, Record<string, unknown>, string][] = [
    ['a PEP hit', { fullName: 'Sandbox Pep' }, 'aml_screening'],
    ['an inconclusive face match', { selfie: 'sandbox:review' }, 'biometric_kyc'],
    ['a low-quality document image (warning)', { imageFront: 'sandbox:low_quality' }, 'document_verification'],
  ];
  it.each(reviews)('given %s, when all steps are done, then the session is in_review without a token', async (_label, steps, node) => {
    const session = await newSession();
    expect(await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, steps as Record<string, string>)).toBe(
      'in_review',
    );
    const decision = await decisionOf(session.session_id);
    expect(decision).not.toHaveProperty('service_token');
    expect(decision).not.toHaveProperty('compliance_level');
    expect(decision.reasons.map((reason: { node_type?: string }) => reason.node_type)).toContain(node);
  });

  it('given expected_details that differ from the submitted document, when decided, then a mismatch warning sends it to in_review', async () => {
    const session = await newSession({ expected_details: { first_name: 'Ada', last_name: 'Lovelace', country: 'GB' } });
    const status = await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, {
      document: { firstName: 'Grace', lastName: 'Hopper' },
    } as never);
    expect(status).toBe('in_review');
    const detail = await testApp.rest('GET', `/v1/sessions/${session.session_id}`, { key: tenant.sandboxKey });
    expect(detail.body.warnings.map((warning: { code: string }) => warning.code)).toContain('name_mismatch');
  });

  it("given a workflow threshold of 79, when a score of 79 is screened, then it declines (the workflow's threshold feeds the verdict)", async () => {
    const workflow = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: {
        name: 'Strict AML',
        nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }],
        aml_score_threshold: 79,
      },
    });
    const strict = await newSession({}, workflow.body.workflow_id);
    await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_AML, { sessionId: strict.session_id, input: { fullName: 'Sandbox Borderline' } });
    expect((await decisionOf(strict.session_id)).status).toBe('declined');
    const lenient = await newSession({}, 'aml_only');
    await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_AML, {
      sessionId: lenient.session_id,
      input: { fullName: 'Sandbox Borderline' },
    });
    expect((await decisionOf(lenient.session_id)).status).toBe('in_review');
  });

  describe('review', () => {
    it('given an in_review session, when a reviewer approves with a reason, then approved with a token and the audit records key and reason', async () => {
      const session = await newSession();
      await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, { fullName: 'Sandbox Pep' });
      const reviewed = await testApp.rest('POST', `/v1/sessions/${session.session_id}/review`, {
        key: tenant.sandboxKey,
        body: { decision: 'approved', reason: 'PEP cleared by compliance' },
      });
      expect(reviewed.status).toBe(200);
      expect(reviewed.body).toMatchObject({ status: 'approved', compliance_level: 'standard' });
      expect(reviewed.body.service_token).toBeTruthy();
      const history = (await testApp.graphql(REVIEW_HISTORY, { id: session.session_id }, tenant.sandboxKey)).body.data.session
        .reviewHistory;
      expect(history.at(-1)).toMatchObject({
        fromStatus: 'in_review',
        toStatus: 'approved',
        actor: 'reviewer',
        actorKeyId: tenant.sandboxKeyId,
        reason: 'PEP cleared by compliance',
      });
    });

    it('given an in_review session, when a reviewer declines, then declined without a token', async () => {
      const session = await newSession();
      await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, { selfie: 'sandbox:review' });
      const reviewed = await gql(testApp, { key: tenant.sandboxKey }, REVIEW, {
        id: session.session_id,
        decision: 'declined',
        reason: 'not the holder',
      });
      expect(reviewed.body.data.reviewSession.status).toBe('declined');
      const decision = await decisionOf(session.session_id);
      expect(decision).not.toHaveProperty('service_token');
    });

    it('given an in_review session, when reviewed without a reason, then 400 and it stays in review', async () => {
      const session = await newSession();
      await completeStandardKyc(testApp, { key: tenant.sandboxKey }, session.session_id, { fullName: 'Sandbox Pep' });
      const response = await testApp.rest('POST', `/v1/sessions/${session.session_id}/review`, {
        key: tenant.sandboxKey,
        body: { decision: 'approved', reason: ' ' },
      });
      expect(response.status).toBe(400);
      expect((await decisionOf(session.session_id)).status).toBe('in_review');
    });

    it('given a pending or approved session, when reviewed, then 409 invalid_transition', async () => {
      const pending = await newSession();
      const response = await testApp.rest('POST', `/v1/sessions/${pending.session_id}/review`, {
        key: tenant.sandboxKey,
        body: { decision: 'approved', reason: 'x' },
      });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('invalid_transition');
    });

    it("given another tenant's session, when reviewed, then 404", async () => {
      const session = await newSession();
      const stranger = await testApp.tenant();
      const response = await testApp.rest('POST', `/v1/sessions/${session.session_id}/review`, {
        key: stranger.sandboxKey,
        body: { decision: 'approved', reason: 'x' },
      });
      expect(response.status).toBe(404);
    });
  });

  describe('end-user token', () => {
    it('given the token of the session URL, when reading the steps, then the workflow steps are listed', async () => {
      const session = await newSession();
      const response = await gql(testApp, { sessionToken: tokenOf(session.url) }, STEPS, { sessionId: session.session_id });
      expect(response.body.data.verificationSteps).toMatchObject({ sessionId: session.session_id, status: 'pending' });
      expect(response.body.data.verificationSteps.steps.map((step: { nodeType: string }) => step.nodeType).sort()).toEqual([
        'aml_screening',
        'biometric_kyc',
        'document_verification',
        'phone_verification',
      ]);
    });

    it("given one session's token, when it reaches for another session, then NOT_FOUND", async () => {
      const first = await newSession();
      const second = await newSession();
      const response = await gql(testApp, { sessionToken: tokenOf(first.url) }, STEPS, { sessionId: second.session_id });
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
      const submit = await gql(testApp, { sessionToken: tokenOf(first.url) }, SUBMIT_DOCUMENT, {
        sessionId: second.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      expect(submit.body.errors[0].extensions.code).toBe('NOT_FOUND');
    });

    it('given a session token, when calling a tenant operation or REST, then it is refused', async () => {
      const session = await newSession();
      const graphql = await gql(testApp, { sessionToken: tokenOf(session.url) }, REVIEW_HISTORY, { id: session.session_id });
      expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const rest = await fetch(`${testApp.url}/v1/sessions/${session.session_id}`, {
        headers: { 'x-session-token': tokenOf(session.url) },
      });
      expect(rest.status).toBe(401);
    });

    it('given the first submission, when it is stored, then the session moves pending → in_progress', async () => {
      const session = await newSession();
      const response = await gql(testApp, { sessionToken: tokenOf(session.url) }, SUBMIT_DOCUMENT, {
        sessionId: session.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      expect(response.body.data.submitDocument.status).toBe('in_progress');
    });

    it('given a completed step, when it is submitted again, then 409 CONFLICT and the result is unchanged', async () => {
      const session = await newSession();
      const input = { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE };
      await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, { sessionId: session.session_id, input });
      const again = await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, {
        sessionId: session.session_id,
        input: { ...input, imageFront: 'sandbox:expired' },
      });
      expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
      expect((await decisionOf(session.session_id)).node_results.document_verification.status).toBe('passed');
    });

    const badInputs: [string, Record<string, unknown>, string][] = [
      ['an unknown sandbox token', { country: 'GB', idType: 'PASSPORT', imageFront: 'sandbox:expird' }, 'imageFront'],
      ['an unknown country', { country: 'XX', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE }, 'country'],
      ['a lower-case id type', { country: 'GB', idType: 'passport', imageFront: SANDBOX_IMAGE }, 'idType'],
      [
        'an impossible date of birth',
        { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, dateOfBirth: '2001-13-01' },
        'dateOfBirth',
      ],
    ];
    it.each(badInputs)(
      'given %s, when submitting the document, then VALIDATION_FAILED naming the field and the session stays pending',
      async (_label, input, field) => {
        const session = await newSession();
        const response = await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, { sessionId: session.session_id, input });
        expect(response.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
        expect(response.body.errors[0].extensions.fieldErrors.map((error: { field: string }) => error.field)).toContain(field);
        expect((await decisionOf(session.session_id)).status).toBe('pending');
      },
    );

    it('given a workflow without the step, when it is submitted, then VALIDATION_FAILED', async () => {
      const session = await newSession({}, 'aml_only');
      const response = await gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, {
        sessionId: session.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      expect(response.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    });
  });
});
