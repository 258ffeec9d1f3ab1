import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSchema } from '../../entities/session.entity.js';
import { LedgerEntrySchema, ShareTokenSchema } from '../../entities/share-token.entity.js';
import { hashShareToken } from '../../src/sharing/sharing.service.js';
import { createSession, gql, SANDBOX_IMAGE, SUBMIT_DOCUMENT, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { decidedSession, expireShareToken, importShared, share, shareWith } from './support.js';

const SHARE = /* GraphQL */ `
  mutation ($sessionId: String!, $partner: String!) {
    shareSession(sessionId: $sessionId, partnerApplicationId: $partner) {
      shareToken
    }
  }
`;

/** Concurrent imports of one token in the race test. */
const CONCURRENT_IMPORTS = 50;

describe('sharing errors', () => {
  let testApp: TestApp;
  let originator: TestTenant;
  let partner: TestTenant;
  let stranger: TestTenant;
  let approvedId: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    [originator, partner, stranger] = await Promise.all([
      testApp.tenant('originator'),
      testApp.tenant('partner'),
      testApp.tenant('stranger'),
    ]);
    approvedId = await decidedSession(testApp, originator.sandboxKey, 'approved');
  });
  afterAll(() => testApp.close());

  /** Field errors of a 400 problem body, as [field, code] pairs. */
  function fieldErrors(body: { errors?: { field: string; code: string }[] }) {
    return (body.errors ?? []).map((error) => [error.field, error.code]);
  }

  async function tokenIsUnredeemed(token: string): Promise<boolean> {
    const row = await testApp.app.orm.em.fork().findOneOrFail(ShareTokenSchema, { tokenHash: hashShareToken(token) });
    return row.redeemedAt === null;
  }

  describe('Error 2: sharing a session that is not approved, declined or in_review', () => {
    it('given a pending session, when it is shared, then 409 session_not_shareable', async () => {
      const created = await createSession(testApp, originator.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'pending-user' });
      const response = await share(testApp, originator.sandboxKey, created.body.session_id, { partner_application_id: partner.id });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ status: 409, code: 'session_not_shareable' });
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    });

    it('given an in_progress session, when it is shared, then 409 session_not_shareable', async () => {
      const created = await createSession(testApp, originator.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'progress-user' });
      const step = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_DOCUMENT, {
        sessionId: created.body.session_id,
        input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE },
      });
      expect(step.body.data.submitDocument.status).toBe('in_progress');
      const response = await share(testApp, originator.sandboxKey, created.body.session_id, { partner_application_id: partner.id });
      expect([response.status, response.body.code]).toEqual([409, 'session_not_shareable']);
    });

    it('given an expired session, when it is shared, then 409 session_not_shareable', async () => {
      const created = await createSession(testApp, originator.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'expired-user' });
      await testApp.app.orm.em
        .fork()
        .getConnection()
        .execute(`update session set expires_at = now() - interval '1 second' where id = ?`, [created.body.session_id]);
      const response = await share(testApp, originator.sandboxKey, created.body.session_id, { partner_application_id: partner.id });
      expect([response.status, response.body.code]).toEqual([409, 'session_not_shareable']);
      const read = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}`, { key: originator.sandboxKey });
      expect(read.body.status).toBe('expired');
    });

    it('given bad share bodies, then 400 with the field named and nothing minted', async () => {
      const before = await testApp.app.orm.em.fork().count(ShareTokenSchema, { sessionId: approvedId });
      const cases: [Record<string, unknown>, string, string][] = [
        [{}, 'partner_application_id', 'required'],
        [{ partner_application_id: 'not-a-uuid' }, 'partner_application_id', 'invalid'],
        [{ partner_application_id: '6f1c1c64-0000-4000-8000-000000000000' }, 'partner_application_id', 'unknown'],
        [{ partner_application_id: partner.id, expires_in: 0 }, 'expires_in', 'invalid'],
        [{ partner_application_id: partner.id, expires_in: 1.5 }, 'expires_in', 'invalid'],
        [{ partner_application_id: partner.id, expires_in: '60' }, 'expires_in', 'invalid'],
        [{ partner_application_id: partner.id, expires_in: 30 * 24 * 3600 + 1 }, 'expires_in', 'invalid'],
        [{ partner_application_id: partner.id, extra: true }, 'extra', 'unknown_field'],
      ];
      for (const [body, field, code] of cases) {
        const response = await share(testApp, originator.sandboxKey, approvedId, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(fieldErrors(response.body)).toContainEqual([field, code]);
      }
      expect(await testApp.app.orm.em.fork().count(ShareTokenSchema, { sessionId: approvedId })).toBe(before);
    });
  });

  describe('Error 3: importing a share token a second time for the same partner application', () => {
    it('given a redeemed token, when the partner imports it again, then 409 share_token_redeemed and no second session or fee', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const body = { share_token: token, trust_review: true, workflow_id: 'standard_kyc' };
      const first = await importShared(testApp, partner.sandboxKey, body);
      expect(first.status).toBe(201);
      const second = await importShared(testApp, partner.sandboxKey, { ...body, vendor_data: 'someone-else' });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ status: 409, code: 'share_token_redeemed' });
      const shareTokenId = (await testApp.app.orm.em.fork().findOneOrFail(ShareTokenSchema, { tokenHash: hashShareToken(token) })).id;
      expect(await testApp.app.orm.em.fork().count(LedgerEntrySchema, { shareTokenId })).toBe(2);
    });

    it(`given ${CONCURRENT_IMPORTS} concurrent imports of one token by the partner, then exactly one 201 and the rest 409`, async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_IMPORTS }, (_, index) =>
          importShared(testApp, partner.sandboxKey, {
            share_token: token,
            trust_review: index % 2 === 0,
            workflow_id: 'standard_kyc',
            vendor_data: `race-${index}`,
          }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(CONCURRENT_IMPORTS - 1);
      expect(
        responses.filter((response) => response.status === 409).every((response) => response.body.code === 'share_token_redeemed'),
      ).toBe(true);
      const row = await testApp.app.orm.em.fork().findOneOrFail(ShareTokenSchema, { tokenHash: hashShareToken(token) });
      expect(row.redeemedSessionId).toBe(responses.find((response) => response.status === 201)!.body.session_id);
      expect(await testApp.app.orm.em.fork().count(LedgerEntrySchema, { shareTokenId: row.id })).toBe(2);
    });

    it('given an import that fails (unknown workflow, clashing active vendor_data), then the token stays redeemable', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const unknown = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'no-such-flow',
      });
      expect(unknown.status).toBe(400);
      expect(fieldErrors(unknown.body)).toEqual([['workflow_id', 'unknown']]);

      const active = await createSession(testApp, partner.sandboxKey, { workflow_id: 'standard_kyc', vendor_data: 'busy-user' });
      expect(active.status).toBe(201);
      const clash = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: false,
        workflow_id: 'standard_kyc',
        vendor_data: 'busy-user',
      });
      expect([clash.status, clash.body.code]).toEqual([409, 'conflict']);
      expect(await tokenIsUnredeemed(token)).toBe(true);

      const retry = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: false,
        workflow_id: 'standard_kyc',
        vendor_data: 'free-user',
      });
      expect(retry.status).toBe(201);
    });
  });

  describe('Error 4: importing with missing share_token, trust_review or workflow_id', () => {
    it.each([
      ['share_token', { trust_review: true, workflow_id: 'standard_kyc' }],
      ['trust_review', { share_token: 'shr_x', workflow_id: 'standard_kyc' }],
      ['workflow_id', { share_token: 'shr_x', trust_review: true }],
    ])('given no %s, when importing, then 400 validation_failed naming it as required', async (field, body) => {
      const response = await importShared(testApp, partner.sandboxKey, body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(fieldErrors(response.body)).toEqual([[field, 'required']]);
    });

    it('given an empty body, then all three fields are named', async () => {
      const response = await importShared(testApp, partner.sandboxKey, {});
      expect(fieldErrors(response.body).sort()).toEqual([
        ['share_token', 'required'],
        ['trust_review', 'required'],
        ['workflow_id', 'required'],
      ]);
    });

    it('given trust_review as a string or null, then 400: it must be a real boolean', async () => {
      for (const trust of ['true', 1, null]) {
        const response = await importShared(testApp, partner.sandboxKey, {
          share_token: 'shr_x',
          trust_review: trust,
          workflow_id: 'standard_kyc',
        });
        expect(response.status).toBe(400);
        expect(fieldErrors(response.body)).toEqual([['trust_review', 'invalid']]);
      }
    });

    it('given a valid token and a missing field, then the token is not consumed', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const response = await importShared(testApp, partner.sandboxKey, { share_token: token, workflow_id: 'standard_kyc' });
      expect(response.status).toBe(400);
      expect(await tokenIsUnredeemed(token)).toBe(true);
    });
  });

  describe('unknown, misaddressed and expired tokens', () => {
    it('given an unknown token, when importing, then 404 not_found', async () => {
      const response = await importShared(testApp, partner.sandboxKey, {
        share_token: 'shr_unknown',
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect([response.status, response.body.code]).toEqual([404, 'not_found']);
    });

    it('given a token expired by time, when the partner imports it, then 410 share_token_expired and nothing is written', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id, 120);
      await expireShareToken(testApp, token);
      const response = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect(response.status).toBe(410);
      expect(response.body).toMatchObject({ status: 410, code: 'share_token_expired' });
      expect(await tokenIsUnredeemed(token)).toBe(true);
    });

    it('given a redeemed token that later expires, when imported again, then 409: the redemption is the better answer', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      expect(
        (await importShared(testApp, partner.sandboxKey, { share_token: token, trust_review: true, workflow_id: 'standard_kyc' })).status,
      ).toBe(201);
      await expireShareToken(testApp, token);
      const again = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect([again.status, again.body.code]).toEqual([409, 'share_token_redeemed']);
    });
  });

  describe('sharing with oneself (audit L11)', () => {
    /** Rows a share or an import would have written for the originator. */
    async function originatorFootprint() {
      const em = testApp.app.orm.em.fork();
      return {
        shareTokens: await em.count(ShareTokenSchema, { tenantId: originator.id }),
        sessions: await em.count(SessionSchema, { tenant: originator.id }),
        ledger: await em.count(LedgerEntrySchema, { payerTenantId: originator.id }),
      };
    }

    it('given an approved session, when its tenant shares it with its own application id over REST, then 400 share_to_self and nothing is stored', async () => {
      const before = await originatorFootprint();
      for (const partnerId of [originator.id, originator.id.toUpperCase()]) {
        const response = await share(testApp, originator.sandboxKey, approvedId, { partner_application_id: partnerId });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ status: 400, code: 'share_to_self' });
        expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
      expect(await originatorFootprint()).toEqual(before);
    });

    it('given an approved session, when its tenant shares it with itself over GraphQL, then the error code is SHARE_TO_SELF and nothing is stored', async () => {
      const before = await originatorFootprint();
      const response = await testApp.graphql(SHARE, { sessionId: approvedId, partner: originator.id }, originator.sandboxKey);
      expect(response.body.data).toBeNull();
      expect(response.body.errors?.[0]?.extensions?.code).toBe('SHARE_TO_SELF');
      expect(await originatorFootprint()).toEqual(before);
    });

    it('given a self-addressed token minted before the rule, when its tenant imports it, then 400 share_to_self, no copy, no fees, still unredeemed', async () => {
      const token = `shr_self_addressed_${randomUUID()}`;
      const em = testApp.app.orm.em.fork();
      em.create(ShareTokenSchema, {
        id: randomUUID(),
        tokenHash: hashShareToken(token),
        tenantId: originator.id,
        environment: 'sandbox',
        sessionId: approvedId,
        partnerApplicationId: originator.id,
        createdByKeyId: null,
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
        redeemedAt: null,
        redeemedSessionId: null,
        redeemedByKeyId: null,
      });
      await em.flush();
      const before = await originatorFootprint();
      const response = await importShared(testApp, originator.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
        vendor_data: 'anyone-at-all',
      });
      expect([response.status, response.body.code]).toEqual([400, 'share_to_self']);
      expect(await originatorFootprint()).toEqual(before);
      expect(await tokenIsUnredeemed(token)).toBe(true);
    });
  });

  describe('cross-tenant and cross-environment access', () => {
    it('given a token addressed to the partner, when a third tenant redeems it, then 404 and the partner can still import', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const stolen = await importShared(testApp, stranger.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect([stolen.status, stolen.body.code]).toEqual([404, 'not_found']);
      const byOriginator = await importShared(testApp, originator.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect(byOriginator.status).toBe(404);
      const legit = await importShared(testApp, partner.sandboxKey, {
        share_token: token,
        trust_review: true,
        workflow_id: 'standard_kyc',
      });
      expect(legit.status).toBe(201);
      const ledger = await testApp.rest('GET', '/v1/ledger', { key: stranger.sandboxKey });
      expect(ledger.body.entries).toEqual([]);
    });

    it("given another tenant's session, when a tenant tries to share it, then 404", async () => {
      const response = await share(testApp, stranger.sandboxKey, approvedId, { partner_application_id: stranger.id });
      expect([response.status, response.body.code]).toEqual([404, 'not_found']);
    });

    it('given a sandbox token, when the partner imports it with a live key, then 404: sharing stays in one environment', async () => {
      const token = await shareWith(testApp, originator.sandboxKey, approvedId, partner.id);
      const live = await importShared(testApp, partner.liveKey, { share_token: token, trust_review: true, workflow_id: 'standard_kyc' });
      expect(live.status).toBe(404);
      expect(await tokenIsUnredeemed(token)).toBe(true);
      const sharedLive = await share(testApp, originator.liveKey, approvedId, { partner_application_id: partner.id });
      expect(sharedLive.status).toBe(404);
    });

    it('given no API key, when sharing or importing, then 401', async () => {
      const shared = await testApp.rest('POST', `/v1/sessions/${approvedId}/share`, { body: { partner_application_id: partner.id } });
      const imported = await testApp.rest('POST', '/v1/sessions/import-shared', { body: {} });
      const ledger = await testApp.rest('GET', '/v1/ledger');
      expect([shared.status, imported.status, ledger.status]).toEqual([401, 401, 401]);
    });
  });
});
