import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StartWorkflowReplayDocument } from '../../src/graphql/generated/operations.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { gql, SANDBOX_IMAGE, SUBMIT_AML, SUBMIT_DOCUMENT, tokenOf } from '../sessions/support.js';
import { consoleGql, makeOperator, operatorAuditOf, signIn } from '../console/support.js';
import { decidedDocumentAmlSession, sessionTablesDigest as tablesDigest } from '../support/workflow-sessions.js';

/** Rules, revisions and replay of workflows (issue 27), through the real REST and GraphQL APIs. */

const DOC_NODE = { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' };
const AML_NODE = { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' };
const POA_NODE = { type: 'proof_of_address', required: false, provider: 'openkyc:poa_ocr' };
const HIGH_RISK_REVIEW = { id: 'high_risk_nationality', when: { in: [{ var: 'document.nationality' }, ['IR', 'KP']] }, then: 'review' };
const STRICT_AML = { id: 'aml_50', when: { '>=': [{ var: 'aml.score' }, 50] }, then: 'decline', reason: 'aml_score_at_or_above_threshold' };

const REPLAY = print(StartWorkflowReplayDocument);

describe('workflow rules, revisions and replay', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant('A');
    other = await testApp.tenant('B');
  });
  afterAll(() => testApp.close());

  const decidedSession = (workflowId: string, vendorData: string, country: string, name?: string) =>
    decidedDocumentAmlSession(testApp, tenant.sandboxKey, workflowId, vendorData, country, name);

  async function createWorkflow(body: Record<string, unknown>, key = tenant.sandboxKey) {
    const response = await testApp.rest('POST', '/v1/workflows', { key, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.workflow_id as string;
  }

  const sessionTablesDigest = () => tablesDigest(testApp);

  it('given rules with mistakes, when saving over REST and GraphQL, then 400 / VALIDATION_FAILED names each place', async () => {
    const rules = [
      { id: 'bad_op', when: { and: [true, { method: ['x', 'toString'] }] }, then: 'review' },
      { id: 'no_node', when: true, then: 'run_node', node: 'phone_verification' },
      { id: 'bad_reason', when: true, then: 'decline', reason: 'not_a_code' },
    ];
    const rest = await testApp.rest('POST', '/v1/workflows', {
      key: tenant.sandboxKey,
      body: { name: 'Bad', nodes: [DOC_NODE, AML_NODE], rules },
    });
    expect(rest.status).toBe(400);
    expect(rest.headers.get('content-type')).toContain('application/problem+json');
    expect(rest.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'rules[0].when.and[1].method',
      'rules[1].node',
      'rules[2].reason',
    ]);
    const graphql = await testApp.graphql(
      `mutation ($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
      { input: { name: 'Bad', nodes: [DOC_NODE, AML_NODE], rules } },
      tenant.sandboxKey,
    );
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(graphql.body.errors?.[0]?.extensions?.fieldErrors?.map((error) => error.field)).toEqual([
      'rules[0].when.and[1].method',
      'rules[1].node',
      'rules[2].reason',
    ]);
  });

  it('given a review rule for high-risk nationalities, when sessions are decided, then only those go to review, naming the rule', async () => {
    const id = await createWorkflow({ name: 'Enhanced for high risk', nodes: [DOC_NODE, AML_NODE, POA_NODE], rules: [HIGH_RISK_REVIEW] });
    const british = await decidedSession(id, 'rules-gb', 'GB');
    expect(british.status).toBe('approved');
    const iranian = await decidedSession(id, 'rules-ir', 'IR');
    expect(iranian.status).toBe('in_review');
    const decision = await testApp.rest('GET', `/v1/sessions/${iranian.id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.reasons[0]).toMatchObject({ code: 'rule_review', cause: 'rule_review' });
  });

  it('given a run_node rule, when a session of a listed country is decided, then it waits for the optional proof of address', async () => {
    const poaOutsideEu = {
      id: 'poa_outside_eu',
      when: { '!': { in: [{ var: 'document.country' }, ['FR', 'DE']] } },
      then: 'run_node',
      node: 'proof_of_address',
    };
    const id = await createWorkflow({ name: 'PoA outside EU', nodes: [DOC_NODE, AML_NODE, POA_NODE], rules: [poaOutsideEu] });
    const french = await decidedSession(id, 'poa-fr', 'FR');
    expect(french.status).toBe('approved');
    const british = await decidedSession(id, 'poa-gb', 'GB');
    expect(british.status).toBe('in_progress');
    // The stored step says what the rule made of it: required for the British passport only.
    const poaOf = async (sessionId: string) =>
      (await testApp.rest('GET', `/v1/sessions/${sessionId}/decision`, { key: tenant.sandboxKey })).body.node_results.proof_of_address;
    expect(await poaOf(british.id)).toMatchObject({ status: 'pending', required: true });
    expect(await poaOf(french.id)).toMatchObject({ status: 'pending', required: false });
    // A rule that cannot hold at creation (nothing is read yet) but holds once the document is: the
    // step was stored optional, and the hosted flow, which reads the same steps, must now ask for it.
    const poaForGb = { id: 'poa_gb', when: { in: [{ var: 'document.country' }, ['GB']] }, then: 'run_node', node: 'proof_of_address' };
    const later = await createWorkflow({ name: 'PoA for GB', nodes: [DOC_NODE, AML_NODE, POA_NODE], rules: [poaForGb] });
    const briton = await decidedSession(later, 'poa-gb-later', 'GB');
    expect(briton.status).toBe('in_progress');
    const flow = await gql(
      testApp,
      { sessionToken: briton.sessionToken },
      `query ($id: String!) { hostedFlow(sessionId: $id) { steps { nodeType status required } } }`,
      { id: briton.id },
    );
    expect(flow.body.errors).toBeUndefined();
    expect(flow.body.data.hostedFlow.steps).toContainEqual({ nodeType: 'proof_of_address', status: 'pending', required: true });
  });

  it('given a skip_node rule on a later step, when the document names the country, then the step is stored skipped and optional', async () => {
    const skipAmlAtHome = {
      id: 'no_aml_fr',
      when: { '==': [{ var: 'document.country' }, 'FR'] },
      then: 'skip_node',
      node: 'aml_screening',
    };
    const id = await createWorkflow({ name: 'Skip AML at home', nodes: [DOC_NODE, AML_NODE], rules: [skipAmlAtHome] });
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: id, vendor_data: 'skip-fr' },
    });
    const credential = { sessionToken: tokenOf(created.body.url) };
    const document = await gql(testApp, credential, SUBMIT_DOCUMENT, {
      sessionId: created.body.session_id,
      input: { country: 'FR', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName: 'Jane', lastName: 'Example' },
    });
    expect(document.body.errors).toBeUndefined();
    const decision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.sandboxKey });
    expect(decision.body.status).toBe('approved');
    expect(decision.body.node_results.aml_screening).toMatchObject({ status: 'skipped', required: false });
  });

  it('given a draft, a publication and a rollback, when sessions run, then each keeps its revision and publications name who published', async () => {
    const id = await createWorkflow({ name: 'Revisions', nodes: [DOC_NODE, AML_NODE] });
    const draft = await testApp.rest('POST', `/v1/workflows/${id}/draft`, { key: tenant.sandboxKey, body: { rules: [STRICT_AML] } });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ published_revision: 1, draft_revision: 2, rules: [] });

    // A session started under revision 1 keeps it after revision 2 is published.
    const created = await testApp.rest('POST', '/v1/sessions', {
      key: tenant.sandboxKey,
      body: { workflow_id: id, vendor_data: 'kept-1' },
    });
    const published = await testApp.rest('POST', `/v1/workflows/${id}/revisions/2/publish`, { key: tenant.sandboxKey });
    expect(published.body).toMatchObject({ published_revision: 2, draft_revision: null, rules: [STRICT_AML] });
    const credential = { sessionToken: tokenOf(created.body.url) };
    await gql(testApp, credential, SUBMIT_DOCUMENT, {
      sessionId: created.body.session_id,
      input: { country: 'GB', idType: 'PASSPORT', imageFront: SANDBOX_IMAGE, firstName: 'Sandbox', lastName: 'Pep' },
    });
    const kept = await gql(testApp, credential, SUBMIT_AML, { sessionId: created.body.session_id, input: { fullName: 'Sandbox Pep' } });
    expect(kept.body.data.submitAmlData.status).toBe('in_review');
    // A session started under revision 2 declines the same person (PEP score 60 ≥ 50).
    const second = await decidedSession(id, 'new-2', 'GB', 'Sandbox Pep');
    expect(second.status).toBe('declined');
    // Decisions name the revision that decided them.
    const keptDecision = await testApp.rest('GET', `/v1/sessions/${created.body.session_id}/decision`, { key: tenant.sandboxKey });
    expect(keptDecision.body.workflow_revision).toBe(1);
    const secondDecision = await testApp.rest('GET', `/v1/sessions/${second.id}/decision`, { key: tenant.sandboxKey });
    expect(secondDecision.body.workflow_revision).toBe(2);
    expect(secondDecision.body.reasons[0]).toMatchObject({ code: 'rule_decline', cause: 'aml_score_at_or_above_threshold' });

    const rollback = await testApp.rest('POST', `/v1/workflows/${id}/revisions/1/publish`, { key: tenant.sandboxKey });
    expect(rollback.body).toMatchObject({ published_revision: 1, rules: [] });
    const history = await testApp.rest('GET', `/v1/workflows/${id}/revisions`, { key: tenant.sandboxKey });
    expect(history.status).toBe(200);
    expect(
      history.body.revisions.map((revision: { revision: number; published: boolean }) => [revision.revision, revision.published]),
    ).toEqual([
      [2, false],
      [1, true],
    ]);
    expect(
      history.body.publications.map((publication: { revision: number; previous_revision: number }) => [
        publication.revision,
        publication.previous_revision,
      ]),
    ).toEqual([
      [1, 2],
      [2, 1],
      [1, null],
    ]);
    expect(history.body.publications[0].actor_key_id).toBe(tenant.sandboxKeyId);

    // PATCH keeps the spec's behaviour (new sessions run the change at once) as a published revision.
    const patched = await testApp.rest('PATCH', `/v1/workflows/${id}`, { key: tenant.sandboxKey, body: { name: 'Revisions (renamed)' } });
    expect(patched.body).toMatchObject({ name: 'Revisions (renamed)', published_revision: 3 });
  });

  it('given a stricter AML draft, when replayed over past sessions, then the changed verdicts are reported and no row changes', async () => {
    const id = await createWorkflow({ name: 'Replay', nodes: [DOC_NODE, AML_NODE] });
    const clean = await decidedSession(id, 'replay-clean', 'GB');
    const pep = await decidedSession(id, 'replay-pep', 'GB', 'Sandbox Pep');
    const media = await decidedSession(id, 'replay-media', 'GB', 'Sandbox Adverse Media');
    expect([clean.status, pep.status, media.status]).toEqual(['approved', 'in_review', 'in_review']);
    const draft = await testApp.rest('POST', `/v1/workflows/${id}/draft`, { key: tenant.sandboxKey, body: { rules: [STRICT_AML] } });
    const before = await sessionTablesDigest();

    const replay = await testApp.graphql(REPLAY, { id, input: { revision: draft.body.draft_revision, last: 10 } }, tenant.sandboxKey);
    expect(replay.body.errors).toBeUndefined();
    const report = replay.body.data.startWorkflowReplay;
    expect(report).toMatchObject({
      status: 'done',
      total: 3,
      done: 3,
      changed: 1,
      byReason: [{ reason: 'aml_score_at_or_above_threshold', count: 1 }],
    });
    expect(report.changes).toEqual([
      { sessionId: pep.id, before: 'in_review', after: 'declined', reason: 'aml_score_at_or_above_threshold', matchedRules: ['aml_50'] },
    ]);
    expect(await sessionTablesDigest()).toBe(before);

    // REST reads the same replay; a date range selects by creation time.
    const read = await testApp.rest('GET', `/v1/workflow-replays/${report.id}`, { key: tenant.sandboxKey });
    expect(read.body).toMatchObject({
      replay_id: report.id,
      status: 'done',
      changed: 1,
      by_reason: [{ reason: 'aml_score_at_or_above_threshold', count: 1 }],
    });
    const ranged = await testApp.rest('POST', `/v1/workflows/${id}/replays`, {
      key: tenant.sandboxKey,
      body: { revision: draft.body.draft_revision, from: Math.floor(Date.now() / 1000) - 3600, to: Math.floor(Date.now() / 1000) + 60 },
    });
    expect(ranged.status).toBe(201);
    expect(ranged.body).toMatchObject({ total: 3, changed: 1 });
    expect(await sessionTablesDigest()).toBe(before);

    // On the queue: answered at once, then read again until done, with the same report.
    const queued = await testApp.rest('POST', `/v1/workflows/${id}/replays`, {
      key: tenant.sandboxKey,
      body: { revision: draft.body.draft_revision, last: 10, background: true },
    });
    expect(queued.status).toBe(201);
    expect(['queued', 'running', 'done']).toContain(queued.body.status);
    await expect
      .poll(async () => (await testApp.rest('GET', `/v1/workflow-replays/${queued.body.replay_id}`, { key: tenant.sandboxKey })).body)
      .toMatchObject({ status: 'done', total: 3, done: 3, changed: 1 });
    expect(await sessionTablesDigest()).toBe(before);

    const bad = await testApp.rest('POST', `/v1/workflows/${id}/replays`, { key: tenant.sandboxKey, body: { revision: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('last');
    const missing = await testApp.rest('POST', `/v1/workflows/${id}/replays`, { key: tenant.sandboxKey, body: { revision: 99, last: 5 } });
    expect(missing.status).toBe(404);
  });

  it('given an admin in the console, when saving a draft and publishing it, then the audit log names the admin; another tenant’s admin is refused and leaves no trace', async () => {
    const id = await createWorkflow({ name: 'Audited', nodes: [DOC_NODE, AML_NODE] });
    const admin = await signIn(testApp, await makeOperator(testApp, tenant.id, 'admin', 'Grace Hopper'), 'sandbox');
    const stranger = await signIn(testApp, await makeOperator(testApp, other.id, 'admin', 'Other Admin'), 'sandbox');
    const SAVE = `mutation ($id: String!, $input: UpdateWorkflowInput!) { saveWorkflowDraft(id: $id, input: $input) { draftRevision } }`;
    const PUBLISH = `mutation ($id: String!, $revision: Int!) { publishWorkflowRevision(id: $id, revision: $revision) { publishedRevision } }`;
    const refused = await consoleGql(testApp, stranger, PUBLISH, { id, revision: 1 });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const saved = await consoleGql(testApp, admin, SAVE, { id, input: { rules: [STRICT_AML] } });
    expect(saved.body.data.saveWorkflowDraft.draftRevision).toBe(2);
    const published = await consoleGql(testApp, admin, PUBLISH, { id, revision: 2 });
    expect(published.body.data.publishWorkflowRevision.publishedRevision).toBe(2);
    expect(await operatorAuditOf(testApp, id)).toEqual([
      { action: 'workflow.draft_saved', actor_name: 'Grace Hopper', environment: 'sandbox' },
      { action: 'workflow.published', actor_name: 'Grace Hopper', environment: 'sandbox' },
    ]);
  });

  it('given another tenant or the other environment, when reading or changing revisions and replays, then 404', async () => {
    const id = await createWorkflow({ name: 'Boundary', nodes: [AML_NODE] });
    const replay = await testApp.rest('POST', `/v1/workflows/${id}/replays`, { key: tenant.sandboxKey, body: { revision: 1, last: 5 } });
    expect(replay.status).toBe(201);
    for (const key of [other.sandboxKey, tenant.liveKey]) {
      expect((await testApp.rest('GET', `/v1/workflows/${id}/revisions`, { key })).status).toBe(404);
      expect((await testApp.rest('POST', `/v1/workflows/${id}/draft`, { key, body: { name: 'x' } })).status).toBe(404);
      expect((await testApp.rest('POST', `/v1/workflows/${id}/revisions/1/publish`, { key })).status).toBe(404);
      expect((await testApp.rest('POST', `/v1/workflows/${id}/replays`, { key, body: { revision: 1, last: 5 } })).status).toBe(404);
      expect((await testApp.rest('GET', `/v1/workflow-replays/${replay.body.replay_id}`, { key })).status).toBe(404);
    }
    // Built-ins: revisions readable (revision 1, the code), never changed.
    const builtIn = await testApp.rest('GET', '/v1/workflows/standard_kyc/revisions', { key: tenant.sandboxKey });
    expect(builtIn.body.revisions).toMatchObject([{ revision: 1, published: true, definition: { rules: [] } }]);
    expect((await testApp.rest('POST', '/v1/workflows/standard_kyc/draft', { key: tenant.sandboxKey, body: { name: 'x' } })).status).toBe(
      403,
    );
  });
});
