import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { LedgerEntrySchema, ShareTokenSchema } from '../../entities/share-token.entity.js';
import { DecisionJson } from '../../src/rest/routes/sessions.js';
import { ImportedSessionJson, LedgerEntryJson, ShareTokenJson } from '../../src/rest/routes/sharing.js';
import { hashShareToken } from '../../src/sharing/sharing.service.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { decidedSession, importShared, share, shareWith } from './support.js';

const SHARE = /* GraphQL */ `
  mutation ($sessionId: String!, $partner: String!, $expiresIn: Int) {
    shareSession(sessionId: $sessionId, partnerApplicationId: $partner, expiresIn: $expiresIn) {
      id
      shareToken
      expiresAt
    }
  }
`;
const IMPORT = /* GraphQL */ `
  mutation ($input: ImportSharedSessionInput!) {
    importSharedSession(input: $input) {
      sessionId
      importedFrom
      status
      complianceLevel
      serviceToken
      session {
        id
        workflowId
        vendorData
        reviewHistory {
          fromStatus
          toStatus
          actor
          actorKeyId
        }
      }
    }
  }
`;
const LEDGER = /* GraphQL */ `
  query ($first: Int, $after: String) {
    ledgerEntries(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          shareTokenId
          importedSessionId
          payerApplicationId
          originatingApplicationId
          beneficiary
          beneficiaryApplicationId
          amount
          amountMicros
          currency
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

describe('sharing', () => {
  let testApp: TestApp;
  let originator: TestTenant;
  let partner: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    originator = await testApp.tenant('originator');
    partner = await testApp.tenant('partner');
  });
  afterAll(() => testApp.close());

  async function decisionOf(key: string, sessionId: string) {
    const response = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key });
    expect(response.status).toBe(200);
    return DecisionJson.strict().parse(response.body);
  }

  describe('given an approved session shared with a partner, when the partner imports it with trust_review true', () => {
    let originalId: string;
    let token: string;
    let shared: { share_token: string; expires_at: number };
    let imported: any;
    let status: number;

    beforeAll(async () => {
      originalId = await decidedSession(testApp, originator.sandboxKey, 'approved');
      const before = Math.floor(Date.now() / 1000);
      const response = await share(testApp, originator.sandboxKey, originalId, { partner_application_id: partner.id });
      expect(response.status).toBe(200);
      shared = ShareTokenJson.strict().parse(response.body);
      expect(shared.expires_at - before).toBeGreaterThanOrEqual(3599);
      expect(shared.expires_at - before).toBeLessThanOrEqual(3601);
      token = shared.share_token;
      const result = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      status = result.status;
      imported = result.body;
    });

    it('then the share answers exactly the spec fields and stores only a hash of the token', async () => {
      expect(Object.keys(shared).sort()).toEqual(['expires_at', 'share_token']);
      expect(token).toMatch(/^shr_[\w-]{43}$/);
      const row = await testApp.app.orm.em.fork().findOneOrFail(ShareTokenSchema, { tokenHash: hashShareToken(token) });
      expect(JSON.stringify(row)).not.toContain(token);
      expect(row.partnerApplicationId).toBe(partner.id);
    });

    it('then the import answers 201 with a new approved session, its compliance level and a service token of its own', async () => {
      expect(status).toBe(201);
      expect(ImportedSessionJson.strict().parse(imported)).toEqual(imported);
      expect(imported).toMatchObject({ imported_from: token, status: 'approved', compliance_level: 'standard' });
      expect(imported.session_id).not.toBe(originalId);
      const original = await decisionOf(originator.sandboxKey, originalId);
      expect(imported.service_token).toBeTruthy();
      expect(imported.service_token).not.toBe(original.service_token);
    });

    it("then the new token introspects valid and names the partner's session and tenant", async () => {
      const response = await testApp.rest('POST', '/v1/service-tokens/introspect', {
        key: partner.sandboxKey,
        body: { token: imported.service_token },
      });
      expect(response.body).toMatchObject({
        active: true,
        status: 'valid',
        session_id: imported.session_id,
        tenant_id: partner.id,
        workflow_id: 'standard_kyc',
        compliance_level: 'standard',
      });
    });

    it("then the partner's decision of the new session is approved with the original's node results and the same token", async () => {
      const [copy, original] = await Promise.all([
        decisionOf(partner.sandboxKey, imported.session_id),
        decisionOf(originator.sandboxKey, originalId),
      ]);
      expect(copy).toMatchObject({ session_id: imported.session_id, status: 'approved', compliance_level: 'standard' });
      expect(copy.service_token).toBe(imported.service_token);
      expect(copy.node_results).toEqual(original.node_results);
      expect(copy.metadata).toBeUndefined();
    });

    it('then the new session is audited with actor import and emits session.status_changed to the partner', async () => {
      const events = await testApp.app.orm.em
        .fork()
        .find(OutboxEventSchema, { sessionId: imported.session_id, type: 'session.status_changed' });
      expect(events).toHaveLength(1);
      expect(events[0].tenantId).toBe(partner.id);
      expect(events[0].payload).toMatchObject({ status: 'approved', previous_status: null, actor: 'import' });
    });

    it('then the originating tenant cannot read the copy and the partner cannot read the original (404)', async () => {
      const copy = await testApp.rest('GET', `/v1/sessions/${imported.session_id}`, { key: originator.sandboxKey });
      const original = await testApp.rest('GET', `/v1/sessions/${originalId}`, { key: partner.sandboxKey });
      expect([copy.status, original.status]).toEqual([404, 404]);
    });

    it('then the ledger shows both tenants exactly the two 0.15 USD fee entries of the import', async () => {
      for (const tenant of [partner, originator]) {
        const response = await testApp.rest('GET', '/v1/ledger', { key: tenant.sandboxKey });
        expect(response.status).toBe(200);
        const entries = response.body.entries.map((entry: unknown) => LedgerEntryJson.strict().parse(entry));
        expect(entries).toHaveLength(2);
        expect(response.body.has_more).toBe(false);
        for (const entry of entries) {
          expect(entry).toMatchObject({
            amount: '0.15',
            amount_micros: 150_000,
            currency: 'USD',
            environment: 'sandbox',
            payer_application_id: partner.id,
            originating_application_id: originator.id,
            original_session_id: originalId,
            imported_session_id: imported.session_id,
          });
        }
        expect(entries.map((entry: { beneficiary: string }) => entry.beneficiary).sort()).toEqual(['originating_tenant', 'service']);
        const toTenant = entries.find((entry: { beneficiary: string }) => entry.beneficiary === 'originating_tenant');
        expect(toTenant.beneficiary_application_id).toBe(originator.id);
      }
    });

    it('then the live ledger of either tenant is empty: fees are kept per environment', async () => {
      const response = await testApp.rest('GET', '/v1/ledger', { key: partner.liveKey });
      expect(response.body.entries).toEqual([]);
    });
  });

  describe('given shared sessions, when the partner imports with trust_review false', () => {
    it.each(['approved', 'declined'] as const)(
      'then a %s original becomes a new in_review session without compliance level or service token',
      async (outcome) => {
        const originalId = await decidedSession(testApp, originator.sandboxKey, outcome);
        const token = await shareWith(testApp, originator.sandboxKey, originalId, partner.id);
        const response = await importShared(testApp, partner.sandboxKey, {
          share_token: token,
          trust_review: false,
          workflow_id: 'standard_kyc',
          vendor_data: `partner-review-${outcome}`,
        });
        expect(response.status).toBe(201);
        expect(response.body).toEqual({ session_id: expect.any(String), imported_from: token, status: 'in_review' });
        const decision = await decisionOf(partner.sandboxKey, response.body.session_id);
        expect(decision.status).toBe('in_review');
        expect(decision.vendor_data).toBe(`partner-review-${outcome}`);
        expect(decision.reasons.map((reason) => reason.code)).toContain('imported_for_review');
      },
    );
  });

  describe('given declined and in_review sessions, when the partner imports them with trust_review true', () => {
    it.each(['declined', 'in_review'] as const)('then the %s status is kept, without compliance level or token', async (outcome) => {
      const originalId = await decidedSession(testApp, originator.sandboxKey, outcome);
      const token = await shareWith(testApp, originator.sandboxKey, originalId, partner.id);
      const response = await importShared(testApp, partner.sandboxKey, { share_token: token, trust_review: true, workflow_id: 'aml_only' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ session_id: expect.any(String), imported_from: token, status: outcome });
      const decision = await decisionOf(partner.sandboxKey, response.body.session_id);
      expect(decision).toMatchObject({ status: outcome, workflow_id: 'aml_only' });
      expect(decision).not.toHaveProperty('service_token');
      expect(decision).not.toHaveProperty('compliance_level');
    });
  });

  describe('given the GraphQL equivalents', () => {
    it('when a session is shared and imported over GraphQL, then it answers like REST and the ledger pages', async () => {
      const originalId = await decidedSession(testApp, originator.sandboxKey, 'approved');
      const shared = await testApp.graphql(SHARE, { sessionId: originalId, partner: partner.id, expiresIn: 60 }, originator.sandboxKey);
      expect(shared.body.errors).toBeUndefined();
      const { id, shareToken, expiresAt } = shared.body.data.shareSession;
      expect(expiresAt - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(60);

      const imported = await testApp.graphql(
        IMPORT,
        { input: { shareToken, trustReview: true, workflowId: 'standard_kyc', vendorData: 'gql-import' } },
        partner.sandboxKey,
      );
      expect(imported.body.errors).toBeUndefined();
      const result = imported.body.data.importSharedSession;
      expect(result).toMatchObject({ importedFrom: shareToken, status: 'approved', complianceLevel: 'standard' });
      expect(result.serviceToken).toBeTruthy();
      expect(result.session).toMatchObject({ id: result.sessionId, workflowId: 'standard_kyc', vendorData: 'gql-import' });
      expect(result.session.reviewHistory).toEqual([
        { fromStatus: null, toStatus: 'approved', actor: 'import', actorKeyId: partner.sandboxKeyId },
      ]);

      const again = await testApp.graphql(
        IMPORT,
        { input: { shareToken, trustReview: true, workflowId: 'standard_kyc' } },
        partner.sandboxKey,
      );
      expect(again.body.errors?.[0]?.extensions?.code).toBe('SHARE_TOKEN_REDEEMED');

      const firstPage = await testApp.graphql(LEDGER, { first: 1 }, originator.sandboxKey);
      expect(firstPage.body.data.ledgerEntries.edges).toHaveLength(1);
      expect(firstPage.body.data.ledgerEntries.pageInfo.hasNextPage).toBe(true);
      const secondPage = await testApp.graphql(
        LEDGER,
        { first: 1, after: firstPage.body.data.ledgerEntries.pageInfo.endCursor },
        originator.sandboxKey,
      );
      const newest = [firstPage, secondPage].map((page) => page.body.data.ledgerEntries.edges[0].node);
      expect(newest.map((entry) => entry.shareTokenId)).toEqual([id, id]);
      expect(newest.map((entry) => entry.beneficiary).sort()).toEqual(['originating_tenant', 'service']);
      const rows = await testApp.app.orm.em.fork().count(LedgerEntrySchema, { shareTokenId: id });
      expect(rows).toBe(2);
    });
  });
});
