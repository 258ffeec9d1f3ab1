import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_RESULT_CODES } from '../../src/engines/document/result-codes.js';
import { ERROR_CATALOGUE } from '../../src/shared/errors.js';
import { OPERATION_EXAMPLES } from '../../src/rest/openapi-examples.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { SANDBOX_IMAGE } from '../sessions/support.js';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'node_modules', '.bin');
const REDOCLY_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** One operation of the document: a `/v1` route or a `webhooks` entry. */
interface Operation {
  name: string;
  operation: any;
}

/** Every operation of the document, paths first, then webhooks. */
function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths))
    for (const [method, operation] of Object.entries<any>(item)) operations.push({ name: `${method.toUpperCase()} ${path}`, operation });
  for (const [event, item] of Object.entries<any>(document.webhooks))
    for (const [method, operation] of Object.entries<any>(item)) operations.push({ name: `webhook ${event} (${method})`, operation });
  return operations;
}

/** True when a media type object carries an example (`example`, or at least one of `examples`). */
function hasExample(media: any): boolean {
  return media.example !== undefined || Object.values<any>(media.examples ?? {}).some((example) => example.value !== undefined);
}

/**
 * Lints with Redocly's rule that validates every example against its schema (request bodies,
 * responses, named examples, webhooks), as an error and with no property the schema lacks.
 */
async function invalidExamples(dir: string, document: unknown): Promise<string[]> {
  const file = join(dir, 'examples.json');
  await writeFile(file, JSON.stringify(document));
  await writeFile(
    join(dir, 'examples.redocly.yaml'),
    'extends: []\nrules:\n  no-invalid-media-type-examples:\n    severity: error\n    allowAdditionalProperties: false\n',
  );
  const { stdout } = await run(join(BIN, 'redocly'), ['lint', file, '--format=json', '--config', join(dir, 'examples.redocly.yaml')], {
    cwd: dir,
    env: REDOCLY_ENV,
  }).catch((failed: { stdout: string }) => failed);
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  return report.problems.map((problem: any) => `${problem.location?.[0]?.pointer}: ${problem.message}`);
}

/** A real answer of the server to one operation, to check against what the document says of it. */
interface RealAnswer {
  /** `METHOD /template/{param}` as the document's paths write it. */
  operation: string;
  status: number;
  body: unknown;
}

/**
 * A copy of the document where each real answer is one more named example of the response it
 * answered, so that the example check validates what the server really sends against the schema.
 */
function withRealAnswers(document: any, answers: RealAnswer[]): any {
  const copy = structuredClone(document);
  answers.forEach(({ operation, status, body }, index) => {
    const [verb, template] = operation.split(' ');
    const response = copy.paths[template][verb.toLowerCase()].responses[status >= 500 ? 'default' : String(status)];
    const media = Object.values<any>(response?.content ?? {})[0];
    if (!media) throw new Error(`${operation} answered ${status}, which the document does not describe with a body`);
    const examples = media.examples ?? (media.example !== undefined ? { documented: { value: media.example } } : {});
    delete media.example;
    media.examples = { ...examples, [`real_${index}`]: { value: body } };
  });
  return copy;
}

