import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowJson } from '../../src/rest/routes/workflows.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const WORKFLOW_FIELDS = /* GraphQL */ `
  fragment F on Workflow {
    id
    name
    type
    builtIn
    nodes {
      type
      required
      provider
    }
    rules
    publishedRevision
    draftRevision
    complianceLevel
    amlScoreThreshold
    maxAttempts
    duplicates
    capture
    liveness
    createdAt
    updatedAt
  }
`;
const LIST_WORKFLOWS = /* GraphQL */ `
  query {
    workflows {
      ...F
    }
  }
  ${WORKFLOW_FIELDS}
`;
const GET_WORKFLOW = /* GraphQL */ `
  query ($id: String!) {
    workflow(id: $id) {
      ...F
    }
  }
  ${WORKFLOW_FIELDS}
`;
const CREATE_WORKFLOW = /* GraphQL */ `
  mutation ($input: CreateWorkflowInput!) {
    createWorkflow(input: $input) {
      ...F
    }
  }
  ${WORKFLOW_FIELDS}
`;
const UPDATE_WORKFLOW = /* GraphQL */ `
  mutation ($id: String!, $input: UpdateWorkflowInput!) {
    updateWorkflow(id: $id, input: $input) {
      ...F
    }
  }
  ${WORKFLOW_FIELDS}
