/**
 * The AML node screens the verified person (audit H2, src/sessions/aml-subject.ts): in a workflow
 * with a document node, the identity read from the document, whatever the end user types; the
 * typed data is compared with it (differences are warnings → review). Sandbox and live engines,
 * both orders of the two steps, and the name-list gate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../src/engines/aml/importers/index.js';
import { importEntities } from '../../src/engines/aml/store.js';
import { planAmlScreen } from '../../src/sessions/aml-subject.js';
import {
  renderDocument,
  toDataUri,
  yymmdd,
  type SyntheticIdentity,
  unlistedHolder,
} from '../id-verification/support/synthetic-document.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, SUBMIT_SELFIE } from './support.js';
import { camelCaseKeys } from '../support/stored-keys.js';

const DECISION = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      decision {
        status
        nodeResults {
          nodeType
          status
          details
          warnings {
            code
            field
          }
        }
      }
    }
  }
`;

/** A sandbox document "reading" the given holder (the sandbox reads the typed names). */
function sandboxDocument(firstName: string, lastName: string, extra: Record<string, unknown> = {}) {
  return { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName, lastName, ...extra };
}

/** Workflow document + AML, both required: the pair under test without the selfie in between. */
const DOCUMENT_AND_AML = [
  { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
  { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
];

describe('AML screens the identity read from the document', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let vendor = 0;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
  });
  afterAll(() => testApp.close());

  /** A new session of `workflowId` with the sandbox key (or `key`). */
  async function newSession(workflowId: string, extra: Record<string, unknown> = {}, key = tenant.sandboxKey): Promise<string> {
    vendor += 1;
    const created = await createSession(testApp, key, { workflow_id: workflowId, vendor_data: `aml-identity-${vendor}`, ...extra });
    expect(created.status).toBe(201);
    return created.body.session_id;
  }

  /** Submits one step and returns the session status it answered (throws on a GraphQL error). */
  async function submit(sessionId: string, operation: string, input: Record<string, unknown>, key = tenant.sandboxKey): Promise<string> {
    const response = await gql(testApp, { key }, operation, { sessionId, input });
    if (response.body.errors) throw new Error(JSON.stringify(response.body.errors));
    return (Object.values(response.body.data)[0] as { status: string }).status;
  }

  /** The REST decision of a session. */
  async function decisionOf(sessionId: string, key = tenant.sandboxKey) {
    const decision = await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key });
    expect(decision.status).toBe(200);
    return decision.body;
  }

  /** A custom workflow of the tenant. */
  async function workflow(name: string, nodes: unknown[], key = tenant.sandboxKey): Promise<string> {
    const created = await testApp.rest('POST', '/v1/workflows', { key, body: { name, nodes } });
    expect(created.status).toBe(201);
    return created.body.workflow_id;
  }

  const warningCodes = (result: { warnings: { code: string }[] }) => result.warnings.map((warning) => warning.code);

  describe('sandbox', () => {
    it('given a document of "Sandbox Sanctioned", when the end user types "John Smith" for AML (audit H2), then the document holder is screened and the session declined', async () => {
      const sessionId = await newSession('standard_kyc');
      await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Sandbox', 'Sanctioned'));
      await submit(sessionId, SUBMIT_SELFIE, { selfie: SANDBOX_IMAGE });

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith' });

      expect(status).toBe('declined');
      const decision = await decisionOf(sessionId);
      expect(decision.status).toBe('declined');
      expect(decision).not.toHaveProperty('service_token');
      const aml = decision.node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'failed',
        details: {
          result_code: 'sanctions_match',
          screened_source: 'document',
          subject: { full_name: 'Sandbox Sanctioned', country: 'GB' },
          submitted_data: { full_name: 'John Smith' },
        },
      });
      expect(aml.warnings).toEqual([expect.objectContaining({ code: 'aml_document_mismatch', field: 'full_name' })]);
      expect(decision.reasons[0]).toMatchObject({ code: 'required_node_failed', node_type: 'aml_screening' });
    });

    it('given expected_details naming the sanctioned holder too, when "John Smith" is typed, then still declined (expected_details never replace the document)', async () => {
      const sessionId = await newSession('standard_kyc', { expected_details: { first_name: 'Sandbox', last_name: 'Sanctioned' } });
      await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Sandbox', 'Sanctioned'));
      await submit(sessionId, SUBMIT_SELFIE, { selfie: SANDBOX_IMAGE });
      expect(await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith' })).toBe('declined');
    });

    it('given the AML data first, when it is submitted, then nothing is screened yet: the node waits for the document, holding the typed data', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith', dateOfBirth: '1980-01-01' });

      expect(status).toBe('in_progress');
      const decision = await decisionOf(sessionId);
      expect(decision.node_results.aml_screening).toMatchObject({
        status: 'pending',
        details: { result_code: 'awaiting_document', submitted_data: { full_name: 'John Smith', date_of_birth: '1980-01-01' } },
      });
      expect(decision.node_results.aml_screening.details).not.toHaveProperty('score');
      expect(decision.reasons).toContainEqual(expect.objectContaining({ code: 'required_node_pending', node_type: 'aml_screening' }));
    });

    it('given the AML data first, when the document of a sanctioned holder follows, then the document step screens the holder and declines', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith' });

      const status = await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Sandbox', 'Sanctioned'));

      expect(status).toBe('declined');
      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'failed',
        details: { screened_source: 'document', subject: { full_name: 'Sandbox Sanctioned' }, submitted_data: { full_name: 'John Smith' } },
      });
      expect(warningCodes(aml)).toEqual(['aml_document_mismatch']);
    });

    it('given the AML data first and then a corrected name, when the document follows, then the last typed data is compared and a matching holder is approved', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_AML, { fullName: 'Jon Smyth-Wrong' });
      await submit(sessionId, SUBMIT_AML, { fullName: 'Jane Example', country: 'GB' });

      const status = await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Jane', 'Example'));

      expect(status).toBe('approved');
      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'passed',
        warnings: [],
        details: { screened_source: 'document', subject: { full_name: 'Jane Example' } },
      });
    });

    it('given a session in flight from before this rule, its AML screened from typed data, when the document arrives, then the document holder is screened', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      const screenedFromTypedData = {
        result_code: 'clear',
        score: 0,
        risk_band: 1,
        hits: [],
        checked_lists: ['OFAC_SDN', 'PEP'],
        subject: { full_name: 'John Smith' },
      };
      await testApp.app.orm.em.fork().execute(
        `update session_node_result set status = 'passed', provider = 'sandbox:aml_screen', details = ?::jsonb
            where session_id = ? and node_type = 'aml_screening'`,
        [JSON.stringify(screenedFromTypedData), sessionId],
      );

      const status = await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Sandbox', 'Sanctioned'));

      expect(status).toBe('declined');
      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'failed',
        details: {
          screened_source: 'document',
          subject: { full_name: 'Sandbox Sanctioned' },
          submitted_data: { full_name: 'John Smith' },
          checked_lists: ['OFAC_SDN', 'PEP'],
        },
      });
    });

    it('given an unlisted holder, when a different name, birth date and country are typed, then one mismatch warning per field sends the session to review', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Jane', 'Example', { dateOfBirth: '1990-05-05' }));

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith', dateOfBirth: '1970-01-01', country: 'FR' });

      expect(status).toBe('in_review');
      const decision = await decisionOf(sessionId);
      expect(decision.node_results.aml_screening.status).toBe('passed');
      expect(decision.node_results.aml_screening.warnings.map((warning: { field: string }) => warning.field)).toEqual([
        'full_name',
        'date_of_birth',
        'country',
      ]);
      expect(decision.reasons).toContainEqual(expect.objectContaining({ code: 'warning', node_type: 'aml_screening' }));
    });

    it('given the same person typed in another spelling and order, when screened, then no warning: only another person is a mismatch', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('José', 'García'));
      expect(await submit(sessionId, SUBMIT_AML, { fullName: 'GARCIA Jose' })).toBe('approved');
    });

    it('given the AML data first, when a required document fails, then the session is declined by the document and nothing is screened from it', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_AML, { fullName: 'Sandbox Sanctioned' });

      const status = await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Jane', 'Example', { imageFront: 'sandbox:tampered' }));

      expect(status).toBe('declined');
      const decision = await decisionOf(sessionId);
      expect(decision.reasons[0]).toMatchObject({ code: 'required_node_failed', node_type: 'document_verification' });
      expect(decision.node_results.aml_screening.details).toMatchObject({ screened_source: 'submitted_data' });
      expect(decision.node_results.aml_screening.details.subject).toEqual({ full_name: 'Sandbox Sanctioned' });
      expect(warningCodes(decision.node_results.aml_screening)).toContain('document_identity_unavailable');
    });

    it('given an optional document that failed, when AML data is typed, then the typed data is screened but only to review (never approved on typed data alone)', async () => {
      const sessionId = await newSession(
        await workflow('Optional document', [{ ...DOCUMENT_AND_AML[0], required: false }, DOCUMENT_AND_AML[1]]),
      );
      expect(await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Jane', 'Example', { imageFront: 'sandbox:tampered' }))).toBe(
        'in_progress',
      );

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'Jane Example' });

      expect(status).toBe('in_review');
      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'passed',
        details: { screened_source: 'submitted_data', subject: { full_name: 'Jane Example' } },
      });
      expect(warningCodes(aml)).toEqual(['document_identity_unavailable']);
    });

    it('given document and AML submitted at the same time, when both settle, then the AML node screened the document holder', async () => {
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));

      const [document, aml] = await Promise.all([
        gql(testApp, { key: tenant.sandboxKey }, SUBMIT_DOCUMENT, { sessionId, input: sandboxDocument('Sandbox', 'Sanctioned') }),
        gql(testApp, { key: tenant.sandboxKey }, SUBMIT_AML, { sessionId, input: { fullName: 'John Smith' } }),
      ]);

      // Either both were stored, or one was refused with 409 after being overtaken repeatedly (a client retries it).
      for (const [response, operation, input] of [
        [document, SUBMIT_DOCUMENT, sandboxDocument('Sandbox', 'Sanctioned')],
        [aml, SUBMIT_AML, { fullName: 'John Smith' }],
      ] as const) {
        if (!response.body.errors) continue;
        expect(response.body.errors[0].extensions.code).toBe('CONFLICT');
        await submit(sessionId, operation, input);
      }
      const decision = await decisionOf(sessionId);
      expect(decision.status).toBe('declined');
      expect(decision.node_results.aml_screening.details).toMatchObject({
        screened_source: 'document',
        subject: { full_name: 'Sandbox Sanctioned' },
      });
    });

    it('given a workflow without a document node, when AML data is typed, then the typed data is screened and the decision says so, over REST and GraphQL', async () => {
      const sessionId = await newSession('aml_only');

      expect(await submit(sessionId, SUBMIT_AML, { fullName: 'Sandbox Pep', country: 'GB' })).toBe('in_review');

      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml.details).toMatchObject({ screened_source: 'submitted_data', subject: { full_name: 'Sandbox Pep', country: 'GB' } });
      expect(aml.details).not.toHaveProperty('submitted_data');
      const graphql = await gql(testApp, { key: tenant.sandboxKey }, DECISION, { id: sessionId });
      const node = graphql.body.data.session.decision.nodeResults.find(
        (result: { nodeType: string }) => result.nodeType === 'aml_screening',
      );
      expect(node.details).toMatchObject({ screened_source: 'submitted_data', subject: { full_name: 'Sandbox Pep' } });
    });

    it('given a workflow without a document node and expected_details, when another name is typed, then a name_mismatch warning sends it to review', async () => {
      const sessionId = await newSession('aml_only', { expected_details: { first_name: 'Ada', last_name: 'Lovelace' } });

      expect(await submit(sessionId, SUBMIT_AML, { fullName: 'John Smith' })).toBe('in_review');

      const aml = (await decisionOf(sessionId)).node_results.aml_screening;
      expect(aml.warnings).toEqual([expect.objectContaining({ code: 'name_mismatch', field: 'full_name' })]);
      const matching = await newSession('aml_only', { expected_details: { first_name: 'Ada', last_name: 'Lovelace' } });
      expect(await submit(matching, SUBMIT_AML, { fullName: 'Ada Lovelace' })).toBe('approved');
    });

    it("given a name list entry for the document holder, when another name is typed for AML, then the document's name gates the session", async () => {
      const lists = await testApp.rest('GET', '/v1/lists', { key: tenant.sandboxKey });
      const nameList = lists.body.lists.find((list: { type: string; built_in: boolean }) => list.type === 'name' && list.built_in);
      const entry = await testApp.rest('POST', `/v1/lists/${nameList.uuid}/entries/name`, {
        key: tenant.sandboxKey,
        body: { name: 'Watched Holder', reason: 'document name check' },
      });
      expect(entry.status).toBe(201);
      const sessionId = await newSession(await workflow('Document and AML', DOCUMENT_AND_AML));
      await submit(sessionId, SUBMIT_AML, { fullName: 'Jane Example' });

      const status = await submit(sessionId, SUBMIT_DOCUMENT, sandboxDocument('Watched', 'Holder'));

      expect(status).toBe('in_review');
      const decision = await decisionOf(sessionId);
      expect(decision.reasons).toContainEqual(
        expect.objectContaining({ code: 'list_review', node_type: 'document_verification', entry_id: entry.body.uuid }),
      );
    });
  });

  describe('live, with the UN fixture list and synthetic passports read by the MRZ engine', () => {
    let liveWorkflow: string;

    /** Listed in test/fixtures/aml/un-consolidated.xml (born 1958-01-01, Democratic Republic of the Congo). */
    const LISTED: SyntheticIdentity = {
      format: 'TD3',
      issuingState: 'COD',
      lastName: 'LWANGA TEMBO',
      firstName: 'MATHIAS OBURU',
      documentNumber: 'L0V3L4C31',
      birthDate: '580101',
      expiryDate: yymmdd(5),
      sex: 'M',
    };
    /** On no list. */
    const UNLISTED: SyntheticIdentity = unlistedHolder();
    const passport = async (identity: SyntheticIdentity) => ({
      country: identity.issuingState === 'COD' ? 'CD' : 'GB',
      idType: 'PASSPORT',
      imageFront: toDataUri(await renderDocument(identity)),
    });

    beforeAll(async () => {
      // The same content test/aml/aml.api.test.ts imports, so a shared PostgreSQL database keeps one version of UN_SC.
      const fixture = new URL('../fixtures/aml/un-consolidated.xml', import.meta.url).pathname;
      await importEntities(testApp.app.orm.em.fork(), importFile(fixture), { fileFormat: 'un_consolidated_xml', checksum: 'fixture' });
      liveWorkflow = await workflow('Live document and AML', DOCUMENT_AND_AML, tenant.liveKey);
    });

    it('given a passport of a listed person, when an unlisted name is typed, then the MRZ identity is screened and the session declined', async () => {
      const sessionId = await newSession(liveWorkflow, {}, tenant.liveKey);
      expect(await submit(sessionId, SUBMIT_DOCUMENT, await passport(LISTED), tenant.liveKey)).toBe('in_progress');

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'Ada Lovelace', country: 'GB' }, tenant.liveKey);

      expect(status).toBe('declined');
      const decision = await decisionOf(sessionId, tenant.liveKey);
      expect(decision.node_results.document_verification.details.extracted).toMatchObject({
        first_name: 'MATHIAS OBURU',
        last_name: 'LWANGA TEMBO',
        date_of_birth: '1958-01-01',
        nationality: 'CD',
      });
      const aml = decision.node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'failed',
        provider: 'openkyc:aml_screen',
        details: {
          screened_source: 'document',
          subject: { full_name: 'MATHIAS OBURU LWANGA TEMBO', date_of_birth: '1958-01-01', country: 'CD' },
          submitted_data: { full_name: 'Ada Lovelace', country: 'GB' },
        },
      });
      expect(aml.details.hits[0]).toMatchObject({ list: 'UN_SC', category: 'sanctions' });
      expect(aml.details.score).toBeGreaterThanOrEqual(80);
      // Both live engines' results are kept in the spec's snake_case, nested fields included (the one flip).
      expect(decision.node_results.document_verification.details).toMatchObject({
        result_code: expect.any(String),
        checks: { document_authentic: expect.any(String), mrz_match: 'passed', expiry_check: expect.any(String) },
        extracted: { document_number: expect.any(String), mrz_format: 'TD3', issuing_state: expect.any(String) },
      });
      expect(camelCaseKeys(decision.node_results.document_verification.details)).toEqual([]);
      expect(aml.details.hits[0]).toMatchObject({ entry_id: expect.any(String), matched_name: expect.any(String) });
      expect(aml.details.hits[0].explanation).toMatchObject({ name_points: expect.any(Number), token_matches: expect.any(Array) });
      expect(camelCaseKeys(aml.details)).toEqual([]);
      expect(aml.warnings.map((warning: { field: string }) => warning.field)).toEqual(['full_name', 'country']);
    }, 180_000);

    it('given the typed data first, when the passport of the listed person follows, then the document step screens the holder and declines', async () => {
      const sessionId = await newSession(liveWorkflow, {}, tenant.liveKey);
      expect(await submit(sessionId, SUBMIT_AML, { fullName: 'Ada Lovelace' }, tenant.liveKey)).toBe('in_progress');

      const status = await submit(sessionId, SUBMIT_DOCUMENT, await passport(LISTED), tenant.liveKey);

      expect(status).toBe('declined');
      const aml = (await decisionOf(sessionId, tenant.liveKey)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'failed',
        details: { screened_source: 'document', hits: [expect.objectContaining({ list: 'UN_SC' })] },
      });
    }, 180_000);

    it("given an unlisted holder's passport, when the matching name, birth date and nationality are typed, then no mismatch warning and approved", async () => {
      const sessionId = await newSession(liveWorkflow, {}, tenant.liveKey);
      await submit(sessionId, SUBMIT_DOCUMENT, await passport(UNLISTED), tenant.liveKey);

      const status = await submit(
        sessionId,
        SUBMIT_AML,
        { fullName: 'Ada Lovelace', dateOfBirth: '1985-12-10', country: 'GB' },
        tenant.liveKey,
      );

      expect(status).toBe('approved');
      const aml = (await decisionOf(sessionId, tenant.liveKey)).node_results.aml_screening;
      expect(aml).toMatchObject({
        status: 'passed',
        warnings: [],
        details: { screened_source: 'document', subject: { full_name: 'ADA LOVELACE', date_of_birth: '1985-12-10', country: 'GB' } },
      });
    }, 180_000);

    it("given an unlisted holder's passport, when another person's name is typed, then a mismatch warning sends the session to review", async () => {
      const sessionId = await newSession(liveWorkflow, {}, tenant.liveKey);
      await submit(sessionId, SUBMIT_DOCUMENT, await passport(UNLISTED), tenant.liveKey);

      const status = await submit(sessionId, SUBMIT_AML, { fullName: 'Mathias Oburu Lwanga-Tembo' }, tenant.liveKey);

      expect(status).toBe('in_review');
      const decision = await decisionOf(sessionId, tenant.liveKey);
      // The typed (listed) name was not screened: only the holder was, and the difference is for a reviewer.
      expect(decision.node_results.aml_screening).toMatchObject({ status: 'passed', details: { score: 0, hits: [] } });
      expect(warningCodes(decision.node_results.aml_screening)).toEqual(['aml_document_mismatch']);
      expect(decision.reasons).toContainEqual(expect.objectContaining({ code: 'warning', node_type: 'aml_screening' }));
    }, 180_000);
  });

  describe('planAmlScreen, the rule alone', () => {
    const passedDocument = (extracted: Record<string, string | null>) => ({
      status: 'passed' as const,
      details: { extracted: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-12-10', nationality: 'GB', ...extracted } },
    });

    it('given no document node, when planned, then the typed data is screened', () => {
      expect(planAmlScreen({ hasDocumentNode: false, submitted: { fullName: 'John Smith' }, document: null })).toEqual({
        kind: 'screen',
        source: 'submitted_data',
        subject: { full_name: 'John Smith' },
        warnings: [],
      });
    });

    it('given a document node without a result yet, when planned, then it waits, whatever was typed', () => {
      for (const document of [null, { status: 'pending' as const, details: {} }]) {
        expect(planAmlScreen({ hasDocumentNode: true, submitted: { fullName: 'Sandbox Sanctioned' }, document })).toEqual({
          kind: 'await_document',
        });
      }
    });

    it('given a passed document, when planned, then its name, birth date and nationality are screened', () => {
      const plan = planAmlScreen({
        hasDocumentNode: true,
        submitted: { fullName: 'ADA  lovelace', country: 'gb' },
        document: passedDocument({}),
      });
      expect(plan).toEqual({
        kind: 'screen',
        source: 'document',
        subject: { full_name: 'Ada Lovelace', date_of_birth: '1985-12-10', country: 'GB' },
        warnings: [],
      });
    });

    it('given a document read without a birth date, when a birth date is typed, then it is not compared (no evidence either way)', () => {
      const plan = planAmlScreen({
        hasDocumentNode: true,
        submitted: { fullName: 'Ada Lovelace', dateOfBirth: '1900-01-01' },
        document: passedDocument({ date_of_birth: null }),
      });
      expect(plan).toMatchObject({ subject: { full_name: 'Ada Lovelace', country: 'GB' }, warnings: [] });
    });

    it('given a failed document, or one that read no name, when planned, then the typed data with document_identity_unavailable', () => {
      const failed = { ...passedDocument({}), status: 'failed' as const };
      const unread = { status: 'review' as const, details: { extracted: { first_name: null, last_name: null } } };
      for (const document of [failed, unread]) {
        const plan = planAmlScreen({ hasDocumentNode: true, submitted: { fullName: 'John Smith' }, document });
        expect(plan).toMatchObject({ kind: 'screen', source: 'submitted_data', subject: { full_name: 'John Smith' } });
        expect(plan.kind === 'screen' && plan.warnings.map((warning) => warning.code)).toEqual(['document_identity_unavailable']);
      }
    });

    it('given half an expected name, when another full name is typed without a document node, then no name warning', () => {
      const plan = planAmlScreen({
        hasDocumentNode: false,
        submitted: { fullName: 'John Smith', country: 'FR' },
        document: null,
        expectedDetails: { last_name: 'Lovelace', country: 'GB' },
      });
      expect(plan.kind === 'screen' && plan.warnings).toEqual([expect.objectContaining({ code: 'country_mismatch', field: 'country' })]);
    });
  });
});