describe('OpenAPI document at /v1/openapi.json', () => {
  let testApp: TestApp;
  let document: any;
  let dir: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    document = await (await fetch(`${testApp.url}/v1/openapi.json`)).json();
    dir = await mkdtemp(join(tmpdir(), 'openapi-'));
  });
  afterAll(async () => {
    await testApp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('given the document, when its schemas are read, then every resource and error is a named component used by $ref', () => {
    const names = Object.keys(document.components.schemas);
    for (const name of [
      'Session',
      'Decision',
      'Workflow',
      'List',
      'ListEntry',
      'WebhookDestination',
      'WebhookDelivery',
      'WebhookAttempt',
      'LedgerEntry',
      'Problem',
    ])
      expect(names, name).toContain(name);
    const created = document.paths['/v1/sessions'].post.responses['201'].content['application/json'].schema;
    expect(created).toEqual({ $ref: '#/components/schemas/Session' });
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
  });

  it('given the ID verification result, when result_code is read, then it lists every code the engine returns', () => {
    const resultCode = document.components.schemas.IdVerificationResult.properties.result_code;

    expect(resultCode.enum).toEqual(expect.arrayContaining([...DOCUMENT_RESULT_CODES, 'document_tampered', 'manual_review_required']));
  });

  it('given any operation, when its responses are read, then its 4xx answers list their problem codes with examples', () => {
    const getSession = document.paths['/v1/sessions/{session_id}'].get.responses;
    expect(getSession['401'].description).toContain('`unauthenticated`');
    expect(getSession['404'].description).toContain('`not_found`');
    expect(getSession['404'].content['application/problem+json'].examples.not_found.value).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    for (const [path, item] of Object.entries<any>(document.paths))
      for (const [method, operation] of Object.entries<any>(item))
        expect(
          Object.keys(operation.responses).some((status) => status.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
  });

  it('given every operation, when its bodies are read, then each request body and each response with content has an example', () => {
    const missing: string[] = [];
    for (const { name, operation } of operationsOf(document)) {
      for (const [type, media] of Object.entries<any>(operation.requestBody?.content ?? {}))
        if (!hasExample(media)) missing.push(`${name} request ${type}`);
      for (const [status, response] of Object.entries<any>(operation.responses))
        for (const [type, media] of Object.entries<any>(response.content ?? {}))
          if (!hasExample(media)) missing.push(`${name} ${status} ${type}`);
      for (const parameter of operation.parameters ?? [])
        if (parameter.in === 'path' && parameter.example === undefined) missing.push(`${name} path parameter ${parameter.name}`);
    }
    expect(missing).toEqual([]);
    // No example is kept for an operation the document no longer has.
    const operationIds = new Set(operationsOf(document).map(({ operation }) => operation.operationId));
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !operationIds.has(id))).toEqual([]);
  });

  it('given every 4xx and default response, when read, then it lists its problem codes, each with an example of that code and status', () => {
    const wrong: string[] = [];
    for (const { name, operation } of operationsOf(document)) {
      if (name.startsWith('webhook ')) continue;
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (!status.startsWith('4') && status !== 'default') continue;
        const listed = [...String(response.description).matchAll(/`([a-z_]+)`/g)]
          .map((match) => match[1])
          .filter((code) => code !== 'code');
        const examples = response.content?.['application/problem+json']?.examples ?? {};
        if (listed.length === 0) wrong.push(`${name} ${status}: no codes listed`);
        if (JSON.stringify(Object.keys(examples)) !== JSON.stringify(listed))
          wrong.push(`${name} ${status}: examples ${Object.keys(examples)} vs ${listed}`);
        for (const code of listed) {
          const expected = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE];
          if (!expected) wrong.push(`${name} ${status}: unknown code ${code}`);
          else if (status === 'default' ? expected.status < 500 : String(expected.status) !== status)
            wrong.push(`${name} ${status}: ${code} is ${expected.status}`);
          else if (examples[code]?.value?.code !== code || examples[code]?.value?.status !== expected.status)
            wrong.push(`${name} ${status}: example of ${code} says ${examples[code]?.value?.code} ${examples[code]?.value?.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('given every example of the document, when validated against its schema, then none fails; and a wrong example would', async () => {
    expect(await invalidExamples(dir, document)).toEqual([]);

    // The check is not vacuous: a wrong enum value, an unknown property and a wrong problem code are each reported.
    const broken = structuredClone(document);
    broken.paths['/v1/sessions'].post.responses['201'].content['application/json'].example.status = 'finished';
    broken.paths['/v1/workflows/{workflow_id}'].patch.requestBody.content['application/json'].example.colour = 'blue';
    broken.paths['/v1/workflows/{workflow_id}'].patch.responses['403'].content[
      'application/problem+json'
    ].examples.workflow_read_only.value.code = 'read_only';
    broken.webhooks['agent.revoked.v2'].post.requestBody.content['application/json'].example.revoked_at = 'yesterday';
    const problems = await invalidExamples(dir, broken);
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      '#/paths/~1v1~1sessions/post/responses/201/content/application~1json/example/status',
      '#/paths/~1v1~1workflows~1{workflow_id}/patch/requestBody/content/application~1json/example/colour',
      '#/paths/~1v1~1workflows~1{workflow_id}/patch/responses/403/content/application~1problem+json/examples/workflow_read_only/value/code',
      '#/webhooks/agent.revoked.v2/post/requestBody/content/application~1json/example/revoked_at',
    ]);
  }, 120_000);

  it('given requests that fail for reasons of their own operation, when answered, then each status and code is listed under that operation', async () => {
    const tenant = await testApp.tenant();
    const key = tenant.sandboxKey;
    const create = (body: object, apiKey = key) => testApp.rest('POST', '/v1/sessions', { key: apiKey, body });
    const pending = (await create({ workflow_id: 'standard_kyc', vendor_data: 'openapi-pending' })).body.session_id;
    const decided = (await create({ workflow_id: 'aml_only', vendor_data: 'openapi-decided' })).body.session_id;
    await testApp.rest('POST', `/v1/sessions/${decided}/steps/aml`, { key, body: { full_name: 'Ada Lovelace' } });
    const lists = (await testApp.rest('GET', '/v1/lists', { key })).body.lists;
    const inUse = (
      await testApp.rest('POST', '/v1/workflows', {
        key,
        body: { name: 'AML only, in use', nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }] },
      })
    ).body.workflow_id;
    await create({ workflow_id: inUse, vendor_data: 'openapi-in-use' });
    const cases: { operation: string; method: string; path: string; body?: unknown; apiKey?: string; expected: string }[] = [
      {
        operation: 'PATCH /v1/workflows/{workflow_id}',
        method: 'PATCH',
        path: '/v1/workflows/standard_kyc',
        body: { name: 'Mine' },
        expected: 'workflow_read_only',
      },
      {
        operation: 'DELETE /v1/workflows/{workflow_id}',
        method: 'DELETE',
        path: '/v1/workflows/standard_kyc',
        expected: 'workflow_read_only',
      },
      {
        operation: 'POST /v1/sessions',
        method: 'POST',
        path: '/v1/sessions',
        body: { workflow_id: 'standard_kyc', vendor_data: 'openapi-redirect', redirect_url: 'https://evil.example/done' },
        expected: 'redirect_not_allowed',
      },
      {
        operation: 'POST /v1/sessions',
        method: 'POST',
        path: '/v1/sessions',
        body: { workflow_id: 'kyb', vendor_data: 'openapi-live' },
        apiKey: tenant.liveKey,
        expected: 'provider_unavailable',
      },
      {
        operation: 'POST /v1/sessions/{session_id}/review',
        method: 'POST',
        path: `/v1/sessions/${pending}/review`,
        body: { decision: 'approved', reason: 'Looks fine.' },
        expected: 'invalid_transition',
      },
      {
        operation: 'POST /v1/sessions/{session_id}/steps/aml',
        method: 'POST',
        path: `/v1/sessions/${decided}/steps/aml`,
        body: { full_name: 'Ada Lovelace' },
        expected: 'invalid_transition',
      },
      {
        operation: 'POST /v1/sessions/{session_id}/share',
        method: 'POST',
        path: `/v1/sessions/${pending}/share`,
        body: { partner_application_id: (await testApp.tenant()).id },
        expected: 'session_not_shareable',
      },
      {
        operation: 'POST /v1/sessions/{session_id}/share',
        method: 'POST',
        path: `/v1/sessions/${decided}/share`,
        body: { partner_application_id: tenant.id },
        expected: 'share_to_self',
      },
      {
        operation: 'POST /v1/sessions/import-shared',
        method: 'POST',
        path: '/v1/sessions/import-shared',
        body: { share_token: 'shr_unknown', trust_review: true, workflow_id: 'standard_kyc' },
        expected: 'not_found',
      },
      {
        operation: 'POST /v1/service-tokens/revoke',
        method: 'POST',
        path: '/v1/service-tokens/revoke',
        body: { token: 'eyJhbGciOiJFZERTQSJ9.e30.c2ln', reason: 'Closed account.' },
        expected: 'not_found',
      },
      {
        operation: 'DELETE /v1/lists/{uuid}',
        method: 'DELETE',
        path: `/v1/lists/${lists.find((list: any) => list.built_in).uuid}`,
        expected: 'forbidden',
      },
      {
        operation: 'POST /v1/poa',
        method: 'POST',
        path: '/v1/poa',
        body: { document_image: 'sandbox:too_old', expected_name: 'Ada Lovelace' },
        expected: 'document_too_old',
      },
      {
        operation: 'DELETE /v1/workflows/{workflow_id}',
        method: 'DELETE',
        path: `/v1/workflows/${inUse}`,
        expected: 'workflow_in_use',
      },
    ];
    const undocumented: string[] = [];
    const answers: RealAnswer[] = [];
    for (const { operation, method, path, body, apiKey, expected } of cases) {
      const response = await testApp.rest(method, path, { key: apiKey ?? key, body });
      expect(response.body?.code, `${method} ${path}`).toBe(expected);
      answers.push({ operation, status: response.status, body: response.body });
      const [verb, template] = operation.split(' ');
      const responses = document.paths[template][verb.toLowerCase()].responses;
      const listed = responses[response.status >= 500 ? 'default' : String(response.status)];
      if (!listed?.content?.['application/problem+json']?.examples?.[expected])
        undocumented.push(`${operation}: ${response.status} ${expected}`);
    }
    expect(undocumented).toEqual([]);
    // And each problem body the server sent is valid against the documented Problem schema.
    expect(await invalidExamples(dir, withRealAnswers(document, answers))).toEqual([]);
  }, 120_000);

  it('given a sandbox session driven through its operations over HTTP, when each answer is checked against the document, then it conforms', async () => {
    const tenant = await testApp.tenant();
    const partner = await testApp.tenant();
    const answers: RealAnswer[] = [];
    /** Calls one operation and keeps its answer; `path` fills the template's parameters. */
    const call = async (operation: string, path: string, body?: unknown, key = tenant.sandboxKey) => {
      const response = await testApp.rest(operation.split(' ')[0], path, { key, body });
      expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      if (response.body !== undefined) answers.push({ operation, status: response.status, body: response.body });
      return response.body;
    };
    await call('PATCH /v1/flow-settings', '/v1/flow-settings', { allowed_redirect_origins: ['https://app.acme.example'] });
    const body = { workflow_id: 'standard_kyc', vendor_data: 'openapi-user-42', redirect_url: 'https://app.acme.example/done' };
    const { session_id: id } = await call('POST /v1/sessions', '/v1/sessions', body);
    await call('POST /v1/sessions', '/v1/sessions', body);
    await call('GET /v1/sessions/{session_id}/steps', `/v1/sessions/${id}/steps`);
    const step = (name: string, input: unknown) =>
      call(`POST /v1/sessions/{session_id}/steps/${name}`, `/v1/sessions/${id}/steps/${name}`, input);
    await step('document', { country: 'GB', id_type: 'PASSPORT', image_front: 'sandbox:blurry' });
    await step('document', { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE, first_name: 'Ada', last_name: 'Lovelace' });
    await step('selfie', { selfie: SANDBOX_IMAGE });
    await step('aml', { full_name: 'Ada Lovelace' });
    await call('GET /v1/sessions/{session_id}', `/v1/sessions/${id}`);
    const decision = await call('GET /v1/sessions/{session_id}/decision', `/v1/sessions/${id}/decision`);
    await call('GET /v1/sessions', '/v1/sessions?limit=1');
    await call('POST /v1/service-tokens/introspect', '/v1/service-tokens/introspect', { token: decision.service_token });
    const { share_token } = await call('POST /v1/sessions/{session_id}/share', `/v1/sessions/${id}/share`, {
      partner_application_id: partner.id,
    });
    const imported = { share_token, trust_review: true, workflow_id: 'standard_kyc' };
    await call('POST /v1/sessions/import-shared', '/v1/sessions/import-shared', imported, partner.sandboxKey);
    await call('GET /v1/ledger', '/v1/ledger', undefined, partner.sandboxKey);
    await call('POST /v1/service-tokens/revoke', '/v1/service-tokens/revoke', { token: decision.service_token, reason: 'Closed account.' });
    const { uuid: list } = await call('POST /v1/lists', '/v1/lists', { name: 'Chargebacks', type: 'name' });
    await call('POST /v1/lists/{uuid}/entries/name', `/v1/lists/${list}/entries/name`, { name: 'John Doe', reason: 'Chargeback.' });
    await call('GET /v1/lists/{uuid}/entries', `/v1/lists/${list}/entries`);
    await call('POST /v1/aml', '/v1/aml', { full_name: 'Sandbox Pep' });
    await call('POST /v1/poa', '/v1/poa', { document_image: SANDBOX_IMAGE, expected_name: 'Ada Lovelace' });
    await call('POST /v1/id-verification', '/v1/id-verification', { country: 'GB', id_type: 'PASSPORT', image_front: SANDBOX_IMAGE });
    const { uuid: destination } = await call('POST /v1/webhook-destinations', '/v1/webhook-destinations', {
      url: 'https://hooks.acme.example/kyc',
    });
    const { id: delivery } = await call('POST /v1/webhook-destinations/{uuid}/test', `/v1/webhook-destinations/${destination}/test`);
    await call('GET /v1/webhook-deliveries/{delivery_id}', `/v1/webhook-deliveries/${delivery}`);
    await call('GET /v1/workflows', '/v1/workflows');

    expect(answers.map(({ operation, status }) => `${operation} ${status}`)).toContain('POST /v1/sessions 200');
    expect(await invalidExamples(dir, withRealAnswers(document, answers))).toEqual([]);
  }, 120_000);

  it('given the webhooks section, when read, then every event is there in every payload version', () => {
    const names = Object.keys(document.webhooks);
    for (const event of ['session.status_changed', 'agent.revoked', 'session.resubmission_requested', 'webhook.test'])
      for (const version of ['v1', 'v2', 'v3']) expect(names).toContain(`${event}.${version}`);
  });

  it("given Redocly's recommended ruleset, when it lints the document, then it reports no error and no warning", async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const { stdout } = await run(join(BIN, 'redocly'), ['lint', file, '--format=json'], { cwd: dir, env: REDOCLY_ENV });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    expect(report.problems.map((problem: any) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('given a client generated by openapi-typescript, when a program uses it, then tsc accepts correct use and rejects a wrong field', async () => {
    await writeFile(join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
    const program = `import type { components, paths } from './api.js';
type Session = components['schemas']['Session'];
type Created = paths['/v1/sessions']['post']['responses']['201']['content']['application/json'];
type Problem = paths['/v1/sessions/{session_id}']['get']['responses']['404']['content']['application/problem+json'];
export function describe(session: Created): string { const s: Session = session; return s.session_id + s.url + s.status; }
export function code(problem: Problem): string { return problem.code; }
`;
    await writeFile(join(dir, 'client.ts'), program);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        skipLibCheck: false,
      },
      files: ['client.ts'],
    };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(join(BIN, 'tsc'), ['-p', dir]);
    // And the types are real: a field the Session does not have is a compile error.
    await writeFile(join(dir, 'client.ts'), `${program}export const wrong = (s: components['schemas']['Session']) => s.no_such_field;\n`);
    await expect(run(join(BIN, 'tsc'), ['-p', dir])).rejects.toMatchObject({ stdout: expect.stringContaining('no_such_field') });
  }, 120_000);
});