`;

const AML_NODE = { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' };
const DOC_NODE = { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' };
const BUILT_IN_IDS = ['standard_kyc', 'enhanced_kyc', 'institutional_kyc', 'aml_only', 'kyb'];

/** The GraphQL Workflow shaped as REST presents it, to compare the two transports. */
function asRest(workflow: any) {
  return {
    workflow_id: workflow.id,
    name: workflow.name,
    type: workflow.type,
    built_in: workflow.builtIn,
    nodes: workflow.nodes,
    rules: workflow.rules,
    published_revision: workflow.publishedRevision,
    draft_revision: workflow.draftRevision,
    compliance_level: workflow.complianceLevel,
    aml_score_threshold: workflow.amlScoreThreshold,
    max_attempts: workflow.maxAttempts,
    duplicates: workflow.duplicates,
    capture: workflow.capture,
    liveness: workflow.liveness,
    created_at: workflow.createdAt,
    updated_at: workflow.updatedAt,
  };
}

describe('workflows', () => {
  let testApp: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;

  beforeAll(async () => {
    testApp = await startTestApp();
    tenantA = await testApp.tenant('A');
    tenantB = await testApp.tenant('B');
  });
  afterAll(() => testApp.close());

  describe('listing', () => {
    it('given a new tenant, when listing over REST, then the 5 built-ins come with their nodes in spec shape', async () => {
      const response = await testApp.rest('GET', '/v1/workflows', { key: tenantA.sandboxKey });
      expect(response.status).toBe(200);
      expect(response.body.workflows.map((workflow: { workflow_id: string }) => workflow.workflow_id)).toEqual(BUILT_IN_IDS);
      for (const workflow of response.body.workflows) {
        expect(WorkflowJson.strict().parse(workflow)).toEqual(workflow);
        expect(workflow.built_in).toBe(true);
        expect(workflow.type).toMatch(/^(user|business)$/);
        expect(workflow.nodes.length).toBeGreaterThan(0);
        for (const node of workflow.nodes) expect(node.provider).toMatch(/^[a-z_-]+:[a-z_-]+$/);
      }
    });

    it('given a custom workflow, when listing over REST and GraphQL, then both return the same data', async () => {
      await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'Listed', nodes: [AML_NODE] } });
      const rest = await testApp.rest('GET', '/v1/workflows', { key: tenantA.sandboxKey });
      const graphql = await testApp.graphql(LIST_WORKFLOWS, {}, tenantA.sandboxKey);
      expect(graphql.body.errors).toBeUndefined();
      expect(graphql.body.data.workflows.map(asRest)).toEqual(rest.body.workflows);
      expect(rest.body.workflows.some((workflow: { name: string }) => workflow.name === 'Listed')).toBe(true);
    });
  });

  describe('creating', () => {
    it('given a valid composition, when posting, then 201 with a server-assigned id and the defaults', async () => {
      const response = await testApp.rest('POST', '/v1/workflows', {
        key: tenantA.sandboxKey,
        body: { name: 'KYC lite', nodes: [DOC_NODE, AML_NODE] },
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        name: 'KYC lite',
        type: 'user',
        built_in: false,
        compliance_level: 'standard',
        aml_score_threshold: 80,
        max_attempts: 3,
        duplicates: 'review',
        capture: 'any',
        liveness: 'passive',
        nodes: [DOC_NODE, AML_NODE],
      });
      expect(response.body.workflow_id).toMatch(/^[0-9a-f-]{36}$/);
      const fetched = await testApp.rest('GET', `/v1/workflows/${response.body.workflow_id}`, { key: tenantA.sandboxKey });
      expect(fetched.body).toEqual(response.body);
    });

    it('given a composition through GraphQL, when reading it over REST, then it is the same workflow', async () => {
      const created = await testApp.graphql(
        CREATE_WORKFLOW,
        { input: { name: 'From GraphQL', type: 'business', nodes: [AML_NODE], complianceLevel: 'business', amlScoreThreshold: 65 } },
        tenantA.liveKey,
      );
      expect(created.body.errors).toBeUndefined();
      const workflow = created.body.data.createWorkflow;
      const rest = await testApp.rest('GET', `/v1/workflows/${workflow.id}`, { key: tenantA.liveKey });
      expect(rest.body).toEqual(asRest(workflow));
      expect(rest.body.aml_score_threshold).toBe(65);
    });

    const invalidBodies: [string, unknown, string][] = [
      ['missing name', { nodes: [AML_NODE] }, 'name'],
      ['empty name', { name: '   ', nodes: [AML_NODE] }, 'name'],
      ['name of the wrong type', { name: 12, nodes: [AML_NODE] }, 'name'],
      ['missing nodes', { name: 'x' }, 'nodes'],
      ['no nodes', { name: 'x', nodes: [] }, 'nodes'],
      ['unknown node type', { name: 'x', nodes: [{ ...AML_NODE, type: 'palm_reading' }] }, 'nodes[0].type'],
      ['provider of another node type', { name: 'x', nodes: [{ ...AML_NODE, provider: 'openkyc:mrz_ocr' }] }, 'nodes[0].provider'],
      ['malformed provider', { name: 'x', nodes: [{ ...AML_NODE, provider: 'no-colon' }] }, 'nodes[0].provider'],
      ['required as a string', { name: 'x', nodes: [{ ...AML_NODE, required: 'true' }] }, 'nodes[0].required'],
      ['duplicate node type', { name: 'x', nodes: [AML_NODE, AML_NODE] }, 'nodes[1].type'],
      ['no required node', { name: 'x', nodes: [{ ...AML_NODE, required: false }] }, 'nodes'],
      ['threshold above 100', { name: 'x', nodes: [AML_NODE], aml_score_threshold: 101 }, 'aml_score_threshold'],
      ['threshold as a string', { name: 'x', nodes: [AML_NODE], aml_score_threshold: '80' }, 'aml_score_threshold'],
      ['fractional threshold', { name: 'x', nodes: [AML_NODE], aml_score_threshold: 80.5 }, 'aml_score_threshold'],
      ['unknown type', { name: 'x', nodes: [AML_NODE], type: 'robot' }, 'type'],
      ['bad compliance level', { name: 'x', nodes: [AML_NODE], compliance_level: 'Level 9!' }, 'compliance_level'],
      ['unknown field', { name: 'x', nodes: [AML_NODE], colour: 'blue' }, 'colour'],
      ['a JSON array', [1, 2], '(body)'],
    ];

    it.each(invalidBodies)(
      'given %s, when posting, then 400 validation_failed naming the field and nothing is created',
      async (_label, body, field) => {
        const before = await testApp.rest('GET', '/v1/workflows', { key: tenantB.sandboxKey });
        const response = await testApp.rest('POST', '/v1/workflows', { key: tenantB.sandboxKey, body });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_failed');
        expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
        const after = await testApp.rest('GET', '/v1/workflows', { key: tenantB.sandboxKey });
        expect(after.body.workflows).toEqual(before.body.workflows);
      },
    );

    it('given an invalid composition over GraphQL, when creating, then VALIDATION_FAILED with field errors', async () => {
      const response = await testApp.graphql(
        CREATE_WORKFLOW,
        { input: { name: 'x', nodes: [{ ...AML_NODE, provider: 'openkyc:mrz_ocr' }] } },
        tenantB.sandboxKey,
      );
      expect(response.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors?.[0]?.extensions?.fieldErrors?.[0]?.field).toBe('nodes[0].provider');
    });

    it('given an unknown enum value over GraphQL, when creating, then VALIDATION_FAILED', async () => {
      const response = await testApp.graphql(
        CREATE_WORKFLOW,
        { input: { name: 'x', nodes: [{ ...AML_NODE, type: 'palm_reading' }] } },
        tenantB.sandboxKey,
      );
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('updating', () => {
    it('given a custom workflow, when renaming and changing nodes, then 200 with the new state and a later updated_at or equal', async () => {
      const created = await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'Before', nodes: [AML_NODE] } });
      const id = created.body.workflow_id;
      const patched = await testApp.rest('PATCH', `/v1/workflows/${id}`, {
        key: tenantA.sandboxKey,
        body: { name: 'After', nodes: [DOC_NODE, AML_NODE] },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ workflow_id: id, name: 'After', nodes: [DOC_NODE, AML_NODE], built_in: false });
      expect(patched.body.updated_at).toBeGreaterThanOrEqual(created.body.updated_at);
    });

    it.each(BUILT_IN_IDS)('given built-in %s, when patching over REST, then 403 workflow_read_only and it is unchanged', async (id) => {
      const before = await testApp.rest('GET', `/v1/workflows/${id}`, { key: tenantA.sandboxKey });
      const response = await testApp.rest('PATCH', `/v1/workflows/${id}`, { key: tenantA.sandboxKey, body: { name: 'Hijacked' } });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'workflow_read_only', status: 403 });
      const after = await testApp.rest('GET', `/v1/workflows/${id}`, { key: tenantA.sandboxKey });
      expect(after.body).toEqual(before.body);
    });

    it('given a built-in, when patching it with an invalid body or none, then still 403 workflow_read_only', async () => {
      const invalid = await testApp.rest('PATCH', '/v1/workflows/standard_kyc', {
        key: tenantA.sandboxKey,
        body: { nodes: 'not nodes', unknown_field: true },
      });
      expect(invalid.status).toBe(403);
      expect(invalid.body.code).toBe('workflow_read_only');
      const empty = await testApp.rest('PATCH', '/v1/workflows/aml_only', { key: tenantA.sandboxKey });
      expect(empty.status).toBe(403);
    });

    it('given a built-in, when patching over GraphQL, then WORKFLOW_READ_ONLY', async () => {
      const response = await testApp.graphql(UPDATE_WORKFLOW, { id: 'kyb', input: { name: 'Hijacked' } }, tenantA.sandboxKey);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('WORKFLOW_READ_ONLY');
    });

    it('given an empty patch, when patching, then 400', async () => {
      const created = await testApp.rest('POST', '/v1/workflows', {
        key: tenantA.sandboxKey,
        body: { name: 'Empty patch', nodes: [AML_NODE] },
      });
      const response = await testApp.rest('PATCH', `/v1/workflows/${created.body.workflow_id}`, { key: tenantA.sandboxKey, body: {} });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    });

    it('given an invalid patch, when patching, then 400 and the workflow is unchanged', async () => {
      const created = await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'Stable', nodes: [AML_NODE] } });
      const response = await testApp.rest('PATCH', `/v1/workflows/${created.body.workflow_id}`, {
        key: tenantA.sandboxKey,
        body: { name: 'New', nodes: [] },
      });
      expect(response.status).toBe(400);
      const after = await testApp.rest('GET', `/v1/workflows/${created.body.workflow_id}`, { key: tenantA.sandboxKey });
      expect(after.body.name).toBe('Stable');
    });

    it('given an unknown id, when patching, then 404', async () => {
      const response = await testApp.rest('PATCH', '/v1/workflows/00000000-0000-0000-0000-000000000000', {
        key: tenantA.sandboxKey,
        body: { name: 'x' },
      });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });
  });

  describe('deleting', () => {
    const DELETE_WORKFLOW = /* GraphQL */ `
      mutation ($id: String!) {
        deleteWorkflow(id: $id)
      }
    `;
    const SUBMIT_AML = /* GraphQL */ `
      mutation ($sessionId: String!) {
        submitAmlData(sessionId: $sessionId, input: { fullName: "Ada Lovelace" }) {
          status
        }
      }
    `;

    it('given an unused custom workflow, when deleting over REST, then 204 and it is gone from reads and listings', async () => {
      const created = await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'Doomed', nodes: [AML_NODE] } });
      const id = created.body.workflow_id;
      const deleted = await testApp.rest('DELETE', `/v1/workflows/${id}`, { key: tenantA.sandboxKey });
      expect(deleted.status).toBe(204);
      expect((await testApp.rest('GET', `/v1/workflows/${id}`, { key: tenantA.sandboxKey })).status).toBe(404);
      const listed = await testApp.rest('GET', '/v1/workflows', { key: tenantA.sandboxKey });
      expect(listed.body.workflows.map((workflow: { workflow_id: string }) => workflow.workflow_id)).not.toContain(id);
      const session = await testApp.rest('POST', '/v1/sessions', { key: tenantA.sandboxKey, body: { workflow_id: id, vendor_data: 'u' } });
      expect(session.status).toBe(400);
      expect((await testApp.rest('DELETE', `/v1/workflows/${id}`, { key: tenantA.sandboxKey })).status).toBe(404);
    });

    it('given a workflow an active session uses, when deleting, then 409 workflow_in_use; once decided, 204 and the session stays readable', async () => {
      const created = await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'In use', nodes: [AML_NODE] } });
      const id = created.body.workflow_id;
      const session = await testApp.rest('POST', '/v1/sessions', {
        key: tenantA.sandboxKey,
        body: { workflow_id: id, vendor_data: 'user-1' },
      });
      expect(session.status).toBe(201);

      const refused = await testApp.rest('DELETE', `/v1/workflows/${id}`, { key: tenantA.sandboxKey });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('workflow_in_use');
      expect((await testApp.rest('GET', `/v1/workflows/${id}`, { key: tenantA.sandboxKey })).status).toBe(200);

      const submitted = await testApp.graphql(SUBMIT_AML, { sessionId: session.body.session_id }, tenantA.sandboxKey);
      expect(submitted.body.errors).toBeUndefined();
      const deleted = await testApp.graphql(DELETE_WORKFLOW, { id }, tenantA.sandboxKey);
      expect(deleted.body).toEqual({ data: { deleteWorkflow: true } });
      const read = await testApp.rest('GET', `/v1/sessions/${session.body.session_id}`, { key: tenantA.sandboxKey });
      expect(read.status).toBe(200);
      expect(read.body.workflow_id).toBe(id);
    });

    it("given a built-in, when deleting, then 403 workflow_read_only; another tenant's workflow, 404", async () => {
      const builtIn = await testApp.rest('DELETE', '/v1/workflows/standard_kyc', { key: tenantA.sandboxKey });
      expect(builtIn.status).toBe(403);
      expect(builtIn.body.code).toBe('workflow_read_only');
      const created = await testApp.rest('POST', '/v1/workflows', { key: tenantA.sandboxKey, body: { name: 'Mine', nodes: [AML_NODE] } });
      const foreign = await testApp.rest('DELETE', `/v1/workflows/${created.body.workflow_id}`, { key: tenantB.sandboxKey });
      expect(foreign.status).toBe(404);
      expect((await testApp.rest('GET', `/v1/workflows/${created.body.workflow_id}`, { key: tenantA.sandboxKey })).status).toBe(200);
    });
  });

  describe('tenant isolation', () => {
    let workflowOfA: string;

    beforeAll(async () => {
      const created = await testApp.rest('POST', '/v1/workflows', {
        key: tenantA.sandboxKey,
        body: { name: 'Private to A', nodes: [AML_NODE] },
      });
      workflowOfA = created.body.workflow_id;
    });

    it("given A's custom workflow, when B reads it over REST, then 404", async () => {
      const response = await testApp.rest('GET', `/v1/workflows/${workflowOfA}`, { key: tenantB.sandboxKey });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });

    it("given A's custom workflow, when B patches it over REST, then 404 and it is unchanged", async () => {
      const response = await testApp.rest('PATCH', `/v1/workflows/${workflowOfA}`, { key: tenantB.liveKey, body: { name: 'Taken by B' } });
      expect(response.status).toBe(404);
      const still = await testApp.rest('GET', `/v1/workflows/${workflowOfA}`, { key: tenantA.sandboxKey });
      expect(still.body.name).toBe('Private to A');
    });

    it("given A's custom workflow, when B reads or patches it over GraphQL, then NOT_FOUND", async () => {
      const read = await testApp.graphql(GET_WORKFLOW, { id: workflowOfA }, tenantB.sandboxKey);
      expect(read.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const patch = await testApp.graphql(UPDATE_WORKFLOW, { id: workflowOfA, input: { name: 'x' } }, tenantB.sandboxKey);
      expect(patch.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    it("given A's custom workflow, when B lists workflows, then it is not there", async () => {
      const response = await testApp.rest('GET', '/v1/workflows', { key: tenantB.sandboxKey });
      expect(response.body.workflows.map((workflow: { workflow_id: string }) => workflow.workflow_id)).not.toContain(workflowOfA);
    });
  });
});
